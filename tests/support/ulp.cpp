#include "support/ulp.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace fusecl::test {

namespace {

// Maps a float's bit pattern onto the integers so that consecutive floats are
// consecutive integers: positives keep their bits, negatives are mirrored
// below zero, and both zeros land on 0.
template <class Int, class F>
Int ordered(F x) {
  const Int bits = std::bit_cast<Int>(x);
  return bits < 0 ? std::numeric_limits<Int>::min() - bits : bits;
}

template <class Int, class F>
double distance(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0.0 : std::numeric_limits<double>::infinity();
  const Int x = ordered<Int>(a), y = ordered<Int>(b);
  // The true difference is below 2^64 (each lies in (-2^63, 2^63)), so the
  // unsigned subtraction is exact; only then convert.
  using U = std::make_unsigned_t<Int>;
  const U d = x >= y ? static_cast<U>(x) - static_cast<U>(y) : static_cast<U>(y) - static_cast<U>(x);
  return static_cast<double>(d);
}

// Subnormal in v's own dtype (a float32 subnormal is a normal double).
bool is_subnormal(const Value& v) {
  if (v.dtype() == DType::Float32) return std::fpclassify(v.as<float>()) == FP_SUBNORMAL;
  return std::fpclassify(v.as<double>()) == FP_SUBNORMAL;
}

}  // namespace

double ulp_distance_f32(float a, float b) { return distance<std::int32_t>(a, b); }
double ulp_distance_f64(double a, double b) { return distance<std::int64_t>(a, b); }

bool close_enough(DType t, Value got, Value want, double ulps, bool denormals_may_flush) {
  if (got.dtype() != t || want.dtype() != t) return false;
  if (!is_float(t)) return got == want;
  const double d = t == DType::Float32 ? ulp_distance_f32(got.as<float>(), want.as<float>())
                                       : ulp_distance_f64(got.as<double>(), want.as<double>());
  if (d <= ulps) return true;
  return denormals_may_flush && is_subnormal(want) && got.as<double>() == 0.0;
}

double opencl_ulp_bound(Op op, DType t, bool correctly_rounded_divide_sqrt) {
  const OpClass c = op_class(op);
  if (c == OpClass::Leaf || c == OpClass::Structure || op == Op::Sum || op == Op::Prod || op == Op::Mean) {
    throw std::invalid_argument("opencl_ulp_bound: " + std::string(op_name(op)) +
                                " has no per-element error bound");
  }
  if (!is_float(t)) return 0.0;
  // Only float32 divide and sqrt may be inexact; float64 ones are correctly
  // rounded in table 7.2.
  const bool loose_div_sqrt = t == DType::Float32 && !correctly_rounded_divide_sqrt;
  // OpenCL 1.2 specification, section 7.4 "Relative Error as ULPs", table 7.1
  // (single precision) and table 7.2 (double precision), full profile. The
  // numbers are the same in both tables for every function listed here.
  switch (op) {
    // x / y is 2.5 ulp in float (table 7.1). FloorDiv divides once and then
    // snaps the quotient to an integer, so it can be off only when the
    // quotient is so large that 2.5 ulp exceeds half an integer step, and
    // then by no more than the division was.
    case Op::Div: case Op::FloorDiv: return loose_div_sqrt ? 2.5 : 0.0;
    case Op::Sqrt: return loose_div_sqrt ? 3.0 : 0.0;
    case Op::Rsqrt: return 2.0;
    case Op::Cbrt: return 2.0;
    case Op::Exp: case Op::Exp2: case Op::Expm1: return 3.0;
    case Op::Log: case Op::Log2: case Op::Log10: return 3.0;
    case Op::Log1p: return 2.0;
    case Op::Sin: case Op::Cos: return 4.0;
    case Op::Tan: return 5.0;
    case Op::Asin: case Op::Acos: return 4.0;
    case Op::Atan: return 5.0;
    case Op::Atan2: return 6.0;
    case Op::Sinh: case Op::Cosh: return 4.0;
    case Op::Tanh: return 5.0;
    case Op::Asinh: case Op::Acosh: return 4.0;
    case Op::Atanh: return 5.0;
    case Op::Hypot: return 4.0;
    case Op::Pow: return 16.0;
    // Correctly rounded or exact: +, -, *, fma, floor/ceil/round/trunc, fabs,
    // fmin/fmax, fmod (Mod), comparisons, conversions, select (Where), and
    // the reductions Min/Max/ArgMin/ArgMax/All/Any.
    default: return 0.0;
  }
}

double tolerance_ulps(Op op, DType t, bool correctly_rounded_divide_sqrt) {
  const double bound = opencl_ulp_bound(op, t, correctly_rounded_divide_sqrt);
  return bound == 0.0 ? 0.0 : bound + 0.5;
}

}  // namespace fusecl::test
