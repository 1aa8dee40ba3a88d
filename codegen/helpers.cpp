#include "codegen/helpers.hpp"

#include "fusecl/error.hpp"

namespace fusecl::codegen {

namespace {

std::string w(int width) { return width > 1 ? std::to_string(width) : ""; }

// Everything the helper templates below refer to.
struct Types {
  std::string T, U, I, S;  // full type, unsigned and signed of same size (same width), scalar type
  int bits;
  Kind kind;
};

Types types_of(DType t, int width) {
  Types r;
  r.T = cl_type(t, width);
  r.S = scalar_name(t);
  r.bits = size_of(t) * 8;
  r.kind = kind_of(t);
  r.U = cl_type(detail::unsigned_of_size(size_of(t)), width);
  r.I = cl_type(detail::signed_of_size(size_of(t)), width);
  return r;
}

// Replaces every `key` in text by `val`.
void replace_all(std::string& text, const std::string& key, const std::string& val) {
  for (std::size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + val.size()))
    text.replace(p, key.size(), val);
}

// Replaces $T, $U, $I, $S, $B (bits), $N (helper name) in a helper template;
// for float types also the format constants $P (precision), $MB (mantissa
// bits), $BIAS, $EMIN, $TINY (2^EMIN), $TWOP (2^P), $MAGIC (2^(P-1)), $LN2
// and $LOG2E; and
// $ANY(...), which is any(...) on vectors and the plain condition on scalars
// (any() of a scalar tests its sign bit, and a scalar comparison gives 1).
std::string fill(std::string text, const Types& t, const std::string& name, int width) {
  replace_all(text, "$N", name);
  if (t.kind == Kind::Float) {
    const bool dbl = t.bits == 64;
    replace_all(text, "$MB", dbl ? "52" : "23");
    replace_all(text, "$P", dbl ? "53" : "24");
    replace_all(text, "$BIAS", dbl ? "1023" : "127");
    replace_all(text, "$EMIN", dbl ? "-1022" : "-126");
    replace_all(text, "$TINY", dbl ? "0x1p-1022" : "0x1p-126f");
    replace_all(text, "$TWOP", dbl ? "0x1p53" : "0x1p24f");
    replace_all(text, "$MAGIC", dbl ? "0x1p52" : "0x1p23f");
    replace_all(text, "$MANT", dbl ? "0x000fffffffffffffUL" : "0x007fffffU");
    replace_all(text, "$ABS", dbl ? "0x7fffffffffffffffUL" : "0x7fffffffU");
    replace_all(text, "$MAX", dbl ? "DBL_MAX" : "FLT_MAX");
    replace_all(text, "$LN2", dbl ? "0x1.62e42fefa39efp-1" : "0x1.62e430p-1f");      // NPY_LOGE2
    replace_all(text, "$LOG2E", dbl ? "0x1.71547652b82fep+0" : "0x1.715476p+0f");  // NPY_LOG2E
  }
  replace_all(text, "$ANY", width > 1 ? "any" : "");
  replace_all(text, "$T", t.T);
  replace_all(text, "$U", t.U);
  replace_all(text, "$I", t.I);
  replace_all(text, "$S", t.S);
  replace_all(text, "$B", std::to_string(t.bits));
  return text;
}

}  // namespace

std::string scalar_name(DType t) {
  switch (t) {
    case DType::Bool: return "uchar";
    case DType::Int8: return "char";
    case DType::Int16: return "short";
    case DType::Int32: return "int";
    case DType::Int64: return "long";
    case DType::UInt8: return "uchar";
    case DType::UInt16: return "ushort";
    case DType::UInt32: return "uint";
    case DType::UInt64: return "ulong";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
  }
  return "?";
}

std::string cl_type(DType t, int width) { return scalar_name(t) + w(width); }

std::string HelperSet::use(const std::string& name, const std::string& definition) {
  if (index_.emplace(name, index_.size()).second) text_ += definition;
  return name;
}

std::string HelperSet::text() const { return text_; }

// ---- helper templates: valid for scalars and vectors alike, because `?:`,
// comparisons and && / || work component-wise on vectors in OpenCL C. ----

// Floor division that never divides by zero (0 results) or overflows (MIN / -1 wraps).
const char k_floordiv_signed[] = R"(static inline $T $N($T x, $T y) {
  const $T ys = (y == ($T)(0) || y == ($T)(-1)) ? ($T)(1) : y;
  const $T q = x / ys;
  const $T r = x - q * ys;
  const $T f = (r != ($T)(0) && ((r < ($T)(0)) != (ys < ($T)(0)))) ? q - ($T)(1) : q;
  const $T neg = as_$T(($U)(($U)(0) - as_$U(x)));
  return (y == ($T)(0)) ? ($T)(0) : ((y == ($T)(-1)) ? neg : f);
}
)";
const char k_floordiv_unsigned[] = R"(static inline $T $N($T x, $T y) {
  const $T ys = (y == ($T)(0)) ? ($T)(1) : y;
  return (y == ($T)(0)) ? ($T)(0) : ($T)(x / ys);
}
)";
// Exact C fmod (the sign of x) from + - * /, comparisons, bit casts, integer
// ops and fma, which OpenCL requires to be correctly rounded; never the fmod
// builtin, which PoCL 3.1 gets wrong in about 0.3% of the lanes of a
// double8 / double16 (14 % 11.25 gave 0.53125). Valid for scalars and vectors.
//
// Why it is exact. Let r = |x|, d = |y| (finite, d > 0), p the precision, and
// E(v) the exponent of v (v in [2^E, 2^(E+1)); subnormals are scaled by 2^p
// first, so E is right for them too). While r >= d, one step picks
// t = d 2^k with k = 0 if E(r) - E(d) <= p - 5, else k = E(r) - E(d) - (p - 5)
// (built from d's mantissa bits and the exponent E(r) - (p - 5), or, where
// that is below the normal range, as d times a small power of two: exact
// either way). Then d <= t <= r and r / t < 2^(p-4). With Q = floor(r / t):
//  - qf = r / t is within 5/32 of r / t (even with 2.5-ulp float division),
//    a = qf + 1/2 rounds by at most 1/16, so a is in [r/t + 9/32, r/t + 23/32]
//    and n = floor(a) (rounding to an integer by adding and subtracting
//    2^(p-1), then stepping down if that went up) is Q or Q + 1;
//  - r' = r - n t lies in [-t, t) and is a multiple of the quantum (ulp) of t,
//    as r >= t is; so it has at most p bits and fma(-n, t, r) gives it
//    exactly; r' + t for r' < 0 is exact likewise.
// So r mod t, and r mod d (t is a multiple of d), is exact after each step.
// A step with k = 0 ends with r < d; a step with k > 0 leaves r < t <
// 2^(E(r) - p + 6), removing p - 6 bits of exponent gap. At most 45 steps
// for double (2^1023 % 2^-1074), 16 for float; one step when |x / y| <
// 2^(p-5). Lanes that are done keep their value (a vector runs until its
// slowest lane is done). fmod(x, 0), fmod(inf, y) and NaN give NaN;
// fmod(x, inf) is x.
const char k_fmod_float[] = R"(static inline $T $N($T x, $T y) {
  const $T ax = as_$T(as_$U(x) & ($U)($ABS));
  const $T d = as_$T(as_$U(y) & ($U)($ABS));
  const $I ok = (ax <= ($T)($MAX)) && (d > ($T)(0));
  $T r = ok ? ax : ($T)(0);
  const $I dsub = d < ($T)($TINY);
  const $T dn = dsub ? d * ($T)($TWOP) : d;
  const $I ed = as_$I(as_$U(dn) >> ($U)($MB)) - ($I)($BIAS) - (dsub ? ($I)($P) : ($I)(0));
  const $U dmant = as_$U(dn) & ($U)($MANT);
  $I todo = ok && (r >= d);
  while ($ANY(todo)) {
    const $I rsub = r < ($T)($TINY);
    const $T rn = rsub ? r * ($T)($TWOP) : r;
    const $I er = as_$I(as_$U(rn) >> ($U)($MB)) - ($I)($BIAS) - (rsub ? ($I)($P) : ($I)(0));
    const $I et = er - ($I)($P - 5);
    const $I big = (er - ed) > ($I)($P - 5);
    const $T t_normal = as_$T(dmant | (as_$U(et + ($I)($BIAS)) << ($U)($MB)));
    const $I k_small = (big && et < ($I)($EMIN)) ? et - ed : ($I)(0);
    const $T t_sub = d * as_$T(as_$U(k_small + ($I)($BIAS)) << ($U)($MB));
    const $T t = big ? ((et >= ($I)($EMIN)) ? t_normal : t_sub) : d;
    const $T a = r / t + ($T)(0.5);
    $T n = (a + ($T)($MAGIC)) - ($T)($MAGIC);
    n = (n > a) ? n - ($T)(1) : n;
    $T rr = fma(-n, t, r);
    rr = (rr < ($T)(0)) ? rr + t : rr;
    r = todo ? rr : r;
    todo = ok && (r >= d);
  }
  const $T res = as_$T(as_$U(r) | (as_$U(x) & ~($U)($ABS)));
  return ok ? res : ($T)(NAN);
}
)";
// NumPy's floor_divide on floats (npy_divmod), on the exact fmod above.
const char k_floordiv_float[] = R"(static inline $T $N($T x, $T y) {
  const $T m = $F(x, y);
  $T d = (x - m) / y;
  d = (m != ($T)(0) && ((y < ($T)(0)) != (m < ($T)(0)))) ? d - ($T)(1) : d;
  $T f = floor(d);
  f = (d - f > ($T)(0.5)) ? f + ($T)(1) : f;
  f = (d == ($T)(0)) ? copysign(($T)(0), x / y) : f;
  return (y == ($T)(0)) ? x / y : f;
}
)";
// NumPy's remainder: the sign of the divisor; 0 for integer division by zero.
const char k_mod_signed[] = R"(static inline $T $N($T x, $T y) {
  const $T ys = (y == ($T)(0) || y == ($T)(-1)) ? ($T)(1) : y;
  const $T r = x % ys;
  const $T m = (r != ($T)(0) && ((r < ($T)(0)) != (ys < ($T)(0)))) ? r + ys : r;
  return (y == ($T)(0) || y == ($T)(-1)) ? ($T)(0) : m;
}
)";
const char k_mod_unsigned[] = R"(static inline $T $N($T x, $T y) {
  const $T ys = (y == ($T)(0)) ? ($T)(1) : y;
  return (y == ($T)(0)) ? ($T)(0) : ($T)(x % ys);
}
)";
const char k_mod_float[] = R"(static inline $T $N($T x, $T y) {
  const $T m = $F(x, y);
  const $T r = (m != ($T)(0) && ((m < ($T)(0)) != (y < ($T)(0)))) ? m + y : m;
  return (m == ($T)(0)) ? copysign(($T)(0), y) : r;
}
)";
// NumPy's fmod of integers: C's remainder (the sign of x), 0 for a zero
// divisor, and 0 for -1 (which also covers INT_MIN % -1, undefined in C).
// Unsigned fmod is k_mod_unsigned.
const char k_fmod_signed[] = R"(static inline $T $N($T x, $T y) {
  const $T ys = (y == ($T)(0) || y == ($T)(-1)) ? ($T)(1) : y;
  return (y == ($T)(0) || y == ($T)(-1)) ? ($T)(0) : ($T)(x % ys);
}
)";
// C's nextafter on the bit pattern: one step of the integer that holds the
// bits, towards y; y itself where x == y (so nextafter(-0, +0) is +0), the
// smallest subnormal of y's sign from a zero, NaN from a NaN. Not the
// built-in: a bit step is exact on every device, flushing or not.
const char k_nextafter[] = R"(static inline $T $N($T x, $T y) {
  const $I away = (y > x) == (x > ($T)(0));
  const $I step = as_$I(x) + (away ? ($I)(1) : ($I)(-1));
  const $T from_zero = as_$T((as_$U(y) & ~($U)($ABS)) | ($U)(1));
  const $T r = (x == ($T)(0)) ? from_zero : as_$T(step);
  return (isnan(x) || isnan(y)) ? x + y : ((x == y) ? y : r);
}
)";
// NumPy's spacing (npy_spacing): the step from x to the next value away
// from zero, negative for negative x, exact as a difference of neighbours;
// the smallest subnormal for either zero; NaN for infinities and NaN.
const char k_spacing[] = R"(static inline $T $N($T x) {
  const $T away = as_$T(as_$I(x) + ($I)(1));
  const $T r = (x == ($T)(0)) ? as_$T(($U)(1)) : away - x;
  return (isinf(x) || isnan(x)) ? ($T)(NAN) : r;
}
)";
// NumPy's logaddexp and logaddexp2 (npy_logaddexp): x + ln 2 (x + 1) where
// x == y, which keeps equal infinities; else the larger plus log1p(exp(-|d|))
// (log2(e) log1p(exp2(-|d|))); NaN where d is. $LN2 and $LOG2E: NumPy's
// constants in the dtype.
const char k_logaddexp[] = R"(static inline $T $N($T x, $T y) {
  const $T d = x - y;
  const $T r = ((d > ($T)(0)) ? x : y) + log1p(exp(-fabs(d)));
  return (x == y) ? x + ($T)($LN2) : (isnan(d) ? d : r);
}
)";
const char k_logaddexp2[] = R"(static inline $T $N($T x, $T y) {
  const $T d = x - y;
  const $T r = ((d > ($T)(0)) ? x : y) + ($T)($LOG2E) * log1p(exp2(-fabs(d)));
  return (x == y) ? x + ($T)(1) : (isnan(d) ? d : r);
}
)";
// NumPy's heaviside: NaN for NaN, 0 below zero, h0 at either zero, 1 above.
const char k_heaviside[] = R"(static inline $T $N($T x, $T h) {
  return isnan(x) ? x : ((x < ($T)(0)) ? ($T)(0) : ((x == ($T)(0)) ? h : ($T)(1)));
}
)";
// Greatest common divisor and least common multiple, as NumPy's npy_gcd
// and npy_lcm: Euclid on the magnitudes as unsigned numbers of the same width
// (|INT_MIN| is 2^(B-1) there, which wraps back to INT_MIN, as in NumPy), and
// a / gcd * b wrapping for lcm (0 where both are 0; $F: the gcd). The
// unsigned helpers are instantiated for the unsigned dtype of the same width;
// k_magnitude_call makes a signed one of either ($F: that unsigned helper).
// Scalar only: the loop length differs per element.
const char k_gcd_unsigned[] = R"(static inline $T $N($T a, $T b) {
  while (a != ($T)(0)) {
    const $T c = a;
    a = ($T)(b % a);
    b = c;
  }
  return b;
}
)";
const char k_lcm_unsigned[] = R"(static inline $T $N($T a, $T b) {
  const $T g = $F(a, b);
  return (g == ($T)(0)) ? ($T)(0) : ($T)(($WIDE)(a / g) * ($WIDE)b);
}
)";
const char k_magnitude_call[] = R"(static inline $T $N($T x, $T y) {
  const $U a = (x < ($T)(0)) ? ($U)(($U)(0) - as_$U(x)) : as_$U(x);
  const $U b = (y < ($T)(0)) ? ($U)(($U)(0) - as_$U(y)) : as_$U(y);
  return as_$T($F(a, b));
}
)";
// Shifts past the width give 0 (or -1 for negative values shifted right), as in NumPy.
const char k_shl[] = R"(static inline $T $N($T x, $T y) {
  return (y < ($T)(0) || y >= ($T)($B)) ? ($T)(0) : as_$T(($U)(as_$U(x) << as_$U(y)));
}
)";
const char k_shr_signed[] = R"(static inline $T $N($T x, $T y) {
  return (y < ($T)(0) || y >= ($T)($B)) ? ((x < ($T)(0)) ? ($T)(-1) : ($T)(0)) : ($T)(x >> y);
}
)";
const char k_shr_unsigned[] = R"(static inline $T $N($T x, $T y) {
  return (y >= ($T)($B)) ? ($T)(0) : ($T)(x >> y);
}
)";
const char k_sign_float[] = R"(static inline $T $N($T x) {
  return (x > ($T)(0)) ? ($T)(1) : ((x < ($T)(0)) ? ($T)(-1) : ((x == ($T)(0)) ? ($T)(0) : x));
}
)";
const char k_sign_int[] = R"(static inline $T $N($T x) {
  return (x > ($T)(0)) ? ($T)(1) : ((x < ($T)(0)) ? ($T)(-1) : ($T)(0));
}
)";
const char k_minimum[] = R"(static inline $T $N($T x, $T y) {
  return isnan(x) ? x : (isnan(y) ? y : ((x <= y) ? x : y));
}
)";
const char k_maximum[] = R"(static inline $T $N($T x, $T y) {
  return isnan(x) ? x : (isnan(y) ? y : ((x >= y) ? x : y));
}
)";
const char k_fmin[] = R"(static inline $T $N($T x, $T y) {
  return isnan(y) ? x : (isnan(x) ? y : ((x <= y) ? x : y));
}
)";
const char k_fmax[] = R"(static inline $T $N($T x, $T y) {
  return isnan(y) ? x : (isnan(x) ? y : ((x >= y) ? x : y));
}
)";
// Integer power by squaring, wrapping like NumPy; negative exponents give 0
// except for bases 1 and -1. Scalar only (the loop length differs per element).
const char k_ipow[] = R"(static inline $T $N($T b, $T e) {
  if (e < ($T)(0)) return (b == ($T)(1)) ? ($T)(1) : ((b == ($T)(-1)) ? (((e & ($T)(1)) != ($T)(0)) ? ($T)(-1) : ($T)(1)) : ($T)(0));
  $WIDE r = 1, bb = ($WIDE)as_$U(b);
  $U ee = as_$U(e);
  while (ee != ($U)(0)) {
    if ((ee & ($U)(1)) != ($U)(0)) r = ($WIDE)(($U)(r * bb));
    bb = ($WIDE)(($U)(bb * bb));
    ee = ($U)(ee >> 1);
  }
  return as_$T(($U)r);
}
)";

std::string helper(HelperSet& h, const char* base, const char* tmpl, DType t, int width, const std::string& callee) {
  Types ty = types_of(t, width);
  const std::string name = std::string("fcl_") + base + "_" + ty.T;
  std::string text = fill(tmpl, ty, name, width);
  replace_all(text, "$F", callee);
  // Narrow types promote to int in C arithmetic; multiply them as uint so
  // that wrapping is defined.
  const std::string wide = size_of(t) < 4 ? "uint" : ty.U;
  for (std::size_t p = text.find("$WIDE"); p != std::string::npos; p = text.find("$WIDE", p)) text.replace(p, 5, wide);
  return h.use(name, text);
}

// float64 pow on 8 and 16 lanes as double4 halves. PoCL 3.1's double8 pow
// is wrong in lanes 4..7 whenever an operand is subnormal, even with all eight
// lanes equal (pow(5e-324, 1) gives 4.56e-305 there), while its double4 and
// scalar pow are right; splitting costs nothing on devices that get it right.
std::string split_pow(HelperSet& h, int width) {
  const std::string half = width == 8 ? "pow" : split_pow(h, width / 2);
  const std::string T = "double" + std::to_string(width);
  const std::string name = "fcl_pow_" + T;
  return h.use(name, "static inline " + T + " " + name + "(" + T + " x, " + T + " y) {\n  return (" + T + ")(" + half +
                         "(x.lo, y.lo), " + half + "(x.hi, y.hi));\n}\n");
}

// The bound is far below where PoCL's vector path goes wrong (between 3e6 and
// 1e7 in tests) and far above where sin, cos and tan of float carry any
// precision about the argument's fraction of a period, so the fallback runs
// only on data where the answer is noise anyway, and costs one compare per
// vector elsewhere.
//
// sin and cos below the bound, where the build defines FCL_TRIG_FP64 (CPU
// devices with float64, launch.cpp's build_options): one polynomial, in
// float64, rounded once to float, so a result is within 0.501 ulp where
// PoCL's float16 sin takes several times as long. The argument is reduced by
// pi, not pi/2, so that every lane evaluates the same polynomial (a vector
// has no cheaper way to choose per lane than to compute both):
//   sin x = (-1)^n sin(x - n pi),           n the integer nearest x/pi;
//   cos x = (-1)^(n+1) sin(x - (n+1/2) pi), n the integer nearest x/pi - 1/2;
// pi in two parts (25 and 53 bits: n times the first is exact for n below
// 2^28, and the bound keeps n below 2^15), so the reduced y in [-pi/2, pi/2]
// is good to about 2^-62 absolute; the float nearest a multiple of pi/2
// below the bound is 2^-27.8 from it, so y is never worse than 2^-34
// relative, a thousandth of float's ulp. sin y = y + y^3 P(y^2), P of
// degree 5 fitted for relative error (below 2^-43 on [-pi/2, pi/2];
// tools/fit_sin_poly.py reproduces the coefficients). FP_CONTRACT is on
// inside the helper only: where the device has fused multiply-add the
// polynomial uses it (a third faster on AVX-512), where it has none the
// products are rounded separately, an error far below the fit's. (The form
// before, musl's sin and cos polynomials on [-pi/4, pi/4] chosen per lane,
// computed both: sin over 2^22 floats took 2.2 ms on 2 cores, now 1.5.)
std::string fp64_trig(HelperSet& h, int width) {
  const std::string w = std::to_string(width), T = "float" + w, D = "double" + w, U = "uint" + w, L = "long" + w;
  const std::string name = "fcl_trig_fp64_" + T;
  // Plain arithmetic only (rint and floor of double vectors are calls on
  // PoCL): n by adding and taking away 1.5 * 2^52, its parity from t's low
  // bit, the sign by flipping the float's top bit.
  return h.use(name, "#ifdef FCL_TRIG_FP64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                     "static inline " + T + " " + name + "(" + T + " xf, int quarter) {\n"
                     "#pragma OPENCL FP_CONTRACT ON\n"
                     "  const " + D + " x = convert_" + D + "(xf);\n"
                     "  const double h = quarter ? 0.5 : 0.0;\n"
                     "  const " + D + " t = (x * 0x1.45f306dc9c883p-2 - h) + 0x1.8p52;\n"
                     "  const " + D + " n = (t - 0x1.8p52) + h;\n"
                     "  const " + D + " y = (x - n * 0x1.921fb5p+1) - n * 0x1.110b4611a6263p-25;\n"
                     "  const " + D + " z = y * y;\n"
                     "  const " + D + " p = -0x1.55555555470cfp-3 + z * (0x1.1111110a52acap-7 + z * (-0x1.a019fd57f62b4p-13 +\n"
                     "                   z * (0x1.71dcf8051be00p-19 + z * (-0x1.ae03eb1ee0000p-26 + z * 0x1.52db03e000000p-33))));\n"
                     "  const " + T + " r = convert_" + T + "(y + (y * z) * p);\n"
                     "  /* (-1)^n for sin, (-1)^(n+1) for cos: n's parity is t's low bit (NaN lanes stay NaN) */\n"
                     "  const " + U + " odd = convert_" + U + "(as_" + L + "(t) & 1L) ^ (" + U + ")(quarter);\n"
                     "  const " + T + " s = as_" + T + "(as_" + U + "(r) ^ (odd << 31));\n"
                     "  /* tiny arguments (-0 and subnormals included) are their own sine */\n"
                     "  return quarter == 0 ? select(s, xf, fabs(xf) < 0x1p-12f) : s;\n"
                     "}\n#endif\n");
}

std::string lanewise_large_trig(HelperSet& h, const char* fn, int width) {
  const std::string w = std::to_string(width), T = "float" + w;
  const std::string name = std::string("fcl_") + fn + "_lanes_" + T;
  const std::string fn_s = fn;
  std::string fast = std::string("  if (!any(fabs(x) > 1e5f)) return ") + fn + "(x);\n";
  if (fn_s == "sin" || fn_s == "cos")
    fast = "  if (!any(fabs(x) > 1e5f)) {\n#ifdef FCL_TRIG_FP64\n    return " + fp64_trig(h, width) + "(x, " +
           (fn_s == "sin" ? "0" : "1") + ");\n#else\n    return " + fn + "(x);\n#endif\n  }\n";
  return h.use(name, "static inline " + T + " " + name + "(" + T + " x) {\n" + fast +
                         "  float a[" + w + "];\n" +
                         "  vstore" + w + "(x, 0, a);\n" +
                         "  for (int i = 0; i < " + w + "; ++i) a[i] = " + fn + "(a[i]);\n" +
                         "  return vload" + w + "(0, a);\n}\n");
}

// Wrapping integer +, -, *: through the unsigned type (no undefined overflow).
std::string int_arith(const char* op, DType t, const std::string& x, const std::string& y, int width) {
  const Types ty = types_of(t, width);
  const bool sgn = kind_of(t) == Kind::Signed;
  const std::string ux = sgn ? "as_" + ty.U + "(" + x + ")" : "(" + x + ")";
  const std::string uy = sgn ? "as_" + ty.U + "(" + y + ")" : "(" + y + ")";
  std::string body;
  if (width == 1 && size_of(t) < 4) body = "(" + ty.U + ")((uint)" + ux + " " + op + " (uint)" + uy + ")";
  else body = "(" + ty.U + ")(" + ux + " " + op + " " + uy + ")";
  return sgn ? "as_" + ty.T + "(" + body + ")" : body;
}

// Float to integer casts, one result on every device (OpenCL, like C, leaves
// NaN and out-of-range conversions implementation-defined: PoCL gives
// INT_MIN, NVIDIA 0). The rule is NumPy's on x86-64 (cvttsd2si), README
// "Semantics": cvtt32(x) truncates toward zero to int32, giving INT32_MIN for
// NaN and values outside int32; cvtt64 likewise with int64. Then
//   int32 = cvtt32, int64 = cvtt64;
//   int8, int16, uint8, uint16 = cvtt32 wrapped to the width;
//   uint32 = cvtt64 wrapped to 32 bits;
//   uint64 = x >= 2^63 ? cvtt64(x - 2^63) ^ 2^63 : cvtt64(x).
// The converts only ever see in-range values (the others are replaced by
// -2^31 or -2^63, which convert exactly to INT_MIN), so no device's
// out-of-range behaviour shows through. Must match tests/support/value.cpp.
std::string float_to_int(HelperSet& h, DType out, DType in, int width) {
  const std::string T = cl_type(in, width), R = cl_type(out, width);
  const bool dbl = in == DType::Float64;
  auto cvtt = [&](int bits, const std::string& v) {
    const std::string lim = bits == 32 ? (dbl ? "0x1p31" : "0x1p31f") : (dbl ? "0x1p63" : "0x1p63f");
    const std::string I = cl_type(bits == 32 ? DType::Int32 : DType::Int64, width);
    return "convert_" + I + "_rtz((" + v + " >= (" + T + ")(-" + lim + ") && " + v + " < (" + T + ")(" + lim + ")) ? " +
           v + " : (" + T + ")(-" + lim + "))";
  };
  std::string body;
  switch (out) {
    case DType::Int32: body = cvtt(32, "x"); break;
    case DType::Int64: body = cvtt(64, "x"); break;
    case DType::Int8: case DType::Int16: case DType::UInt8: case DType::UInt16: {
      // Wrap through the unsigned type of the width (modular in C), then
      // reinterpret for the signed ones.
      const DType u = size_of(out) == 1 ? DType::UInt8 : DType::UInt16;
      const std::string mask = size_of(out) == 1 ? "0xffU" : "0xffffU";
      const std::string UI = cl_type(DType::UInt32, width);
      const std::string wrapped =
          "convert_" + cl_type(u, width) + "(as_" + UI + "(" + cvtt(32, "x") + ") & (" + UI + ")(" + mask + "))";
      body = kind_of(out) == Kind::Signed ? "as_" + R + "(" + wrapped + ")" : wrapped;
      break;
    }
    case DType::UInt32: {
      const std::string UL = cl_type(DType::UInt64, width);
      body = "convert_" + R + "(as_" + UL + "(" + cvtt(64, "x") + ") & (" + UL + ")(0xffffffffUL))";
      break;
    }
    case DType::UInt64: {
      // The top bit as a float 0/1 converted, so no mask changes width.
      const std::string lim = dbl ? "0x1p63" : "0x1p63f";
      const std::string big = "(x >= (" + T + ")(" + lim + "))";
      body = "as_" + R + "(" + cvtt(64, "(" + big + " ? x - (" + T + ")(" + lim + ") : x)") + ") ^ (convert_" + R +
             "_rtz(" + big + " ? (" + T + ")(1) : (" + T + ")(0)) << (" + R + ")(63))";
      break;
    }
    default: throw Error("internal: float_to_int to " + std::string(dtype_name(out)));
  }
  const std::string name = "fcl_cast_" + R + "_" + T;
  return h.use(name, "static inline " + R + " " + name + "(" + T + " x) {\n  return " + body + ";\n}\n");
}

}  // namespace fusecl::codegen
