// Elementwise ops of the host reference evaluator; reference.hpp states the
// rules, this file only implements them. Reductions are in reference_reduce.cpp.
#include "support/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace fusecl::test {

namespace {

// The precision transcendental functions are evaluated in before rounding to
// `out` (64-bit significand on x86-64 Linux; see reference.hpp).
using Wide = long double;

[[noreturn]] void unsupported(Op op, DType t) {
  throw std::invalid_argument("reference: " + std::string(op_name(op)) + " is not defined for " +
                              std::string(dtype_name(t)));
}

[[noreturn]] void wrong_arity(const char* fn, Op op) {
  throw std::invalid_argument(std::string(fn) + ": " + std::string(op_name(op)) + " does not take that many operands");
}

// The ops whose dtype rule (op.hpp) looks at the operands and gives a bool.
bool is_predicate(Op op) {
  const TypeRule rule = op_info(op).rule;
  return rule == TypeRule::Predicate || rule == TypeRule::Compare;
}

// ---- predicates ----------------------------------------------------------------------

bool unary_predicate(Op op, Value x) {
  const bool fl = is_float(x.dtype());
  switch (op) {
    case Op::LogicalNot: return !x.truthy();
    case Op::IsNan: return fl && std::isnan(x.as<double>());
    case Op::IsInf: return fl && std::isinf(x.as<double>());
    case Op::IsFinite: return !fl || std::isfinite(x.as<double>());
    case Op::Signbit:  // NumPy casts integers to float first: the sign
      if (fl) return std::signbit(x.as<double>());
      return kind_of(x.dtype()) == Kind::Signed && x.as<std::int64_t>() < 0;
    default: unsupported(op, x.dtype());
  }
}

// IEEE comparisons: every one involving NaN is false except Ne.
template <class T>
bool compare(Op op, T x, T y) {
  switch (op) {
    case Op::Eq: return x == y;
    case Op::Ne: return x != y;
    case Op::Lt: return x < y;
    case Op::Le: return x <= y;
    case Op::Gt: return x > y;
    case Op::Ge: return x >= y;
    default: unsupported(op, dtype_of_v<T>);
  }
}

bool binary_predicate(Op op, Value a, Value b) {
  if (op == Op::LogicalAnd) return a.truthy() && b.truthy();
  if (op == Op::LogicalOr) return a.truthy() || b.truthy();
  if (op == Op::LogicalXor) return a.truthy() != b.truthy();
  const DType common = promote(a.dtype(), b.dtype());
  a = cast(a, common);
  b = cast(b, common);
  switch (kind_of(common)) {
    case Kind::Float: return compare(op, a.as<double>(), b.as<double>());  // float32 is exact in double
    case Kind::Unsigned: return compare(op, a.as<std::uint64_t>(), b.as<std::uint64_t>());
    default: return compare(op, a.as<std::int64_t>(), b.as<std::int64_t>());
  }
}

// ---- bool ----------------------------------------------------------------------------

Value bool_unary(Op op, Value x) {
  switch (op) {
    case Op::BitNot: return Value(!x.truthy());
    case Op::Abs: case Op::Sign:
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc:
      return x;
    default: unsupported(op, DType::Bool);
  }
}

Value bool_binary(Op op, Value a, Value b) {
  const bool p = a.truthy(), q = b.truthy();
  switch (op) {
    case Op::Add: case Op::BitOr: case Op::Fmax: case Op::Maximum: return Value(p || q);
    case Op::Mul: case Op::BitAnd: case Op::Fmin: case Op::Minimum: return Value(p && q);
    case Op::BitXor: return Value(p != q);
    default: unsupported(op, DType::Bool);
  }
}

// ---- integers ------------------------------------------------------------------------
// Operands are already in `t`. Arithmetic runs on the 64-bit two's-complement
// bits (int_bits() sign-extends signed values) and Value::of_bits() keeps the
// low bits, which is exactly wrapping arithmetic in `t`.

Value int_unary(Op op, Value x, DType t) {
  const std::uint64_t u = x.int_bits();
  const bool negative = kind_of(t) == Kind::Signed && x.as<std::int64_t>() < 0;
  switch (op) {
    case Op::Neg: return Value::of_bits(t, 0 - u);
    case Op::BitNot: return Value::of_bits(t, ~u);
    case Op::Abs: return negative ? Value::of_bits(t, 0 - u) : x;  // abs(INT_MIN) wraps to INT_MIN
    case Op::Sign: return Value::of_bits(t, negative ? ~std::uint64_t{0} : u != 0 ? 1 : 0);
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc:
      return x;
    default: unsupported(op, t);
  }
}

// Exact a**b, wrapped to t, by repeated squaring.
Value int_pow(Value a, Value b, DType t) {
  if (kind_of(t) == Kind::Signed && b.as<std::int64_t>() < 0) {
    // A negative power is a fraction except for bases 1 and -1; the fraction
    // truncates to 0.
    const std::int64_t base = a.as<std::int64_t>();
    if (base == 1) return Value::of_bits(t, 1);
    if (base == -1) return Value::of_bits(t, (b.int_bits() & 1) ? ~std::uint64_t{0} : 1);
    return Value::of_bits(t, 0);
  }
  std::uint64_t result = 1, base = a.int_bits();
  for (std::uint64_t e = b.int_bits(); e != 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return Value::of_bits(t, result);
}

Value int_binary(Op op, Value a, Value b, DType t) {
  const bool sgn = kind_of(t) == Kind::Signed;
  const int width = size_of(t) * 8;
  const std::uint64_t ua = a.int_bits(), ub = b.int_bits();
  const auto sa = static_cast<std::int64_t>(ua), sb = static_cast<std::int64_t>(ub);  // used when sgn
  const auto wrap = [t](std::uint64_t bits) { return Value::of_bits(t, bits); };
  // Shift counts outside [0, width) do not shift in C; NumPy defines them.
  const bool count_out_of_range = sgn ? (sb < 0 || sb >= width) : ub >= static_cast<std::uint64_t>(width);
  switch (op) {
    case Op::Add: return wrap(ua + ub);
    case Op::Sub: return wrap(ua - ub);
    case Op::Mul: return wrap(ua * ub);
    case Op::Div:
    case Op::FloorDiv: {
      if (ub == 0) return wrap(0);
      if (!sgn) return wrap(ua / ub);
      if (sb == -1) return wrap(0 - ua);  // INT_MIN / -1 wraps to INT_MIN
      std::int64_t q = sa / sb;           // truncates toward zero ...
      if (sa % sb != 0 && (sa < 0) != (sb < 0)) --q;  // ... floor instead
      return wrap(static_cast<std::uint64_t>(q));
    }
    case Op::Fmod:  // C's remainder (the sign of a); 0 for 0 and -1 divisors
      if (ub == 0 || (sgn && sb == -1)) return wrap(0);
      return sgn ? wrap(static_cast<std::uint64_t>(sa % sb)) : wrap(ua % ub);
    case Op::Gcd: case Op::Lcm: {
      // NumPy: Euclid on the magnitudes (|INT_MIN| = 2^(width-1), which
      // wraps back), lcm = a / gcd * b wrapping, 0 for gcd 0.
      const std::uint64_t ma = sgn && sa < 0 ? 0 - ua : ua, mb = sgn && sb < 0 ? 0 - ub : ub;
      std::uint64_t x = ma, y = mb;
      while (x != 0) {
        const std::uint64_t c = x;
        x = y % x;
        y = c;
      }
      if (op == Op::Gcd) return wrap(y);
      return wrap(y == 0 ? 0 : ma / y * mb);
    }
    case Op::Mod: {
      if (ub == 0) return wrap(0);
      if (!sgn) return wrap(ua % ub);
      if (sb == -1) return wrap(0);  // also INT_MIN % -1, which C leaves undefined
      std::int64_t r = sa % sb;      // sign of the dividend ...
      if (r != 0 && (r < 0) != (sb < 0)) r += sb;  // ... moved to the divisor's
      return wrap(static_cast<std::uint64_t>(r));
    }
    case Op::BitAnd: return wrap(ua & ub);
    case Op::BitOr: return wrap(ua | ub);
    case Op::BitXor: return wrap(ua ^ ub);
    case Op::Shl: return count_out_of_range ? wrap(0) : wrap(ua << ub);
    case Op::Shr:
      if (count_out_of_range) return wrap(sgn && sa < 0 ? ~std::uint64_t{0} : 0);
      return sgn ? wrap(static_cast<std::uint64_t>(sa >> sb)) : wrap(ua >> ub);  // arithmetic for signed
    case Op::Pow: return int_pow(a, b, t);
    case Op::Fmin: case Op::Minimum: return (sgn ? sa <= sb : ua <= ub) ? a : b;
    case Op::Fmax: case Op::Maximum: return (sgn ? sa >= sb : ua >= ub) ? a : b;
    default: unsupported(op, t);
  }
}

// ---- floats --------------------------------------------------------------------------

template <class T>
Value rounded(Wide w) {
  return Value(static_cast<T>(w));
}

template <class T>
T float_sign(T x) {
  if (std::isnan(x)) return x;
  return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);  // both zeros give +0
}

template <class T>
Value float_unary(Op op, T x) {
  const Wide w = x;
  switch (op) {
    case Op::Neg: return Value(static_cast<T>(-x));
    case Op::Abs: return Value(std::fabs(x));
    case Op::Sqrt: return Value(std::sqrt(x));  // correctly rounded in T
    case Op::Rsqrt: return rounded<T>(1.0L / std::sqrt(w));
    case Op::Cbrt: return rounded<T>(std::cbrt(w));
    case Op::Exp: return rounded<T>(std::exp(w));
    case Op::Exp2: return rounded<T>(std::exp2(w));
    case Op::Expm1: return rounded<T>(std::expm1(w));
    case Op::Log: return rounded<T>(std::log(w));
    case Op::Log2: return rounded<T>(std::log2(w));
    case Op::Log10: return rounded<T>(std::log10(w));
    case Op::Log1p: return rounded<T>(std::log1p(w));
    case Op::Sin: return rounded<T>(std::sin(w));
    case Op::Cos: return rounded<T>(std::cos(w));
    case Op::Tan: return rounded<T>(std::tan(w));
    case Op::Asin: return rounded<T>(std::asin(w));
    case Op::Acos: return rounded<T>(std::acos(w));
    case Op::Atan: return rounded<T>(std::atan(w));
    case Op::Sinh: return rounded<T>(std::sinh(w));
    case Op::Cosh: return rounded<T>(std::cosh(w));
    case Op::Tanh: return rounded<T>(std::tanh(w));
    case Op::Asinh: return rounded<T>(std::asinh(w));
    case Op::Acosh: return rounded<T>(std::acosh(w));
    case Op::Atanh: return rounded<T>(std::atanh(w));
    case Op::Floor: return Value(std::floor(x));
    case Op::Ceil: return Value(std::ceil(x));
    case Op::Trunc: return Value(std::trunc(x));
    case Op::Round: return Value(std::nearbyint(x));  // half to even in the default rounding mode
    case Op::Sign: return Value(float_sign(x));
    case Op::Fabs: return Value(std::fabs(x));
    case Op::Rint: return Value(std::nearbyint(x));
    // NumPy's one product with its constant (see spelling.cpp): float32
    // rad2deg's is 180.0f / pi_f, rounded twice.
    case Op::Rad2Deg:
      if constexpr (std::is_same_v<T, float>) return Value(x * 0x1.ca5dcp+5f);
      else return Value(x * 57.295779513082320877);
    case Op::Spacing:  // NumPy's: to the next value away from zero
      if (std::isinf(x) || std::isnan(x)) return Value(std::numeric_limits<T>::quiet_NaN());
      if (x == 0) return Value(std::numeric_limits<T>::denorm_min());
      return Value(static_cast<T>(std::nextafter(x, std::copysign(std::numeric_limits<T>::infinity(), x)) - x));
    case Op::Deg2Rad:
      if constexpr (std::is_same_v<T, float>) return Value(x * 0.017453292519943295769f);
      else return Value(x * 0.017453292519943295769);
    default: unsupported(op, dtype_of_v<T>);
  }
}

// np.floor_divide and np.remainder for b != 0, computed in T as NumPy does.
template <class T>
struct FloorDivMod {
  T quotient, remainder;
};

template <class T>
FloorDivMod<T> float_divmod(T a, T b) {
  const T mod = std::fmod(a, b);  // exact, with the sign of a
  T div = (a - mod) / b;          // (nearly) an integer
  T rem = mod;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {  // give the remainder the divisor's sign
      rem += b;
      div -= 1;
    }
  } else {
    rem = std::copysign(T(0), b);
  }
  T quotient;
  if (div != 0) {
    // div can land just below an integer after the rounding above; snap it.
    quotient = std::floor(div);
    if (div - quotient > T(0.5)) quotient += 1;
  } else {
    quotient = std::copysign(T(0), a / b);
  }
  return {quotient, rem};
}

template <class T>
Value float_binary(Op op, T a, T b) {
  switch (op) {
    case Op::Add: return Value(static_cast<T>(a + b));
    case Op::Sub: return Value(static_cast<T>(a - b));
    case Op::Mul: return Value(static_cast<T>(a * b));
    case Op::Div: return Value(static_cast<T>(a / b));
    case Op::FloorDiv: return Value(b == 0 ? static_cast<T>(a / b) : float_divmod(a, b).quotient);
    case Op::Mod: return Value(b == 0 ? std::fmod(a, b) : float_divmod(a, b).remainder);  // fmod(a, 0) is NaN
    case Op::Atan2: return rounded<T>(std::atan2(Wide(a), Wide(b)));
    case Op::Hypot: return rounded<T>(std::hypot(Wide(a), Wide(b)));
    case Op::Pow:
      // Zeros, infinities and NaN have exact results (C99 Annex F), which
      // pow in T gets right; x87 powl does not always (powl(-inf, -2^63) is
      // inf in glibc, not +0).
      if (a == 0 || !std::isfinite(a) || !std::isfinite(b)) return Value(static_cast<T>(std::pow(a, b)));
      return rounded<T>(std::pow(Wide(a), Wide(b)));
    case Op::LogAddExp: case Op::LogAddExp2: {
      // NumPy's x + ln 2 (x + 1) for x == y, in T; else exactly, rounded once.
      const bool two = op == Op::LogAddExp2;
      if (a == b) return Value(static_cast<T>(a + (two ? T(1) : T(0.693147180559945309417232121458176568L))));
      const Wide d = Wide(a) - Wide(b);
      if (std::isnan(d)) return Value(static_cast<T>(d));
      const Wide m = d > 0 ? Wide(a) : Wide(b);
      return rounded<T>(two ? m + std::log1p(std::exp2(-std::fabs(d))) / std::log(Wide(2))
                            : m + std::log1p(std::exp(-std::fabs(d))));
    }
    case Op::Copysign: return Value(std::copysign(a, b));
    case Op::Fmod: return Value(std::fmod(a, b));
    case Op::Nextafter: return Value(std::nextafter(a, b));
    case Op::Heaviside:  // NumPy: NaN for NaN, 0 below zero, b at either zero, 1 above
      return Value(std::isnan(a) ? a : a < 0 ? T(0) : a == 0 ? b : T(1));
    case Op::Fmin: return Value(std::fmin(a, b));
    case Op::Fmax: return Value(std::fmax(a, b));
    case Op::Minimum: return Value(std::isnan(a) ? a : std::isnan(b) ? b : a <= b ? a : b);
    case Op::Maximum: return Value(std::isnan(a) ? a : std::isnan(b) ? b : a >= b ? a : b);
    default: unsupported(op, dtype_of_v<T>);
  }
}

}  // namespace

Value ref_unary(Op op, Value x, DType out) {
  if (op_class(op) != OpClass::Unary) wrong_arity("ref_unary", op);
  if (op == Op::Cast) return cast(x, out);
  if (is_predicate(op)) return cast(Value(unary_predicate(op, x)), out);
  const Value v = cast(x, out);
  switch (kind_of(out)) {
    case Kind::Bool: return bool_unary(op, v);
    case Kind::Signed: case Kind::Unsigned: return int_unary(op, v, out);
    case Kind::Float: break;
  }
  return out == DType::Float32 ? float_unary(op, v.as<float>()) : float_unary(op, v.as<double>());
}

Value ref_binary(Op op, Value a, Value b, DType out) {
  if (op_class(op) != OpClass::Binary) wrong_arity("ref_binary", op);
  if (is_predicate(op)) return cast(Value(binary_predicate(op, a, b)), out);
  const Value x = cast(a, out), y = cast(b, out);
  switch (kind_of(out)) {
    case Kind::Bool: return bool_binary(op, x, y);
    case Kind::Signed: case Kind::Unsigned: return int_binary(op, x, y, out);
    case Kind::Float: break;
  }
  return out == DType::Float32 ? float_binary(op, x.as<float>(), y.as<float>())
                               : float_binary(op, x.as<double>(), y.as<double>());
}

Value ref_ternary(Op op, Value a, Value b, Value c, DType out) {
  if (op == Op::Where) return cast(a.truthy() ? b : c, out);  // where(condition, x, y)
  if (op != Op::Fma) wrong_arity("ref_ternary", op);
  const Value x = cast(a, out), y = cast(b, out), z = cast(c, out);
  switch (kind_of(out)) {
    case Kind::Bool: return Value((x.truthy() && y.truthy()) || z.truthy());
    case Kind::Signed: case Kind::Unsigned: return Value::of_bits(out, x.int_bits() * y.int_bits() + z.int_bits());
    case Kind::Float: break;
  }
  // One rounding, in out's own type (std::fma on floats is fmaf).
  return out == DType::Float32 ? Value(std::fma(x.as<float>(), y.as<float>(), z.as<float>()))
                               : Value(std::fma(x.as<double>(), y.as<double>(), z.as<double>()));
}

}  // namespace fusecl::test
