# Views with NumPy's indexing syntax and reductions along every axis, against NumPy.
import itertools

import numpy as np
import pytest

import fusecl
from conftest import assert_matches, edge_values

KEYS = [
    np.s_[1::2, :], np.s_[..., None], np.s_[::-1], np.s_[:, ::-2, 1], np.s_[-1], np.s_[1, 2, 3], np.s_[None, 0, ..., 1:],
    np.s_[2:0:-1, ::3, -2:], np.s_[:, None, :, None], np.s_[5:], np.s_[..., -1], np.s_[0:0], np.s_[-100:100, 1:-1],
    np.s_[()], np.s_[np.int64(1)],
]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_basic_indexing_like_numpy(key):
    x = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    fx = fusecl.asarray(x)
    assert_matches(fx[key], x[key], 0, str(key))
    assert_matches(fx[key] * 2 + 1, x[key] * 2 + 1, 0, f"{key} in an expression")


def test_views_reshape_transpose():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    fx = fusecl.asarray(x)
    assert_matches(fx.T, x.T)
    assert_matches(fx.transpose(1, 0, 2), x.transpose(1, 0, 2))
    assert_matches(fx.transpose((2, 0, 1)), x.transpose((2, 0, 1)))
    assert_matches(fusecl.transpose(fx, (0, 2, 1)), np.transpose(x, (0, 2, 1)))
    assert_matches(fx.reshape(4, 6), x.reshape(4, 6))
    assert_matches(fx.reshape((-1, 2)), x.reshape((-1, 2)))
    assert_matches(fx.T.reshape(-1), x.T.reshape(-1))
    assert_matches(fusecl.reshape(fx, (6, 4)), np.reshape(x, (6, 4)))
    assert_matches(fx.ravel(), x.ravel())
    assert_matches(fusecl.expand_dims(fx, 1), np.expand_dims(x, 1))
    assert_matches(fusecl.flip(fx, 2), np.flip(x, 2))
    assert_matches(fusecl.broadcast_to(fx[:, :1], (2, 3, 4)), np.broadcast_to(x[:, :1], (2, 3, 4)))
    assert_matches(fx[:, :1].squeeze(1), x[:, :1].squeeze(1))
    assert_matches(fx + fx[0], x + x[0])  # broadcasting


def test_indexing_errors():
    fx = fusecl.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        fx[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        fx[0, -5]
    with pytest.raises(IndexError, match="too many indices"):
        fx[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        fx[..., ...]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        fx[::0]
    with pytest.raises(TypeError, match="fancy indexing"):
        fx[np.array([0, 2])]
    with pytest.raises(TypeError, match="fancy indexing"):
        fx[[0, 1]]
    with pytest.raises(TypeError, match="fancy indexing"):
        fx[fx > 0]
    with pytest.raises(TypeError, match="immutable"):
        fx[0] = 1
    with pytest.raises(ValueError, match="cannot reshape array of size 12 into shape"):
        fx.reshape(5, 2)


REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "all", "any"]


def reduction_axes(ndim):
    yield None
    for a in range(-ndim, ndim):
        yield a
    for r in range(2, ndim + 1):
        yield from itertools.combinations(range(ndim), r)


# Every axis combination for three dtypes (each combination is a kernel to
# compile on a cold cache), one axis and all axes for the others.
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_reductions_along_every_axis(dtype, rng):
    every = dtype in (np.float64, np.int32, np.bool_)
    x = edge_values(dtype, 2 * 3 * 5, rng).reshape(2, 3, 5)
    if np.dtype(dtype).kind == "f":
        x = np.where(np.isfinite(x) & (np.abs(x) < 1e3), x, np.float32(1.5)).astype(dtype)  # sums stay comparable
    fx = fusecl.asarray(x)
    for name in REDUCTIONS + ["var", "std"]:
        for axis in (reduction_axes(3) if every else (None, 1, (0, 2))):
            if name in ("argmin", "argmax") and isinstance(axis, tuple):
                continue
            for keepdims in (False, True):
                kw = {} if name in ("argmin", "argmax") and keepdims is False else {"keepdims": keepdims}
                if name in ("argmin", "argmax") and keepdims:
                    continue  # NumPy 1.24's argmin has keepdims; fusecl too, checked below
                with np.errstate(all="ignore"):
                    want = getattr(np, name)(x, axis=axis, **kw)
                got = getattr(fusecl, name)(fx, axis=axis, **kw)
                method = getattr(fx, name)(axis=axis, **kw)
                # Sums in another order (Kahan in fusecl, pairwise in NumPy).
                ulps = 0 if name in ("min", "max", "argmin", "argmax", "all", "any") else 64
                assert_matches(got, want, ulps, f"{name}({x.dtype}, axis={axis}, keepdims={keepdims})")
                assert_matches(method, want, ulps, f"a.{name}(axis={axis})")
    assert_matches(fusecl.argmax(fx, axis=1, keepdims=True), np.argmax(x, axis=1, keepdims=True))


def test_var_std_ddof_and_numpy_dispatch(rng):
    x = rng.standard_normal((4, 7))
    fx = fusecl.asarray(x)
    for ddof in (0, 1, 2):
        assert_matches(fx.var(axis=1, ddof=ddof), x.var(axis=1, ddof=ddof), 16)
        assert_matches(fusecl.std(fx, ddof=ddof), np.std(x, ddof=ddof), 16)
    assert_matches(np.sum(fx, axis=0), np.sum(x, axis=0), 16)  # np.sum calls fx.sum
    assert_matches(np.mean(fx), np.mean(x), 16)
    assert float(np.max(fx)) == x.max()


def test_reductions_of_empty_and_errors():
    e = fusecl.asarray(np.zeros((0, 3), np.float32))
    assert_matches(e.sum(axis=0), np.zeros(3, np.float32))
    assert_matches(e.sum(), np.float32(0))
    assert_matches(e.prod(axis=0), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        e.min()
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        e.max(axis=0)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        e.argmax()
    assert_matches(e.max(axis=1), np.zeros((0, 3), np.float32).max(axis=1))
    with pytest.raises(ValueError):
        fusecl.asarray(np.zeros((2, 3))).sum(axis=2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        fusecl.asarray(np.zeros((2, 3))).sum(axis=(0, 0))
    with pytest.raises(TypeError, match="dtype= is not supported"):
        fusecl.ones(3).sum(dtype=np.float64)


def test_concatenate_and_stack(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.integers(0, 9, (4, 3)).astype(np.int32)
    fa, fb = fusecl.asarray(a), fusecl.asarray(b)
    assert_matches(fusecl.concatenate([fa, fb]), np.concatenate([a, b]))
    assert_matches(fusecl.concatenate([fa.T, fa.T], axis=1), np.concatenate([a.T, a.T], axis=1))
    assert_matches(fusecl.stack([fa, fa * 2], axis=1), np.stack([a, a * 2], axis=1))
    assert_matches(fusecl.stack([fa, fa], axis=-1), np.stack([a, a], axis=-1))
    with pytest.raises(ValueError, match="all the input array dimensions except for the concatenation axis"):
        fusecl.concatenate([fa, fb], axis=1)
    with pytest.raises(ValueError, match="all input arrays must have the same shape"):
        fusecl.stack([fa, fb])


def test_generators():
    assert_matches(fusecl.zeros((2, 3)), np.zeros((2, 3)))
    assert_matches(fusecl.ones(4, dtype=np.int8), np.ones(4, np.int8))
    assert_matches(fusecl.full((2, 2), 7), np.full((2, 2), 7))
    assert_matches(fusecl.full(3, 2.5, dtype=np.float32), np.full(3, 2.5, np.float32))
    assert_matches(fusecl.full(3, True), np.full(3, True))
    assert_matches(fusecl.arange(10), np.arange(10))
    assert_matches(fusecl.arange(1, 10, 3), np.arange(1, 10, 3))
    assert_matches(fusecl.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25))
    assert_matches(fusecl.arange(5, dtype=np.float32), np.arange(5, dtype=np.float32))
    assert_matches(fusecl.linspace(0, 1, 11), np.linspace(0, 1, 11), 1)
    # float32 linspace computes start + i * step in float32 (NumPy: float64, then rounds).
    assert_matches(fusecl.linspace(-2, 3, 7, endpoint=False, dtype=np.float32),
                   np.linspace(-2, 3, 7, endpoint=False, dtype=np.float32), 8)
    # integer dtypes: the float64 values rounded down (NumPy 1.24 and 2 alike), bool: nonzero
    for lo, hi, n, dt in ((-10, 0, 4, np.int32), (0, 10, 4, np.uint8), (-7.5, 7.5, 9, np.int64), (0, 1, 3, np.bool_)):
        assert_matches(fusecl.linspace(lo, hi, n, dtype=dt), np.linspace(lo, hi, n, dtype=dt), 0, f"{lo} {hi} {dt}")
    np.testing.assert_array_equal(fusecl.linspace(-10, 0, 4, dtype=np.int32).numpy(), [-10, -7, -4, 0])
    assert_matches(fusecl.eye(3), np.eye(3))
    assert_matches(fusecl.eye(3, 5, k=1, dtype=np.int32), np.eye(3, 5, k=1, dtype=np.int32))
    with pytest.raises(OverflowError):
        fusecl.full(3, 300, dtype=np.uint8)
    u = fusecl.random.uniform((1000,), seed=3).numpy()
    assert u.dtype == np.float64 and u.min() >= 0 and u.max() < 1 and 0.4 < u.mean() < 0.6
    np.testing.assert_array_equal(u, fusecl.random.uniform((1000,), seed=3).numpy())
    assert not np.array_equal(u, fusecl.random.uniform((1000,), seed=4).numpy())
    v = fusecl.random.uniform((2, 500), seed=1, low=-2.0, high=2.0, dtype=np.float32).numpy()
    assert v.dtype == np.float32 and v.shape == (2, 500) and v.min() >= -2 and v.max() < 2
    g = fusecl.random.normal((100000,), seed=5, loc=3.0, scale=2.0).numpy()
    assert abs(g.mean() - 3) < 0.05 and abs(g.std() - 2) < 0.05


def random_key(shape, rng):
    key = []
    for dim in shape:
        r = rng.random()
        if r < 0.3:
            key.append(int(rng.integers(-dim, dim)) if dim else slice(None))
        elif r < 0.9:
            pick = lambda: None if rng.random() < 0.3 else int(rng.integers(-dim - 2, dim + 3))
            step = [None, 1, 2, 3, -1, -2, -3][int(rng.integers(0, 7))]
            key.append(slice(pick(), pick(), step))
        else:
            key.append(None)
            key.append(slice(None))
    if rng.random() < 0.3:
        key.insert(int(rng.integers(0, len(key) + 1)), Ellipsis)
        key = key[: len(key) - 1] if len(key) > 1 else key
    return tuple(key)


def test_random_basic_indexing_against_numpy(rng):
    # Shapes with 1 to 4 axes, sizes 0 to 6; keys of integers, slices with any
    # start, stop and step (out of range included), None and Ellipsis; then a
    # second index on the view and an operation reading it.
    for _ in range(150):
        shape = tuple(int(d) for d in rng.integers(0, 7, int(rng.integers(1, 5))))
        x = rng.standard_normal(shape).astype(np.float32)
        fx = fusecl.asarray(x)
        key = random_key(shape, rng)
        try:
            want = x[key]
        except IndexError:
            with pytest.raises(IndexError):
                fx[key]
            continue
        got = fx[key]
        assert_matches(got, want, 0, f"x{shape}[{key}]")
        if want.ndim:
            assert_matches(got[::-1] + 1, want[::-1] + 1, 0, f"x{shape}[{key}][::-1] + 1")
