// NumPy 2 (NEP 50) promotion, checked at compile time through the typed API
// and at run time through the same constexpr rules.
#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <type_traits>

using namespace fusecl;

namespace {
template <class A, class B>
using add_t = typename decltype(std::declval<Array<A>>() + std::declval<Array<B>>())::value_type;
template <class A, class S>
using add_scalar_t = typename decltype(std::declval<Array<A>>() + std::declval<S>())::value_type;
}  // namespace

// Array with array: by kind and size.
static_assert(std::is_same_v<add_t<float, float>, float>);
static_assert(std::is_same_v<add_t<float, double>, double>);
static_assert(std::is_same_v<add_t<int8_t, uint8_t>, int16_t>);
static_assert(std::is_same_v<add_t<int32_t, uint32_t>, int64_t>);
static_assert(std::is_same_v<add_t<int64_t, uint64_t>, double>);
static_assert(std::is_same_v<add_t<int16_t, float>, float>);
static_assert(std::is_same_v<add_t<int32_t, float>, double>);
static_assert(std::is_same_v<add_t<uint16_t, float>, float>);
static_assert(std::is_same_v<add_t<bool, int8_t>, int8_t>);
static_assert(std::is_same_v<add_t<bool, bool>, bool>);
static_assert(std::is_same_v<add_t<uint8_t, uint32_t>, uint32_t>);
// C++ scalars are weak, like Python scalars.
static_assert(std::is_same_v<add_scalar_t<float, double>, float>);
static_assert(std::is_same_v<add_scalar_t<int32_t, double>, double>);
static_assert(std::is_same_v<add_scalar_t<uint8_t, int>, uint8_t>);
static_assert(std::is_same_v<add_scalar_t<int16_t, long long>, int16_t>);
static_assert(std::is_same_v<add_scalar_t<bool, int>, int64_t>);
static_assert(std::is_same_v<add_scalar_t<bool, float>, double>);
static_assert(std::is_same_v<add_scalar_t<double, float>, double>);
// Results of other kinds of operation.
static_assert(std::is_same_v<decltype(std::declval<Array<int32_t>>() < 2.5)::value_type, bool>);
static_assert(std::is_same_v<decltype(sqrt(std::declval<Array<int32_t>>()))::value_type, double>);
static_assert(std::is_same_v<decltype(sqrt(std::declval<Array<int16_t>>()))::value_type, float>);
static_assert(std::is_same_v<decltype(sqrt(std::declval<Array<float>>()))::value_type, float>);
static_assert(std::is_same_v<decltype(std::declval<Array<int32_t>>() / 2)::value_type, int32_t>);  // floor division
static_assert(std::is_same_v<decltype(true_divide(std::declval<Array<int32_t>>(), 2))::value_type, double>);
static_assert(std::is_same_v<decltype(isnan(std::declval<Array<float>>()))::value_type, bool>);
static_assert(std::is_same_v<decltype(abs(std::declval<Array<int8_t>>()))::value_type, int8_t>);
static_assert(std::is_same_v<decltype(where(std::declval<Array<bool>>(), std::declval<Array<float>>(), 0.0))::value_type, float>);
static_assert(std::is_same_v<decltype(sum(std::declval<Array<int32_t>>()))::value_type, int64_t>);
static_assert(std::is_same_v<decltype(sum(std::declval<Array<uint8_t>>()))::value_type, uint64_t>);
static_assert(std::is_same_v<decltype(sum(std::declval<Array<bool>>()))::value_type, int64_t>);
static_assert(std::is_same_v<decltype(sum(std::declval<Array<float>>()))::value_type, float>);
static_assert(std::is_same_v<decltype(mean(std::declval<Array<int32_t>>()))::value_type, double>);
static_assert(std::is_same_v<decltype(max(std::declval<Array<int16_t>>()))::value_type, int16_t>);
static_assert(std::is_same_v<decltype(argmax(std::declval<Array<float>>()))::value_type, int64_t>);
static_assert(std::is_same_v<decltype(var(std::declval<Array<int32_t>>()))::value_type, double>);
static_assert(std::is_same_v<decltype(any(std::declval<Array<float>>()))::value_type, bool>);

TEST_CASE("the run-time promotion table agrees with NumPy's for every pair", "[promotion]") {
  // numpy.result_type for every pair of the 11 dtypes, row by row in DType order
  // (bool, i1, i2, i4, i8, u1, u2, u4, u8, f4, f8).
  using D = DType;
  const D B = D::Bool, I1 = D::Int8, I2 = D::Int16, I4 = D::Int32, I8 = D::Int64, U1 = D::UInt8, U2 = D::UInt16,
          U4 = D::UInt32, U8 = D::UInt64, F4 = D::Float32, F8 = D::Float64;
  const D table[11][11] = {
      {B, I1, I2, I4, I8, U1, U2, U4, U8, F4, F8},
      {I1, I1, I2, I4, I8, I2, I4, I8, F8, F4, F8},
      {I2, I2, I2, I4, I8, I2, I4, I8, F8, F4, F8},
      {I4, I4, I4, I4, I8, I4, I4, I8, F8, F8, F8},
      {I8, I8, I8, I8, I8, I8, I8, I8, F8, F8, F8},
      {U1, I2, I2, I4, I8, U1, U2, U4, U8, F4, F8},
      {U2, I4, I4, I4, I8, U2, U2, U4, U8, F4, F8},
      {U4, I8, I8, I8, I8, U4, U4, U4, U8, F8, F8},
      {U8, F8, F8, F8, F8, U8, U8, U8, U8, F8, F8},
      {F4, F4, F4, F8, F8, F4, F4, F8, F8, F4, F8},
      {F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8},
  };
  for (int a = 0; a < dtype_count; ++a)
    for (int b = 0; b < dtype_count; ++b) {
      INFO(dtype_name(DType(a)) << " + " << dtype_name(DType(b)));
      CHECK(promote(DType(a), DType(b)) == table[a][b]);
    }
}

TEST_CASE("promotion is carried out on the device", "[promotion]") {
  auto i = from_host(std::vector<int32_t>{1, -2, 3});
  auto u = from_host(std::vector<uint32_t>{4000000000u, 1, 2});
  auto s = (i + u).to_host();  // int64
  CHECK(s == std::vector<int64_t>{4000000001LL, -1, 5});
  auto f = (i * 2.5).to_host();  // float64
  CHECK(f == std::vector<double>{2.5, -5.0, 7.5});
  auto b = from_host(std::vector<bool>{true, false, true});
  CHECK((b + 1).to_host() == std::vector<int64_t>{2, 1, 2});
  CHECK((b + b).to_host() == std::vector<bool>{true, false, true});  // logical or, as NumPy
}
