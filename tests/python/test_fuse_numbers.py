# fusecl.fuse with Python numbers among the arguments: a replay uses each
# call's numbers with NEP 50's meaning (weak: float32 math stays float32), and
# gives bit for bit what running the function unfused gives; a number used as
# a Python value (a branch, an axis, an exponent) is planned per value, so no
# replay ever reuses a value or a branch of another call.
import math

import numpy as np
import pytest

import fusecl

from conftest import black_scholes_arrays, edge_values, fuse_black_scholes as black_scholes, same_bits, unfused


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numbers_are_weak_and_each_replay_uses_its_own(dtype):
    S, K, T = black_scholes_arrays(np.random.default_rng(3), dtype)
    f = fusecl.fuse(black_scholes)
    for r, v in [(0.02, 0.3), (0.05, 0.2), (-0.01, 1.5), (0.0, 1e-3)]:
        got = f(S, K, T, r, v)
        want = unfused(black_scholes, S, K, T, r, v)
        for g, w in zip(got, want):
            assert g.dtype == dtype  # weak numbers: float32 arrays give float32 results
            same_bits(g, w, f"r={r} v={v}")
        sh, kh, th = S.numpy(), K.numpy(), T.numpy()
        np.testing.assert_allclose(got[1].numpy(), kh * np.exp(-r * th), rtol=2e-6 if dtype == np.float32 else 1e-14)
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == 3 and info["unreplayed"] == 0, info


@pytest.mark.parametrize("number", [float, np.float32])  # Python numbers and NumPy scalars
def test_a_replay_with_numbers_launches_one_kernel_and_runs_no_python(number):
    calls = []

    def scaled(x, a, b):
        calls.append(1)
        return x * a + b

    f = fusecl.fuse(scaled)
    x = fusecl.asarray(np.arange(100, dtype=np.float32))
    f(x, number(2), number(1)).numpy()
    fusecl.reset_stats()
    r = f(x, number(3), number(-1))
    fusecl.finish()
    s = fusecl.stats()
    assert s["kernels_launched"] == 1 and s["uploads"] == 0 and s["downloads"] == 0, s
    assert len(calls) == 1
    np.testing.assert_array_equal(r.numpy(), np.arange(100, dtype=np.float32) * 3 - 1)


def test_edge_values_in_every_lane_and_as_the_numbers():
    rng = np.random.default_rng(7)
    xh = edge_values(np.float32, 37, rng)  # every lane of a vector a different value, edges included
    x = fusecl.asarray(xh)
    fn = lambda x, a, b: fusecl.maximum(x * a, b) - a / (b + 2.0)  # noqa: E731
    f = fusecl.fuse(fn)
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-310, 3.4e38, 1e300, -2.5]
    with np.errstate(all="ignore"):
        for a in values:
            for b in values[::-1]:
                same_bits(f(x, a, b), unfused(fn, x, a, b), f"a={a} b={b}")
    assert f.info()["replays"] == len(values) ** 2 - 1


def test_python_arithmetic_on_numbers_is_redone_each_call():
    f = fusecl.fuse(lambda x, k, s: (x + (k * 3 - 1) // 2) * (s ** 2 + abs(-s) - 1 / s))
    x = fusecl.asarray(np.arange(-5, 5, dtype=np.float64))
    for k, s in [(1, 0.5), (7, 2.0), (-4, 1e-3), (10**6, -3.0)]:
        want = (np.arange(-5, 5, dtype=np.float64) + (k * 3 - 1) // 2) * (s ** 2 + abs(-s) - 1 / s)
        np.testing.assert_array_equal(f(x, k, s).numpy(), want)
    assert f.info()["replays"] == 3


def test_numbers_alone_in_an_operation_are_float64_as_in_numpy():
    # np.exp(-r * t) of Python floats is a float64 NumPy scalar, strong:
    # float32 times it is float64 (NEP 50).
    fn = lambda x, r, t: x * fusecl.exp(-r * t)  # noqa: E731
    f = fusecl.fuse(fn)
    x = fusecl.asarray(np.linspace(0, 1, 33, dtype=np.float32))
    for r, t in [(0.1, 2.0), (0.3, 0.5)]:
        got = f(x, r, t)
        assert got.dtype == np.float64
        same_bits(got, unfused(fn, x, r, t))
        np.testing.assert_allclose(got.numpy(), np.linspace(0, 1, 33, dtype=np.float32) * np.exp(-r * t), rtol=1e-15)
    assert f.info()["replays"] == 1


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_integer_numbers_and_numpys_overflow_errors(dtype):
    fn = lambda x, k: x + k  # noqa: E731
    f = fusecl.fuse(fn)
    x = fusecl.asarray(np.arange(10, dtype=dtype))
    for k in (1, 5, 100):
        same_bits(f(x, k), unfused(fn, x, k))
    big = int(np.iinfo(dtype).max) + 1
    with pytest.raises(OverflowError):
        unfused(fn, x, big)
    with pytest.raises(OverflowError):
        f(x, big)  # the replay converts each call's number as NumPy does
    same_bits(f(x, 2), unfused(fn, x, 2))  # and goes on working
    # true division casts the number in the kernel (never folded on the host
    # at the traced value)
    g = fusecl.fuse(lambda x, k: x / k)
    for k in (3, 7, 100):
        np.testing.assert_array_equal(g(x, k).numpy(), np.arange(10, dtype=dtype) / k)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64])
def test_an_int_compared_out_of_the_arrays_range_is_never_an_overflow(dtype):
    # NumPy 2 compares an integer array with a Python int outside its dtype as
    # values: all True or all False, never OverflowError (test_promotion.py).
    fn = lambda x, k: fusecl.where(x < k, x, x // 2)  # noqa: E731
    ii = np.iinfo(dtype)
    xh = np.array([ii.min, ii.max, 0, 1, 5, 9, 200 % (int(ii.max) + 1)], dtype=dtype)
    x = fusecl.asarray(xh)

    def want(k):
        return np.array([e if int(e) < k else e // 2 for e in xh], dtype=dtype)

    f = fusecl.fuse(fn)
    np.testing.assert_array_equal(f(x, 5).numpy(), want(5))  # traced in range: k is a kernel argument
    for k in (6, ii.max + 1, ii.min - 1, 2 ** 70, 3):
        got = f(x, k)
        np.testing.assert_array_equal(got.numpy(), want(k), err_msg=f"k={k}")
        same_bits(got, unfused(fn, x, k), f"k={k}")
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == 2 and info["unreplayed"] == 3, info
    assert "outside the range of" in info["last_reason"]

    g = fusecl.fuse(fn)  # traced out of range first: the graph depends on the value, planned per value
    for k in (ii.min - 1, 5, ii.min - 1, 5, 7, ii.min - 1):
        np.testing.assert_array_equal(g(x, k).numpy(), want(k), err_msg=f"k={k}")
    info = g.info()
    assert info["unreplayed"] == 1 and info["traces"] == 3 and info["replays"] == 2, info


def test_each_python_type_of_a_number_is_its_own_signature():
    fn = lambda x, a: x * a  # noqa: E731
    f = fusecl.fuse(fn)
    x = fusecl.asarray(np.arange(6, dtype=np.int16))
    for a in (2, 2.5, True, 3, 0.25, False):
        got = f(x, a)
        want = unfused(fn, x, a)
        assert got.dtype == want.dtype, a  # int16 for int and bool, float64 for float
        same_bits(got, want, repr(a))
    info = f.info()
    assert info["traces"] == 3 and info["replays"] == 3, info


def test_a_value_that_changes_type_runs_the_function():
    fn = lambda x, k: x * (2 ** k)  # noqa: E731  (2 ** -1 is a float)
    f = fusecl.fuse(fn)
    x = fusecl.asarray(np.arange(5, dtype=np.int32))
    same_bits(f(x, 3), unfused(fn, x, 3))
    got = f(x, -1)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.numpy(), np.arange(5) * 0.5)
    assert "another type" in f.info()["last_reason"]
    same_bits(f(x, 4), unfused(fn, x, 4))
    assert f.info()["replays"] == 1


def test_a_number_used_as_a_python_value_is_planned_per_value():
    calls = []

    def branchy(x, v, axis):
        calls.append(1)
        y = x * 2.0 if v > 0 else x - 1.0  # a branch on the number
        return fusecl.sum(y, axis=axis) * math.cos(v) + v

    f = fusecl.fuse(branchy)
    xh = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = fusecl.asarray(xh)
    seq = [(1.0, 0), (-1.0, 0), (1.0, 0), (1.0, 1), (-1.0, 0), (1.0, 0), (1.0, 1), (2.0, 1)]
    for v, axis in seq:
        got = f(x, v, axis)
        same_bits(got, unfused(branchy, x, v, axis), f"v={v} axis={axis}")
        y = xh * np.float32(2) if v > 0 else xh - np.float32(1)
        np.testing.assert_allclose(got.numpy(), y.sum(axis=axis) * math.cos(v) + v, rtol=1e-6)
    info = f.info()
    # The first call pins both numbers; after it, one plan per (v, axis) pair.
    assert info["traces"] == 4 and info["replays"] == 3 and info["unreplayed"] == 1, info


def test_a_branch_on_a_number_is_never_replayed_for_another_value():
    fn = lambda x, v: x * v if v > 0 else x - v  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.arange(5, dtype=np.float32)
    x = fusecl.asarray(xh)
    for v in (1.5, -1.5, 1.5, -1.5, 2.5, 0):
        same_bits(f(x, v), unfused(fn, x, v), f"v={v}")
        np.testing.assert_array_equal(f(x, v).numpy(), xh * np.float32(v) if v > 0 else xh - np.float32(v))
    info = f.info()
    assert info["unreplayed"] == 1 and info["traces"] == 4, info  # pinned, then a plan per value


def test_a_number_compared_with_an_array_stays_a_kernel_argument():
    fn = lambda x, lo, hi: fusecl.where(lo < x, fusecl.minimum(x, hi), lo)  # noqa: E731
    f = fusecl.fuse(fn)
    xh = np.linspace(-2, 2, 21, dtype=np.float32)
    x = fusecl.asarray(xh)
    for lo, hi in [(-1.0, 1.0), (0.0, 0.5), (-3.0, 3.0)]:
        got = f(x, lo, hi)
        same_bits(got, unfused(fn, x, lo, hi))
        np.testing.assert_array_equal(got.numpy(), np.where(lo < xh, np.minimum(xh, np.float32(hi)), np.float32(lo)))
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == 2, info


def test_an_exponent_is_planned_per_value_as_numpy_squares_for_two():
    fn = lambda x, p: x ** p  # noqa: E731
    f = fusecl.fuse(fn)
    x = fusecl.asarray(np.linspace(0.5, 3, 50, dtype=np.float32))
    for p in (2, 3, 2, 0.5, 2.0, 3):
        same_bits(f(x, p), unfused(fn, x, p), f"p={p}")
    info = f.info()  # the first call pins p; then a plan per value: 3 is met twice
    assert info["unreplayed"] == 1 and info["traces"] == 4 and info["replays"] == 1, info


def test_errors_of_the_function_are_raised_on_replays_too():
    f = fusecl.fuse(lambda x, v: x * (1 / v))
    x = fusecl.asarray(np.ones(4, np.float64))
    np.testing.assert_array_equal(f(x, 4.0).numpy(), np.full(4, 0.25))
    with pytest.raises(ZeroDivisionError):
        f(x, 0.0)
    np.testing.assert_array_equal(f(x, 2.0).numpy(), np.full(4, 0.5))


def test_a_stand_in_kept_past_its_call_is_its_number():
    kept = []

    def keep(x, v):
        kept.append(v * 2)
        return x + v

    f = fusecl.fuse(keep)
    x = fusecl.asarray(np.zeros(3, np.float32))
    np.testing.assert_array_equal(f(x, 1.5).numpy(), np.full(3, 1.5, np.float32))
    # Outside its trace a stand-in is a constant: its number when it was made.
    np.testing.assert_array_equal((x + kept[0]).numpy(), np.full(3, 3.0, np.float32))
    assert float(kept[0]) == 3.0 and kept[0] == 3.0 and str(kept[0]) == "3.0"
    np.testing.assert_array_equal(f(x, -2.0).numpy(), np.full(3, -2.0, np.float32))


def test_numbers_only_or_nested_fused_functions_run_correctly():
    inner = fusecl.fuse(lambda x, a: x * a)
    outer = fusecl.fuse(lambda x, a, b: inner(x, a) + b)
    x = fusecl.asarray(np.arange(4, dtype=np.float32))
    for a, b in [(2.0, 1.0), (3.0, -1.0), (0.5, 0.0)]:
        np.testing.assert_array_equal(outer(x, a, b).numpy(), np.arange(4, dtype=np.float32) * np.float32(a) + np.float32(b))
    assert "evaluated" in outer.info()["last_reason"]  # a fused call inside: not replayed, values right
    alone = fusecl.fuse(lambda a, b: fusecl.full((3,), a) * b)
    np.testing.assert_array_equal(alone(2.0, 3.0).numpy(), np.full(3, 6.0))
    np.testing.assert_array_equal(alone(1.0, -1.0).numpy(), np.full(3, -1.0))


def test_full_of_a_number_is_filled_on_each_replay():
    xh = np.arange(8, dtype=np.float32)
    x = fusecl.asarray(xh)
    f = fusecl.fuse(lambda x, v: fusecl.full((2, 8), v) * x)
    for v in (2.0, -0.0, math.inf, 3.5):
        got = f(x, v)
        with np.errstate(invalid="ignore"):  # inf * 0
            want = np.full((2, 8), v) * xh  # a float fill: float64, as np.full's
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.numpy().tobytes() == want.tobytes(), v
    assert f.info()["traces"] == 1 and f.info()["replays"] == 3
    g = fusecl.fuse(lambda x, v: fusecl.full(x.shape, v, dtype=np.int32) + x)
    for v in (2.7, -1.5, 7.0):  # truncated to int32 as NumPy's unsafe cast
        np.testing.assert_array_equal(g(x, v).numpy(), np.full(8, v).astype(np.int32) + xh)
    assert g.info()["replays"] == 2
    h = fusecl.fuse(lambda x, v: fusecl.full(x.shape, v))
    for v in (np.float32(-0.0), np.float32(7), np.float32(np.nan)):
        got = h(x, v)
        assert got.dtype == np.float32 and got.numpy().tobytes() == np.full(8, v).tobytes()
    assert h.info()["replays"] == 2
    # A Python int alone: NumPy's dtype depends on the value (int64, or uint64
    # past it): an int64 slot, and a call with an int past int64 runs the function.
    k = fusecl.fuse(lambda x, v: fusecl.full(x.shape, v) + x)
    for v in (2, 3, 2, 2**63, 2**64 - 1, -2**63):
        got, want = k(x, v), np.full(8, v) + xh
        assert got.dtype == want.dtype and np.array_equal(got.numpy(), want), v
    info = k.info()
    assert info["traces"] == 1 and info["replays"] == 3 and info["unreplayed"] == 2, info
    assert "outside the range of int64" in info["last_reason"]


def test_a_number_alone_in_an_operation_is_a_kernel_argument():
    # NumPy makes a Python number alone a 0-d array of its default dtype:
    # float64, bool, or int64 while the int fits (uint64 past it).
    xh = np.arange(-3, 5, dtype=np.int8)
    x = fusecl.asarray(xh)
    for fn, values in (((lambda x, v: fusecl.negative(v) + x), (3, -7, 2**63 - 1, 2**63, 5)),
                       ((lambda x, v: fusecl.logical_not(v) & (x > 0)), (True, False, True)),
                       ((lambda x, v: fusecl.sqrt(v) * x), (2.0, 0.25, -1.0))):
        f = fusecl.fuse(fn)
        for v in values:
            with np.errstate(all="ignore"):
                want = unfused(fn, x, v)
                got = f(x, v)
            assert got.dtype == want.dtype, v
            same_bits(got, want, repr(v))
        info = f.info()
        assert info["traces"] == 1 and info["replays"] == len(values) - 1 - (2**63 in values), info
