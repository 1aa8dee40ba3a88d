# fusecl.fuse with NumPy scalars among the arguments (np.float32(0.05), or
# rates[i] of an ndarray, as a server pricing each request gets them): they
# are strong with their own dtype (NEP 50), a replay uses each call's value
# and redoes NumPy's arithmetic on it, and the results are bit for bit those
# of running the function unfused.
import numpy as np
import pytest

import fusecl

from conftest import black_scholes_arrays, edge_values, fuse_black_scholes as black_scholes, same_bits, unfused


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rates_read_from_an_ndarray_are_replayed_with_each_value(dtype):
    S, K, T = black_scholes_arrays(np.random.default_rng(11), dtype)
    rates = np.array([0.02, 0.05, -0.01, 0.0, 0.07], dtype=dtype)
    vols = np.array([0.3, 0.2, 1.5, 1e-3, 0.45], dtype=dtype)
    f = fusecl.fuse(black_scholes)
    th, kh = T.numpy(), K.numpy()
    for i in range(len(rates)):
        r, v = rates[i], vols[i]  # NumPy scalars of the arrays' dtype
        got = f(S, K, T, r, v)
        want = unfused(black_scholes, S, K, T, r, v)
        for g, w in zip(got, want):
            assert g.dtype == dtype
            same_bits(g, w, f"r={r} v={v}")
        np.testing.assert_allclose(got[1].numpy(), kh * np.exp(-r * th), rtol=2e-6 if dtype == np.float32 else 1e-14)
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == len(rates) - 1 and info["unreplayed"] == 0, info


def test_numpy_scalars_are_strong_and_each_dtype_is_its_own_signature():
    fn = lambda x, a: x * a  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.arange(-3, 3, dtype=np.int16)
    x = fusecl.asarray(xh)
    args = [np.float32(1.5), np.float64(2.5), np.int32(70000), np.uint8(200), np.int8(-3), np.bool_(True), 2.0,
            np.float32(-0.25), np.float64(1e300), np.int32(-7), np.uint8(255), np.int8(127), np.bool_(False), 3.0]
    for a in args:
        got = f(x, a)
        want = unfused(fn, x, a)
        assert got.dtype == want.dtype == np.result_type(xh, a), repr(a)  # float32 for np.float32, int32 for np.int32...
        same_bits(got, want, repr(a))
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(got.numpy(), xh * a)
    info = f.info()
    assert info["traces"] == 7 and info["replays"] == 7 and info["unreplayed"] == 0, info


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_edge_values_as_the_scalars_and_in_every_lane(dtype):
    rng = np.random.default_rng(5)
    xh = edge_values(dtype, 37, rng)  # every lane of a vector a different value, edges included
    x = fusecl.asarray(xh)
    fn = lambda x, a, b: fusecl.maximum(x * a, b) - a / (b + 2)  # noqa: E731
    f = fusecl.fuse(fn)
    fi = np.finfo(dtype)
    values = [dtype(v) for v in (0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny / 4, fi.max, -2.5)]
    with np.errstate(all="ignore"):
        for a in values:
            for b in values[::-1]:
                got = f(x, a, b)
                same_bits(got, unfused(fn, x, a, b), f"a={a!r} b={b!r}")
                np.testing.assert_array_equal(got.numpy(), np.maximum(xh * a, b) - a / (b + 2))
    assert f.info()["replays"] == len(values) ** 2 - 1


def test_numpys_arithmetic_on_the_scalars_is_redone_each_call():
    # NumPy scalar arithmetic, mixed with Python numbers and NumPy constants,
    # redone on each call's scalars: the same values and dtypes as unfused.
    fn = lambda x, k, s: (x + (k * 3 - 1) // 2) * (s * s + abs(-s) - np.float32(1) / s) + k.dtype.itemsize  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.arange(-5, 5, dtype=np.float32)
    x = fusecl.asarray(xh)
    with np.errstate(all="ignore"):
        for k, s in [(np.int16(1), np.float32(0.5)), (np.int16(7), np.float32(2)), (np.int16(-4), np.float32(1e-3)),
                     (np.int16(30000), np.float32(-3))]:  # k * 3 wraps in int16, as NumPy's does
            got = f(x, k, s)
            same_bits(got, unfused(fn, x, k, s), f"k={k} s={s}")
            want = (xh + (k * 3 - 1) // 2) * (s * s + abs(-s) - np.float32(1) / s) + 2
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want)
    info = f.info()  # .dtype.itemsize is the same for every int16: not a value
    assert info["traces"] == 1 and info["replays"] == 3, info


def test_a_python_number_times_a_numpy_constant_stays_a_kernel_argument():
    fn = lambda x, a: x * (a * np.float32(2)) + np.float64(1) * a  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.linspace(0, 1, 9, dtype=np.float32)
    x = fusecl.asarray(xh)
    for a in (0.5, -3.0, 1e-3):
        got = f(x, a)
        same_bits(got, unfused(fn, x, a), f"a={a}")
        np.testing.assert_array_equal(got.numpy(), xh * (a * np.float32(2)) + np.float64(1) * a)
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == 2, info


def test_a_numpy_scalar_used_as_a_python_value_is_planned_per_value():
    fn = lambda x, v: x * v if v > 0 else x - v  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.arange(5, dtype=np.float32)
    x = fusecl.asarray(xh)
    for v in (1.5, -1.5, 1.5, -1.5, 2.5):
        v = np.float32(v)
        same_bits(f(x, v), unfused(fn, x, v), f"v={v}")
        np.testing.assert_array_equal(f(x, v).numpy(), xh * v if v > 0 else xh - v)
    info = f.info()
    assert info["unreplayed"] == 1 and info["traces"] == 3, info  # pinned, then a plan per value
    # NumPy's own functions read the value (np.exp(v) is a NumPy scalar): planned per value too, never reused.
    g = fusecl.fuse(lambda x, v: x * np.exp(v))
    for v in (np.float64(0.5), np.float64(1.5), np.float64(0.5)):
        np.testing.assert_array_equal(g(x, v).numpy(), xh * np.exp(v))


def test_a_numpy_scalar_alone_keeps_its_dtype():
    fn = lambda x, r, t: x * fusecl.exp(-r * t)  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.linspace(0, 1, 33, dtype=np.float32)
    x = fusecl.asarray(xh)
    for r, t in [(np.float32(0.1), np.float32(2)), (np.float32(0.3), np.float32(0.5))]:
        got = f(x, r, t)
        assert got.dtype == np.float32  # exp of a float32 scalar is float32, as np.exp's
        same_bits(got, unfused(fn, x, r, t))
        np.testing.assert_allclose(got.numpy(), xh * np.exp(-r * t), rtol=1e-6)
    assert f.info()["replays"] == 1
    # sqrt of an np.float64 alone is a float64 0-d array: float32 plus it is float64
    alone = fusecl.fuse(lambda x, r: x + fusecl.sqrt(r))
    for r in (np.float64(2), np.float64(9), np.float64(0.5)):
        got = alone(x, r)
        assert got.dtype == np.float64 and got.shape == xh.shape
        np.testing.assert_array_equal(got.numpy(), xh + np.sqrt(r))
    assert alone.info()["replays"] == 2


def test_dtypes_fusecl_lacks_run_the_function_as_without_fuse():
    f = fusecl.fuse(lambda x, a: x * a)
    x = fusecl.asarray(np.ones(3, np.float32))
    for a in (np.float16(2), np.complex64(1), np.longdouble(2)):
        with pytest.raises(TypeError, match="does not support"):
            f(x, a)
    np.testing.assert_array_equal(f(x, np.float32(2)).numpy(), np.full(3, 2, np.float32))
    np.testing.assert_array_equal(f(x, np.float32(5)).numpy(), np.full(3, 5, np.float32))
    assert f.info()["replays"] == 1
