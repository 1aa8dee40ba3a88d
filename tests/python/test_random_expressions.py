# Random elementwise expressions (with views, broadcasting, casts and exact
# reductions) of exactly rounded operations: fusecl must give NumPy's dtype,
# shape and bits, or raise the same kind of exception. Each seed is one
# expression over three operands of random dtypes with edge values in
# different lanes; the seeds are fixed, so a failure names its expression.
#
# Left out: math whose NumPy result is float16 (small ints), which fusecl
# gives in float32 (README), and floor/ceil/trunc of integers, which NumPy
# 1.24 makes float64; the sign of a zero from min/max (NumPy's varies with
# its SIMD path) and of a NaN are not compared.
import numpy as np
import pytest

import fusecl

from conftest import edge_values

DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.bool_]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin", "less", "greater_equal", "equal",
          "not_equal", "bitwise_and", "bitwise_xor", "floor_divide", "remainder", "true_divide"]
UNARY = ["negative", "absolute", "sign", "square", "logical_not", "invert", "isnan", "isinf", "fsqrt"]
SCALARS = [2, -3, 0.5, True, 7]
SHAPES = [(7,), (3, 5), (1, 9), (4, 1, 3), (37,), (2, 3, 4)]


def build(rng, depth):
    """A random expression tree of `depth` levels at most over leaves 0, 1, 2."""
    if depth == 0 or rng.random() < 0.25:
        return ("leaf", int(rng.integers(0, 3)))
    r = rng.random()
    if r < 0.5:
        return ("bin", BINARY[rng.integers(0, len(BINARY))], build(rng, depth - 1), build(rng, depth - 1))
    if r < 0.7:
        return ("un", UNARY[rng.integers(0, len(UNARY))], build(rng, depth - 1))
    if r < 0.8:
        return ("where", build(rng, depth - 1), build(rng, depth - 1), build(rng, depth - 1))
    if r < 0.9:
        return ("cast", DTYPES[rng.integers(0, len(DTYPES))], build(rng, depth - 1))
    if r < 0.95:
        return ("scalar", SCALARS[rng.integers(0, len(SCALARS))], BINARY[rng.integers(0, 7)], build(rng, depth - 1))
    if r < 0.975:
        return ("view", ["T", "rev", "step", "none"][rng.integers(0, 4)], build(rng, depth - 1))
    return ("reduce", ["max", "min", "any", "all", "argmax", "argmin", "isum"][rng.integers(0, 7)],
            int(rng.integers(-1, 2)), bool(rng.integers(0, 2)), build(rng, depth - 1))


def evaluate(m, node, leaves):
    """The expression through module m (numpy or fusecl)."""
    kind = node[0]
    if kind == "leaf":
        return leaves[node[1]]
    if kind == "bin":
        return getattr(m, node[1])(evaluate(m, node[2], leaves), evaluate(m, node[3], leaves))
    if kind == "un":
        x = evaluate(m, node[2], leaves)
        if node[1] == "fsqrt":
            return m.sqrt(x.astype(np.float32) if np.dtype(x.dtype).itemsize < 4 else x)
        return getattr(m, node[1])(x)
    if kind == "where":
        return m.where(evaluate(m, node[1], leaves) != 0, evaluate(m, node[2], leaves), evaluate(m, node[3], leaves))
    if kind == "cast":
        x = evaluate(m, node[2], leaves)
        if np.dtype(x.dtype).kind == "f" and np.dtype(node[1]).kind in "iu":
            x = m.where(m.isfinite(x), x, 0) % 100  # only the casts C defines
        return x.astype(node[1])
    if kind == "scalar":
        return getattr(m, node[2])(evaluate(m, node[3], leaves), node[1])
    if kind == "view":
        x = evaluate(m, node[2], leaves)
        return {"T": lambda: x.T, "rev": lambda: x[::-1], "step": lambda: x[..., ::2], "none": lambda: x[None]}[node[1]]()
    x = evaluate(m, node[4], leaves)
    axis = None if node[2] == -1 or x.ndim == 0 else min(node[2], x.ndim - 1)
    if node[1] == "isum":  # integer sums are exact (and wrap alike)
        if np.dtype(x.dtype).kind == "f":
            x = m.where(m.isfinite(x), x, 0).astype(np.int32)
        return m.sum(x.astype(np.int64) if np.dtype(x.dtype).kind in "ub" else x, axis=axis, keepdims=node[3])
    if node[1] in ("argmax", "argmin"):
        return getattr(m, node[1])(x, axis=axis)
    return getattr(m, node[1])(x, axis=axis, keepdims=node[3])


def outcome(m, tree, leaves):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(evaluate(m, tree, leaves))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
        return "TypeError" if "not supported" in str(e) or isinstance(e, TypeError) else type(e).__name__


@pytest.mark.parametrize("seed", range(120))
def test_random_expression_matches_numpy_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    shape = SHAPES[rng.integers(0, len(SHAPES))]
    n = int(np.prod(shape))
    leaves = [edge_values(DTYPES[rng.integers(0, len(DTYPES))], n, rng).reshape(shape) for _ in range(3)]
    for i in range(3):  # edge values in random lanes, not only the first
        leaves[i] = rng.permutation(leaves[i].ravel()).reshape(shape)
    if rng.random() < 0.3:  # an operand broadcast along all but the last axis
        leaves[2] = leaves[2].reshape(-1)[: shape[-1]].reshape((1,) * (len(shape) - 1) + shape[-1:])
    if rng.random() < 0.3 and len(shape) == 2:  # an operand read transposed
        leaves[1] = np.ascontiguousarray(leaves[1].T).T
    tree = build(rng, 4)
    want = outcome(np, tree, leaves)
    got = outcome(fusecl, tree, [fusecl.asarray(x) for x in leaves])
    if isinstance(want, str) or isinstance(got, str):
        assert want == got, f"NumPy {want!r:.200}, fusecl {got!r:.200}: {tree}"
        return
    assert (got.dtype, got.shape) == (want.dtype, want.shape), tree
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=repr(tree))
        return
    np.testing.assert_array_equal(got, want, err_msg=repr(tree))  # NaN where NumPy's NaN, equal elsewhere
    if not any(f"'{f}'" in repr(tree) for f in ("minimum", "maximum", "fmin", "fmax", "max", "min")):
        finite = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(want[finite]), err_msg=f"signs of zeros: {tree}")
