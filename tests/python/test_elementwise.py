# Every elementwise function and operator against NumPy, for every dtype, on
# random data with edge values, at sizes 0, 1, 7 and 1000. All functions of one
# dtype are evaluated together (one fusecl.eval: few kernels to compile).
import operator

import numpy as np
import pytest

import fusecl
from conftest import DTYPES, SIZES, assert_matches, edge_values

# fusecl name -> (NumPy reference, ulps allowed for float results)
UNARY = {
    "negative": (np.negative, 0), "logical_not": (np.logical_not, 0), "invert": (np.invert, 0),
    "abs": (np.abs, 0), "sqrt": (np.sqrt, 3), "rsqrt": (lambda x: 1 / np.sqrt(x), 3), "cbrt": (np.cbrt, 2),
    "exp": (np.exp, 3), "exp2": (np.exp2, 3), "expm1": (np.expm1, 3), "log": (np.log, 3), "log2": (np.log2, 3),
    "log10": (np.log10, 3), "log1p": (np.log1p, 2), "sin": (np.sin, 4), "cos": (np.cos, 4), "tan": (np.tan, 5),
    "arcsin": (np.arcsin, 4), "arccos": (np.arccos, 4), "arctan": (np.arctan, 5), "sinh": (np.sinh, 4),
    "cosh": (np.cosh, 4), "tanh": (np.tanh, 5), "arcsinh": (np.arcsinh, 4), "arccosh": (np.arccosh, 4),
    "arctanh": (np.arctanh, 5), "floor": (np.floor, 0), "ceil": (np.ceil, 0), "round": (np.round, 0),
    "trunc": (np.trunc, 0), "sign": (np.sign, 0), "isnan": (np.isnan, 0), "isinf": (np.isinf, 0),
    "isfinite": (np.isfinite, 0), "fabs": (np.fabs, 0), "rint": (np.rint, 0), "signbit": (np.signbit, 0),
"rad2deg": (np.rad2deg, 0), "deg2rad": (np.deg2rad, 0), "spacing": (np.spacing, 0),
}
# NumPy has no float16 in fusecl: math functions of 8- and 16-bit integers
# compute in float32 (NumPy: float16), so the reference gets float32 input.
MATH = {"sqrt", "rsqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
        "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "fabs", "rint", "rad2deg",
        "deg2rad", "spacing"}

BINARY = {
    "add": (np.add, 0), "subtract": (np.subtract, 0), "multiply": (np.multiply, 0),
    "true_divide": (np.true_divide, 0), "floor_divide": (np.floor_divide, 3), "remainder": (np.remainder, 0),
    "equal": (np.equal, 0), "not_equal": (np.not_equal, 0), "less": (np.less, 0), "less_equal": (np.less_equal, 0),
    "greater": (np.greater, 0), "greater_equal": (np.greater_equal, 0), "logical_and": (np.logical_and, 0),
    "logical_or": (np.logical_or, 0), "bitwise_and": (np.bitwise_and, 0), "bitwise_or": (np.bitwise_or, 0),
    "bitwise_xor": (np.bitwise_xor, 0), "left_shift": (np.left_shift, 0), "right_shift": (np.right_shift, 0),
    "arctan2": (np.arctan2, 6), "power": (np.power, 16), "hypot": (np.hypot, 4), "fmin": (np.fmin, 0),
    "fmax": (np.fmax, 0), "minimum": (np.minimum, 0), "maximum": (np.maximum, 0),
    "copysign": (np.copysign, 0), "fmod": (np.fmod, 0), "nextafter": (np.nextafter, 0),
    "heaviside": (np.heaviside, 0), "logical_xor": (np.logical_xor, 0), "gcd": (np.gcd, 0), "lcm": (np.lcm, 0),
    # fusecl's 4 and 5 ulps of max(|result|, 1) (README) and NumPy's own 2.
    "logaddexp": (np.logaddexp, 6), "logaddexp2": (np.logaddexp2, 7),
}
BINARY_MATH = {"arctan2", "hypot", "copysign", "nextafter", "heaviside", "logaddexp", "logaddexp2"}
FLOORED_AT_ONE = {"logaddexp", "logaddexp2"}


def float_for(dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return dt
    return np.dtype(np.float32) if dt.itemsize <= 2 else np.dtype(np.float64)


def reference_unary(name, x):
    ref, _ = UNARY[name]
    if name in MATH:
        x = x.astype(float_for(x.dtype))
    elif name in ("floor", "ceil", "round", "trunc") and x.dtype.kind != "f":
        return x.copy()  # the identity on integers, as NumPy >= 2.3
    with np.errstate(all="ignore"):
        return ref(x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_unary_functions(dtype, rng):
    for n in SIZES:
        x = edge_values(dtype, n, rng)
        fx = fusecl.asarray(x)
        got, want = {}, {}
        for name in UNARY:
            xi, fxi = x, fx
            try:
                w = reference_unary(name, xi)
            except TypeError:
                with pytest.raises(TypeError, match=name if name != "abs" else "abs"):
                    getattr(fusecl, name)(fxi)
                continue
            got[name], want[name] = getattr(fusecl, name)(fxi), w
        fusecl.eval(*got.values())
        for name in got:
            assert_matches(got[name], want[name], UNARY[name][1], f"{name}({np.dtype(dtype).name}, n={n})")


def test_trig_beside_a_huge_lane():
    # PoCL's vector float32 sin/cos/tan go wrong in every lane beside a lane
    # past about 1e7; fusecl falls back to the scalar built-in there.
    z = np.array([1e10, 1e-3, -3e7, 0.5] * 8, np.float32)
    for name in ("sin", "cos", "tan"):
        assert_matches(getattr(fusecl, name)(fusecl.asarray(z)), getattr(np, name)(z), 4, f"{name} beside a huge lane")


def binary_operands(da, db, n, rng):
    x = edge_values(da, n, rng)
    y = edge_values(db, n, rng)[::-1].copy()  # other edge pairs than x's
    return x, y


def reference_binary(name, x, y):
    ref, _ = BINARY[name]
    p = np.result_type(x, y)
    if name in BINARY_MATH:
        x, y = x.astype(float_for(p)), y.astype(float_for(p))
    if name in ("left_shift", "right_shift") and p.kind in "iu":
        y = (np.abs(y.astype(np.int64)) % (8 * p.itemsize)).astype(y.dtype)  # shifts within the width
    if name == "power" and p.kind in "iu":
        y = (np.abs(y.astype(np.int64)) % 5).astype(y.dtype)  # NumPy raises for negative integer powers
    with np.errstate(all="ignore"):
        return ref(x, y), y


PAIRS = [(d, d) for d in DTYPES] + [
    (np.int8, np.uint8), (np.int32, np.uint32), (np.int64, np.uint64), (np.int32, np.float32), (np.int16, np.float32),
    (np.uint8, np.float64), (np.bool_, np.int32), (np.float32, np.float64), (np.uint16, np.int64), (np.bool_, np.float32)]


@pytest.mark.parametrize("da,db", PAIRS, ids=lambda d: np.dtype(d).name)
def test_binary_functions(da, db, rng):
    for n in SIZES:
        x, y0 = binary_operands(da, db, n, rng)
        fx = fusecl.asarray(x)
        got, want = {}, {}
        for name in BINARY:
            try:
                w, y = reference_binary(name, x, y0)
            except TypeError:
                with pytest.raises(TypeError):
                    getattr(fusecl, name)(fx, fusecl.asarray(y0))
                continue
            got[name], want[name] = getattr(fusecl, name)(fx, fusecl.asarray(y)), w
        fusecl.eval(*got.values())
        for name in got:
            assert_matches(got[name], want[name], BINARY[name][1],
                           f"{name}({np.dtype(da).name}, {np.dtype(db).name}, n={n})",
                           floor=1.0 if name in FLOORED_AT_ONE else 0.0)


OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
             operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
             operator.and_, operator.or_, operator.xor]


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
def test_operators_and_reflected(dtype, rng):
    x, y = binary_operands(dtype, dtype, 7, rng)
    fx, fy = fusecl.asarray(x), fusecl.asarray(y)
    for op in OPERATORS:
        with np.errstate(all="ignore"):
            try:
                want = op(x, y)
            except TypeError:
                with pytest.raises(TypeError):
                    op(fx, fy)
                continue
        assert_matches(op(fx, fy), want, 3, f"{op.__name__} arrays")
        assert_matches(op(x, fy), want, 3, f"{op.__name__} ndarray, fusecl (reflected)")
        assert_matches(op(fx, y), want, 3, f"{op.__name__} fusecl, ndarray")
    with np.errstate(all="ignore"):
        for op in (operator.neg, operator.invert, abs):
            try:
                want = op(x)
            except TypeError:
                with pytest.raises(TypeError):
                    op(fx)
                continue
            assert_matches(op(fx), want, 0, op.__name__)


def test_pow_operator_and_shifts(rng):
    x = rng.integers(-5, 6, 7).astype(np.int32)
    e = rng.integers(0, 4, 7).astype(np.int32)
    fx, fe = fusecl.asarray(x), fusecl.asarray(e)
    assert_matches(fx ** fe, x ** e)
    assert_matches(2 ** fe, 2 ** e)
    assert_matches(fx ** 2, x ** 2)
    assert_matches(fx << 3, x << 3)
    assert_matches(1 << fe, 1 << e)
    assert_matches(fx >> fe, x >> e)


def test_where_clip_fma_astype(rng):
    x = edge_values(np.float32, 1000, rng)
    y = edge_values(np.int16, 1000, rng)
    c = x > 0
    fx, fy, fc = fusecl.asarray(x), fusecl.asarray(y), fusecl.asarray(c)
    assert_matches(fusecl.where(fc, fx, fy), np.where(c, x, y))
    assert_matches(fusecl.where(fx > 0, fx, 0.0), np.where(c, x, np.float32(0)))
    assert_matches(fusecl.where(fc, 1, 2.5), np.where(c, 1, 2.5))
    assert_matches(np.where(fc, fx, fy), np.where(c, x, y))  # NumPy's function dispatches to fusecl's
    with np.errstate(all="ignore"):
        assert_matches(fusecl.clip(fx, -1.0, 1.0), np.clip(x, -1.0, 1.0))
        assert_matches(fusecl.fma(fx, fx, 1.0), (x.astype(np.float64) * x + 1).astype(np.float32), 1)
    for to in DTYPES:
        if np.dtype(to).kind in "iu":  # float -> int of NaN/inf/out of range is undefined in C and NumPy
            src = y
        else:
            src = x
        with np.errstate(all="ignore"):
            assert_matches(fusecl.asarray(src).astype(to), src.astype(to), 0, f"astype {np.dtype(to).name}")


def test_aliases_are_the_same_functions():
    assert fusecl.arcsin is not None and fusecl.asin is not None
    x = fusecl.asarray(np.array([0.5, -0.25]))
    for numpy_name, cxx in [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arctan2", "atan2"),
                            ("power", "pow"), ("absolute", "abs"), ("remainder", "mod"), ("std", "stddev"),
                            ("degrees", "rad2deg"), ("radians", "deg2rad")]:
        f, g = getattr(fusecl, numpy_name), getattr(fusecl, cxx)
        args = (x, x) if numpy_name in ("arctan2", "power", "remainder") else (x,)
        np.testing.assert_array_equal(f(*args).numpy(), g(*args).numpy())


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_reciprocal_of_integers_is_refused_with_the_reason(dtype):
    # NumPy converts 1.0 / 0 back to the integer type: INT_MIN or 0 on x86,
    # something else elsewhere. fusecl says so instead of guessing.
    with pytest.raises(TypeError, match="depends on the platform"):
        fusecl.reciprocal(fusecl.asarray(np.array([1, 0], dtype)))


def test_numpy_ufuncs_on_fusecl_arrays_stay_lazy():
    x = np.linspace(0, 1, 7)
    fx = fusecl.asarray(x)
    r = np.sin(fx) * np.exp(fx)
    assert isinstance(r, fusecl.Array)
    assert_matches(r, np.sin(x) * np.exp(x), 8)
    assert isinstance(x + fx, fusecl.Array)


def test_square_operator_is_a_multiplication_as_in_numpy(rng):
    x = edge_values(np.float32, 1000, rng)
    i = edge_values(np.int16, 1000, rng)
    fx, fi = fusecl.asarray(x), fusecl.asarray(i)
    with np.errstate(all="ignore"):
        assert_matches(fx ** 2, x ** 2)  # exactly: x * x
        assert_matches(fx ** 2.0, x ** 2.0)
        assert_matches(fi ** 2, i ** 2)
        assert_matches(fi ** 2.0, i ** 2.0)  # float64 (NEP 50), squared exactly
        assert_matches(fx ** 3, x ** 3, 16)
    assert "pow" not in fusecl.kernel_source(fx ** 2)
    b = np.array([True, False])
    assert_matches(fusecl.asarray(b) ** 2, b.astype(np.int64) ** 2)  # NEP 50: bool with a Python int is int64
    for dt in (np.bool_, np.uint8, np.int64, np.float32):  # square of bools is int8, as NumPy's
        v = edge_values(dt, 37, rng)
        with np.errstate(all="ignore"):
            assert_matches(fusecl.square(fusecl.asarray(v)), np.square(v), 0, np.dtype(dt).name)


def test_inplace_operators_keep_the_dtype_as_numpy(rng):
    x = rng.integers(-50, 50, 7).astype(np.int32)
    f = fusecl.asarray(x)
    g = f
    f += 3
    f *= 2
    f //= 3
    x2 = (x + 3) * 2 // 3
    assert_matches(f, x2)
    assert_matches(g, x)  # the old array is unchanged: fusecl arrays are immutable
    h = fusecl.asarray(np.ones(3, np.float32))
    h += 2.5
    h += np.arange(3)  # int64 into float32: same kind, cast back
    assert_matches(h, np.ones(3, np.float32) + 2.5 + np.arange(3, dtype=np.float32))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\) to dtype\\('int32'\\)"):
        f += 1.5
    with pytest.raises(TypeError, match="same_kind"):
        f /= 2
    assert_matches(fusecl.square(f), x2 * x2)
    assert_matches(np.square(f), x2 * x2)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64], ids=lambda d: np.dtype(d).name)
def test_a_negative_scalar_exponent_of_an_integer_power_raises_as_numpy(dtype):
    x = fusecl.asarray(np.array([1, 2, 3], dtype))
    for e in (-1, -7, np.int64(-2), np.int8(-1), -2 ** 70):
        with pytest.raises((ValueError, OverflowError)) as err:
            with np.errstate(all="ignore"):
                np.power(np.array([1, 2, 3], dtype), e)
        with pytest.raises(err.type):
            x ** e
        with pytest.raises(err.type):
            fusecl.power(x, e)
    with pytest.raises(ValueError, match="negative integer powers"):
        x ** np.int64(-1)
    # an empty base raises nothing in NumPy; a float base or exponent is a float power
    assert_matches(fusecl.asarray(np.zeros(0, dtype)) ** np.int64(-1), np.power(np.zeros(0, dtype), np.int64(-1)))
    assert_matches(x ** -1.0, np.array([1, 2, 3], dtype) ** -1.0, 16)
    assert_matches(x ** 0, np.ones(3, dtype))
    # a fused function's exponent is checked on every replay, which launches nothing when it raises
    f = fusecl.fuse(lambda x, n: fusecl.power(x, n))
    assert_matches(f(x, 2), np.array([1, 4, 9], dtype))
    fusecl.reset_stats()
    signed = np.dtype(dtype).kind == "i"  # -1 does not fit uint16: NumPy's OverflowError comes first
    with pytest.raises(ValueError if signed else OverflowError, match="negative integer powers" if signed else "uint16"):
        f(x, -1)
    assert fusecl.stats()["kernels_launched"] == 0
    assert_matches(f(x, 3), np.array([1, 8, 27], dtype))
    assert f.info()["replays"] == 1 and f.info()["traces"] == 1


def test_comparison_with_none_is_elementwise_as_numpy():
    xh = np.arange(6.0).reshape(2, 3)
    x = fusecl.asarray(xh)
    assert_matches(x == None, xh == None)  # noqa: E711
    assert_matches(x != None, xh != None)  # noqa: E711
    assert_matches(None == x[0], xh[0] == None)  # noqa: E711
    with pytest.raises(TypeError):
        x < None


def test_clip_drops_int_bounds_beyond_an_integer_arrays_range_as_numpy2():
    # NumPy 2's clip drops a Python int bound beyond an integer array's range
    # on the side it clips (NumPy 1.24's NEP 50 mode raises instead): the
    # expected values are written out.
    i8h, u8h = np.array([1, -2, 3, 127, -128], np.int8), np.array([0, 5, 255], np.uint8)
    i8, u8 = fusecl.asarray(i8h), fusecl.asarray(u8h)
    assert_matches(fusecl.clip(i8, 0, 300), np.array([1, 0, 3, 127, 0], np.int8))
    assert_matches(fusecl.clip(i8, -2 ** 70, 2), np.array([1, -2, 2, 2, -128], np.int8))
    assert_matches(fusecl.clip(u8, -1, 5), np.array([0, 5, 5], np.uint8))
    assert_matches(fusecl.clip(u8, -1, 2 ** 64), u8h)
    assert_matches(fusecl.clip(u8, None, 5), np.clip(u8h, None, 5))
    assert_matches(fusecl.clip(i8, -1, None), np.clip(i8h, -1, None))
    assert_matches(fusecl.clip(i8, 0.5, 2), np.clip(i8h, 0.5, 2))  # float64, as NumPy
    for lo, hi in ((200, 300), (0, -1), (-300, -200)):
        with pytest.raises(OverflowError):
            fusecl.clip(i8 if lo != 0 else u8, lo, hi)  # beyond the side it does not clip: NumPy raises too
    with pytest.raises(ValueError, match="both are None"):
        fusecl.clip(i8, None, None)
    # fused: a bound traced in range is a kernel argument; a call with one beyond runs the function
    f = fusecl.fuse(lambda x, lo, hi: fusecl.clip(x, lo, hi))
    for lo, hi, want in ((1, 4, [1, 4, 4]), (-1, 300, [0, 5, 255]), (0, 3, [0, 3, 3]), (-5, 2, [0, 2, 2])):
        assert_matches(f(u8, lo, hi), np.array(want, np.uint8), 0, f"clip({lo}, {hi})")
    info = f.info()
    assert info["traces"] == 1 and info["replays"] == 1 and info["unreplayed"] == 2, info
    assert "outside the range of uint8" in info["last_reason"]


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_divmod_is_floor_divide_and_remainder(dtype, rng):
    x = edge_values(dtype, 37, rng)
    y = edge_values(dtype, 37, rng)[::-1].copy()
    if np.dtype(dtype).kind in "iu":
        y[y == 0] = 3  # NumPy's integer division by zero warns and gives 0; tested elsewhere
    fx, fy = fusecl.asarray(x), fusecl.asarray(y)
    with np.errstate(all="ignore"):
        for got, want in ((divmod(fx, fy), np.divmod(x, y)), (fusecl.divmod(fx, fy), np.divmod(x, y)),
                          (divmod(fx, 3), np.divmod(x, 3)), (divmod(7, fy), np.divmod(7, y)),
                          (divmod(x, fy), np.divmod(x, y))):
            assert isinstance(got, tuple) and len(got) == 2
            assert_matches(got[0], want[0], 0, "quotient")
            assert_matches(got[1], want[1], 0, "remainder")


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint16], ids=lambda d: np.dtype(d).name)
def test_negation_and_abs_of_the_minimum_wrap_when_widened_in_the_same_kernel(dtype):
    # NumPy wraps -min and abs(min) to min. Fused with a widening, compilers
    # that take signed negation and abs as overflow-free gave +2^(bits-1):
    # NVIDIA's driver for int16 negation and abs, PoCL for int32 abs().
    ii = np.iinfo(dtype)
    xh = np.array([ii.min, ii.min + 1, -1 if ii.min else 1, 0, 1, ii.max, 7] * 6 + [ii.min] * 3, dtype)  # vector lanes and a tail
    x = fusecl.asarray(xh)
    for name, fn in (("negative", lambda m, v: m.negative(v)), ("absolute", lambda m, v: m.absolute(v)),
                     ("-x", lambda m, v: -v), ("abs", lambda m, v: abs(v))):
        for wide in (np.int64, np.uint64, np.float64):
            with np.errstate(all="ignore"):
                want = fn(np, xh).astype(wide)
            assert_matches(fn(fusecl, x).astype(wide), want, 0, f"{name} -> {np.dtype(wide).name}")
        with np.errstate(all="ignore"):
            assert_matches(fn(fusecl, x) + np.int64(0), fn(np, xh) + np.int64(0), 0, f"{name} + int64")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_modf_keeps_the_sign_of_zeros_and_infinities_as_numpy(dtype, rng):
    x = np.concatenate([np.array([-3.0, 3.0, -0.0, 0.0, np.inf, -np.inf, np.nan, -2.5, 1e30, -1e-300], dtype),
                        edge_values(dtype, 1000, rng)])
    with np.errstate(all="ignore"):
        want = np.modf(x)
    got = fusecl.modf(fusecl.asarray(x))
    for g, w, part in zip(got, want, ("fractional", "integral")):
        g = g.numpy()
        assert g.dtype == w.dtype
        same = (g == w) & (np.signbit(g) == np.signbit(w)) | (np.isnan(g) & np.isnan(w))
        assert same.all(), f"modf {part} part: at {np.flatnonzero(~same)[:5].tolist()}: fusecl {g[~same][:5]}, NumPy {w[~same][:5]}"
