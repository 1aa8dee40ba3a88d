# NEP 50 (NumPy 2) promotion with Python scalars as weak scalars, NumPy
# scalars as strong ones; the reference is NumPy under NEP 50 (conftest).
import numpy as np
import pytest

import fusecl
from conftest import DTYPES, assert_matches

SCALARS = [True, 2, -3, 2.5, 0.0]
COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
               "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
INTEGERS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def out_of_range(dtype, s):
    """Whether s is a Python int outside the integer dtype's range."""
    ii = np.iinfo(dtype)
    return type(s) is int and not ii.min <= s <= ii.max


def compared_out_of_range(op, x, s):
    """NumPy 2's op(x, s) where op compares an integer array x with a Python
    int s outside x's dtype: each element compared with s exactly, in Python
    (NumPy 2 does not convert s; NumPy 1.24's NEP 50 mode raises
    OverflowError). None for any other case."""
    if x.dtype.kind not in "iu" or not out_of_range(x.dtype, s):
        return None
    got = [op(int(e), s) for e in x.ravel()]
    if not all(type(g) is bool for g in got):
        return None  # not a comparison: arithmetic raises, as NumPy
    return np.array(got, dtype=bool).reshape(x.shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_python_scalars_are_weak(dtype):
    x = np.array([0, 1, 3, 5], dtype=dtype)
    fx = fusecl.asarray(x)
    for s in SCALARS:
        for op in (lambda a, b: a + b, lambda a, b: b * a, lambda a, b: a < b, lambda a, b: fusecl.maximum(a, b)
                   if isinstance(a, fusecl.Array) else np.maximum(a, b)):
            try:
                with np.errstate(all="ignore"):
                    want = compared_out_of_range(op, x, s)
                    if want is None:
                        want = op(x, s)
            except (OverflowError, TypeError) as e:
                with pytest.raises(type(e)):
                    op(fx, s)
                continue
            assert_matches(op(fx, s), want, 0, f"{np.dtype(dtype).name} with {s!r}")


def test_examples_from_the_issue():
    f32 = fusecl.asarray(np.ones(3, np.float32))
    assert (f32 * 2.0).dtype == np.float32
    assert (2.0 * f32).dtype == np.float32
    assert (f32 + 1).dtype == np.float32
    i8 = fusecl.asarray(np.array([1, 2, 3], np.int8))
    assert (i8 + 1).dtype == np.int8
    assert (i8 * 2.5).dtype == np.float64
    assert (i8 / 2).dtype == np.float64
    b = fusecl.asarray(np.array([True, False]))
    assert (b + 1).dtype == np.int64
    assert (b & True).dtype == np.bool_
    u8 = fusecl.asarray(np.array([250], np.uint8))
    assert_matches(u8 + 10, np.array([4], np.uint8))  # wraps, as NumPy


@pytest.mark.parametrize("dtype,value", [(np.int8, 300), (np.uint8, -1), (np.int8, -129), (np.uint64, -1),
                                         (np.int64, 2 ** 63), (np.uint32, 2 ** 32), (np.int16, 10 ** 30)])
def test_out_of_range_python_int_raises_overflow_error(dtype, value):
    fx = fusecl.asarray(np.zeros(3, dtype))
    with pytest.raises(OverflowError, match=f"Python integer {value} out of bounds for {np.dtype(dtype).name}"):
        fx + value
    with pytest.raises(OverflowError):
        value - fx


def test_uint64_max_and_float_big_ints():
    u = fusecl.asarray(np.array([1], np.uint64))
    assert_matches(u + (2 ** 64 - 2), np.array([2 ** 64 - 1], np.uint64))
    f = fusecl.asarray(np.array([1.0], np.float32))
    assert_matches(f * 10 ** 20, np.array([1.0], np.float32) * 10 ** 20)
    with pytest.raises(OverflowError):
        f + 10 ** 400


def test_numpy_scalars_are_strong():
    f32 = fusecl.asarray(np.ones(3, np.float32))
    assert (f32 * np.float64(2)).dtype == np.float64
    assert (f32 * np.float32(2)).dtype == np.float32
    i8 = fusecl.asarray(np.ones(3, np.int8))
    assert (i8 + np.int32(1)).dtype == np.int32
    assert_matches(np.int16(7) - i8, np.int16(7) - np.ones(3, np.int8))


def test_array_array_promotion_table():
    for a in DTYPES:
        for b in DTYPES:
            fa, fb = fusecl.zeros(2, dtype=a), fusecl.zeros(2, dtype=b)
            assert (fa + fb).dtype == np.result_type(a, b) or (a == b == np.bool_), (a, b)
            assert (fa == fb).dtype == np.bool_


def test_unsupported_dtypes_raise_type_error_saying_what_to_do():
    with pytest.raises(TypeError, match="float16.*astype\\(np.float32\\)"):
        fusecl.asarray(np.ones(3, np.float16))
    with pytest.raises(TypeError, match="complex"):
        fusecl.asarray(np.ones(3, np.complex64))
    with pytest.raises(TypeError, match="not support dtype object"):
        fusecl.asarray(np.array([object()]))
    with pytest.raises(TypeError):
        fusecl.asarray(np.array(["a"]))
    with pytest.raises(TypeError, match="float16"):
        fusecl.ones(3).astype(np.float16)
    with pytest.raises(TypeError, match="complex"):
        fusecl.zeros(3, dtype=complex)
    with pytest.raises(TypeError, match="not supported for the input type"):
        fusecl.invert(fusecl.ones(3))
    with pytest.raises(TypeError, match="not supported"):
        fusecl.ones(3) & fusecl.ones(3)
    with pytest.raises(TypeError):
        fusecl.ones(3) + "a"


@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
def test_comparison_with_an_out_of_range_int_compares_values(dtype):
    # NumPy 2 gives every element's true answer (all True or all False)
    # instead of OverflowError; the int may come first or second.
    ii = np.iinfo(dtype)
    x = np.array([ii.min, ii.max, 0, 1, ii.max - 1, 7, 3], dtype=dtype)
    fx = fusecl.asarray(x)
    for s in (ii.max + 1, ii.min - 1, 2 ** 64, -2 ** 64, 10 ** 30, -10 ** 30):
        for name, op in COMPARISONS.items():
            want = compared_out_of_range(op, x, s)
            assert_matches(op(fx, s), want, 0, f"{np.dtype(dtype).name} {name} {s}")
            assert_matches(op(s, fx), compared_out_of_range(lambda a, b: op(b, a), x, s), 0,
                           f"{s} {name} {np.dtype(dtype).name}")
            if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
                assert_matches(op(fx, s), op(x, s), 0, "as NumPy 2")
        for fn, name in ((fusecl.less, "<"), (fusecl.equal, "=="), (fusecl.greater_equal, ">=")):
            assert_matches(fn(fx[1:], s), compared_out_of_range(COMPARISONS[name], x[1:], s), 0, name)
        with pytest.raises(OverflowError):
            fx + s  # arithmetic still raises, as NumPy's
    assert (fx < 2 ** 70).shape == x.shape and (fx < 2 ** 70).dtype == np.bool_
    assert_matches(fx[None, :] >= -2 ** 70, np.ones((1, x.size), bool))


def test_bool_array_compared_with_an_out_of_range_int_raises():
    # bool and a Python int promote to int64, which 2**63 does not fit: NumPy raises.
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        fusecl.asarray(np.array([True, False])) < 2 ** 63
