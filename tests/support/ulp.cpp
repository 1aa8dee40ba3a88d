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

bool close_enough(DType t, Value got, Value want, double ulps, bool denormals_may_flush, double floor) {
  if (got.dtype() != t || want.dtype() != t) return false;
  if (!is_float(t)) return got == want;
  if (floor > 0 && std::fabs(want.as<double>()) < floor && std::isfinite(got.as<double>())) {
    // ulps of the floor: floor's ulp is floor * epsilon for a power of two.
    const double eps = t == DType::Float32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    return std::fabs(got.as<double>() - want.as<double>()) <= ulps * floor * eps;
  }
  const double d = t == DType::Float32 ? ulp_distance_f32(got.as<float>(), want.as<float>())
                                       : ulp_distance_f64(got.as<double>(), want.as<double>());
  if (d <= ulps) return true;
  return denormals_may_flush && is_subnormal(want) && got.as<double>() == 0.0;
}

double error_floor(Op op) { return op_info(op).accuracy.kind == Accuracy::Kind::UlpAtOne ? 1.0 : 0.0; }

double opencl_ulp_bound(Op op, DType t, bool correctly_rounded_divide_sqrt) {
  // The bound is the op row's (op.hpp); test_ulp.cpp checks it against
  // tables 7.1 and 7.2 for a sample of ops.
  const Accuracy a = op_info(op).accuracy;
  switch (a.kind) {
    case Accuracy::Kind::None:
      throw std::invalid_argument("opencl_ulp_bound: " + std::string(op_name(op)) + " has no per-element error bound");
    case Accuracy::Kind::Exact: return 0.0;
    case Accuracy::Kind::Ulp: case Accuracy::Kind::UlpAtOne: return is_float(t) ? a.ulp : 0.0;
    case Accuracy::Kind::Float32Ulp: return t == DType::Float32 && !correctly_rounded_divide_sqrt ? a.ulp : 0.0;
  }
  return a.ulp;
}

double tolerance_ulps(Op op, DType t, bool correctly_rounded_divide_sqrt) {
  const double bound = opencl_ulp_bound(op, t, correctly_rounded_divide_sqrt);
  return bound == 0.0 ? 0.0 : bound + 0.5;
}

}  // namespace fusecl::test
