# Shared helpers for the Python module's tests: NumPy itself is the reference.
#
# fusecl follows NumPy 2's promotion (NEP 50: Python scalars are weak).
# Debian 12 ships NumPy 1.24, whose default is the older value-based
# promotion; its "weak" promotion state is NEP 50, so the reference uses it.
import numpy as np
import pytest

import fusecl

if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64]
SIZES = [0, 1, 7, 1000]


def edge_values(dtype, n, rng):
    """n values of dtype: random ones, with the dtype's edge values first
    (±0, ±inf, NaN, 1, -1 and extremes for floats; min, max, 0, ±1 for integers)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
        edges = [True, False]
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 10).astype(dt)
        fi = np.finfo(dt)
        edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, fi.max, fi.tiny, -fi.max, 3.0]
    else:
        ii = np.iinfo(dt)
        lo, hi = max(ii.min, -100), min(ii.max, 100)
        v = rng.integers(lo, hi + 1, n, dtype=dt)
        edges = [ii.min, ii.max, 0, 1, ii.max - 1] + ([-1] if ii.min < 0 else [])
    k = min(n, len(edges))
    v[:k] = np.array(edges[:k], dtype=dt)
    return v


def unfused(fn, *args):
    """fn's results, evaluated: what a fused function must give bit for bit (the fuse tests)."""
    r = fn(*args)
    fusecl.eval(*((r,) if isinstance(r, fusecl.Array) else r))
    return r


def same_bits(got, want, what=""):
    """got and want (fusecl arrays) have one dtype, one shape and the same bits."""
    g, w = got.numpy(), want.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, what
    assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), f"{what}: {g[:8]} against {w[:8]}"


def black_scholes_arrays(rng, dtype, n=4099):
    """fuse_black_scholes's spot, strike and time arrays of n elements (4099: a vector tail)."""
    S, K = (fusecl.asarray(rng.uniform(5, 50, n).astype(dtype)) for _ in range(2))
    return S, K, fusecl.asarray(rng.uniform(0.05, 2, n).astype(dtype))


def fuse_black_scholes(S, K, T, r, v):
    """Black-Scholes-like arithmetic on arrays and numbers (tanh for the normal CDF), two results."""
    sq = fusecl.sqrt(T)
    d1 = (fusecl.log(S / K) + (r + 0.5 * v * v) * T) / (v * sq)
    d2 = d1 - v * sq
    disc = K * fusecl.exp(-r * T)
    return S * fusecl.tanh(d1) - disc * fusecl.tanh(d2), disc


def ulp_close(got, want, ulps, floor=0.0):
    """True where got is within `ulps` units in the last place of want (of
    max(|want|, floor) with a floor: an absolute error below it), NaN
    matching NaN, infinities matching exactly."""
    got = np.asarray(got)
    want = np.asarray(want)
    if want.dtype.kind != "f":
        return got == want
    both_nan = np.isnan(got) & np.isnan(want)
    with np.errstate(all="ignore"):
        same = got == want
        tol = ulps * np.spacing(np.maximum(np.abs(want), max(floor, np.finfo(want.dtype).tiny)).astype(want.dtype))
        near = np.abs(got.astype(np.float64) - want.astype(np.float64)) <= tol
    return both_nan | same | near


def assert_matches(got, want, ulps=0, what="", floor=0.0):
    """got (a fusecl.Array) has want's dtype and shape and, within ulps (of
    max(|want|, floor)), its values."""
    assert isinstance(got, fusecl.Array), what
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, NumPy {want.shape}"
    g = got.numpy()
    ok = ulp_close(g, want, ulps, floor)
    if not np.all(ok):
        bad = np.flatnonzero(~np.asarray(ok).reshape(-1))[:5]
        raise AssertionError(f"{what}: at flat {bad.tolist()}: fusecl {g.reshape(-1)[bad].tolist()}, "
                             f"NumPy {want.reshape(-1)[bad].tolist()}")


@pytest.fixture
def rng():
    return np.random.default_rng(15)
