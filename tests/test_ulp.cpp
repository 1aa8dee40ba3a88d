// The ulp helpers and the OpenCL accuracy table the op tests compare with.
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

using namespace fusecl;
using namespace fusecl::test;

TEST_CASE("ulp_distance counts representable values", "[ulp]") {
  using F = std::numeric_limits<float>;
  using D = std::numeric_limits<double>;
  CHECK(ulp_distance_f32(1.0f, 1.0f) == 0);
  CHECK(ulp_distance_f32(1.0f, std::nextafter(1.0f, 2.0f)) == 1);
  CHECK(ulp_distance_f32(std::nextafter(1.0f, 0.0f), 1.0f) == 1);  // across a binade
  CHECK(ulp_distance_f32(-1.0f, std::nextafter(-1.0f, -2.0f)) == 1);
  CHECK(ulp_distance_f32(0.0f, -0.0f) == 0);
  CHECK(ulp_distance_f32(F::denorm_min(), -F::denorm_min()) == 2);
  CHECK(ulp_distance_f32(F::quiet_NaN(), -F::quiet_NaN()) == 0);
  CHECK(ulp_distance_f32(F::quiet_NaN(), 1.0f) == D::infinity());
  CHECK(ulp_distance_f32(F::infinity(), F::infinity()) == 0);
  CHECK(ulp_distance_f32(F::infinity(), F::max()) == 1);
  CHECK(ulp_distance_f32(-F::infinity(), F::infinity()) == 2.0 * 0x7F800000);

  double x = 1.0;
  for (int i = 0; i < 4; ++i) x = std::nextafter(x, 2.0);
  CHECK(ulp_distance_f64(1.0, x) == 4);
  CHECK(ulp_distance_f64(x, 1.0) == 4);
  CHECK(ulp_distance_f64(-0.0, 0.0) == 0);
  CHECK(ulp_distance_f64(D::quiet_NaN(), D::infinity()) == D::infinity());
  // The largest distance does not overflow: 2 * 0x7FEFFFFFFFFFFFFF.
  CHECK(ulp_distance_f64(-D::max(), D::max()) == 2.0 * 0x7FEFFFFFFFFFFFFFull);
  // Neighbours far from zero still come out exact.
  CHECK(ulp_distance_f64(D::max(), std::nextafter(D::max(), 0.0)) == 1);
}

TEST_CASE("close_enough compares exactly for integers and by ulps for floats", "[ulp]") {
  CHECK(close_enough(DType::Int32, Value(std::int32_t(7)), Value(std::int32_t(7)), 0));
  CHECK_FALSE(close_enough(DType::Int32, Value(std::int32_t(7)), Value(std::int32_t(8)), 100));
  CHECK_FALSE(close_enough(DType::Int32, Value(std::int64_t(7)), Value(std::int32_t(7)), 0));  // wrong dtype
  CHECK(close_enough(DType::Bool, Value(true), Value(true), 0));

  const float one = 1.0f, next = std::nextafter(1.0f, 2.0f);
  CHECK_FALSE(close_enough(DType::Float32, Value(next), Value(one), 0));
  CHECK(close_enough(DType::Float32, Value(next), Value(one), 0.5 + 1));
  CHECK(close_enough(DType::Float32, Value(-0.0f), Value(0.0f), 0));
  CHECK(close_enough(DType::Float64, Value(std::nan("")), Value(-std::nan("")), 0));
  CHECK_FALSE(close_enough(DType::Float64, Value(std::nan("")), Value(1.0), 1e9));

  // A device without subnormals may flush a subnormal result to zero.
  const float sub = std::numeric_limits<float>::denorm_min() * 100;
  CHECK_FALSE(close_enough(DType::Float32, Value(0.0f), Value(sub), 3.5));
  CHECK(close_enough(DType::Float32, Value(-0.0f), Value(sub), 3.5, true));
  CHECK_FALSE(close_enough(DType::Float32, Value(1.0f), Value(sub), 3.5, true));
}

TEST_CASE("the OpenCL 1.2 accuracy table", "[ulp]") {
  // Table 7.1 (float) and 7.2 (double) spot checks.
  CHECK(opencl_ulp_bound(Op::Exp, DType::Float32) == 3);
  CHECK(opencl_ulp_bound(Op::Sin, DType::Float64) == 4);
  CHECK(opencl_ulp_bound(Op::Tan, DType::Float32) == 5);
  CHECK(opencl_ulp_bound(Op::Atan2, DType::Float32) == 6);
  CHECK(opencl_ulp_bound(Op::Pow, DType::Float64) == 16);
  CHECK(opencl_ulp_bound(Op::Cbrt, DType::Float32) == 2);
  CHECK(opencl_ulp_bound(Op::Log1p, DType::Float32) == 2);
  CHECK(opencl_ulp_bound(Op::Hypot, DType::Float32) == 4);
  CHECK(opencl_ulp_bound(Op::Rsqrt, DType::Float32) == 2);
  CHECK(opencl_ulp_bound(Op::Add, DType::Float32) == 0);
  CHECK(opencl_ulp_bound(Op::Fma, DType::Float64) == 0);
  CHECK(opencl_ulp_bound(Op::Floor, DType::Float32) == 0);

  // Divide and sqrt: loose only in float, and only without the build option.
  CHECK(opencl_ulp_bound(Op::Div, DType::Float32) == 2.5);
  CHECK(opencl_ulp_bound(Op::Sqrt, DType::Float32) == 3);
  CHECK(opencl_ulp_bound(Op::Div, DType::Float32, true) == 0);
  CHECK(opencl_ulp_bound(Op::Sqrt, DType::Float32, true) == 0);
  CHECK(opencl_ulp_bound(Op::Div, DType::Float64) == 0);
  CHECK(opencl_ulp_bound(Op::Sqrt, DType::Float64) == 0);

  // The tolerance adds the reference's half ulp to inexact ops only.
  CHECK(tolerance_ulps(Op::Exp, DType::Float32) == 3.5);
  CHECK(tolerance_ulps(Op::Div, DType::Float32) == 3.0);
  CHECK(tolerance_ulps(Op::Div, DType::Float32, true) == 0);
  CHECK(tolerance_ulps(Op::Mul, DType::Float64) == 0);
  CHECK(tolerance_ulps(Op::Exp, DType::Int32) == 0);

  CHECK_THROWS_AS(opencl_ulp_bound(Op::Sum, DType::Float32), std::invalid_argument);
  CHECK_THROWS_AS(tolerance_ulps(Op::Buffer, DType::Float32), std::invalid_argument);
}

TEST_CASE("every elementwise op has a bound for both float dtypes", "[ulp]") {
  for (DType t : {DType::Float32, DType::Float64}) {
    for (int i = 0; i < op_count; ++i) {
      const Op op = Op(i);
      if (!is_elementwise(op)) continue;
      INFO(op_name(op));
      CHECK(opencl_ulp_bound(op, t) >= 0);
    }
  }
}

TEST_CASE("close_enough with a floor measures ulps of max(|want|, floor)", "[ulp]") {
  const float eps = std::numeric_limits<float>::epsilon();
  // Below 1 the allowance is absolute: 4 ulps of 1, however small want is.
  CHECK(close_enough(DType::Float32, Value(1e-6f + 3 * eps), Value(1e-6f), 4, false, 1.0));
  CHECK_FALSE(close_enough(DType::Float32, Value(1e-6f + 5 * eps), Value(1e-6f), 4, false, 1.0));
  CHECK_FALSE(close_enough(DType::Float32, Value(1e-6f + 3 * eps), Value(1e-6f), 4));  // no floor: far apart
  // At and above 1 it is the plain ulp distance.
  CHECK(close_enough(DType::Float32, Value(std::nextafter(8.0f, 9.0f)), Value(8.0f), 1, false, 1.0));
  CHECK_FALSE(close_enough(DType::Float32, Value(8.0f + 16 * eps), Value(8.0f), 1, false, 1.0));
  CHECK_FALSE(close_enough(DType::Float32, Value(std::numeric_limits<float>::infinity()), Value(0.5f), 4, false, 1.0));
  CHECK(error_floor(Op::LogAddExp) == 1.0);
  CHECK(error_floor(Op::LogAddExp2) == 1.0);
  CHECK(error_floor(Op::Exp) == 0.0);
}
