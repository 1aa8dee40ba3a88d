// The deterministic input generators the op tests draw from.
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace fusecl;
using namespace fusecl::test;

namespace {

constexpr DType kAll[] = {DType::Bool,   DType::Int8,   DType::Int16,   DType::Int32,
                          DType::Int64,  DType::UInt8,  DType::UInt16,  DType::UInt32,
                          DType::UInt64, DType::Float32, DType::Float64};

bool contains(const std::vector<Value>& xs, const Value& x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); }

bool is_nan_or_inf(const Value& x) { return is_float(x.dtype()) && !std::isfinite(x.as<double>()); }

bool is_subnormal(const Value& x) {
  if (x.dtype() == DType::Float32) return std::fpclassify(x.as<float>()) == FP_SUBNORMAL;
  return x.dtype() == DType::Float64 && std::fpclassify(x.as<double>()) == FP_SUBNORMAL;
}

}  // namespace

TEST_CASE("random_values is a function of the seed", "[inputs]") {
  for (DType t : kAll) {
    CAPTURE(dtype_name(t));
    const auto a = random_values(t, 500, 7), b = random_values(t, 500, 7), c = random_values(t, 500, 8);
    CHECK(a == b);
    if (t != DType::Bool) CHECK(a != c);
    CHECK(a.size() == 500);
    CHECK(std::all_of(a.begin(), a.end(), [t](const Value& x) { return x.dtype() == t; }));
  }
}

TEST_CASE("integers use the engine's raw output", "[inputs]") {
  // The engine's output sequence is fixed by the standard; using it directly
  // (no std:: distribution) is what makes a seed reproduce everywhere.
  std::mt19937_64 a(99), b(99);
  for (int i = 0; i < 10; ++i) CHECK(random_value(DType::UInt64, a) == Value(static_cast<std::uint64_t>(b())));
  std::mt19937_64 fixed;  // default seed: the standard fixes its 10000th output
  fixed.discard(9999);
  CHECK(fixed() == 9981545732273789042ull);
}

TEST_CASE("edge values cover the classic trouble spots", "[inputs]") {
  using F = std::numeric_limits<float>;
  const auto f = edge_values(DType::Float32);
  for (float x : {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, F::max(), -F::max(), F::min(), F::denorm_min(), -F::denorm_min(),
                  F::infinity(), -F::infinity(), std::log(F::max())}) {
    CAPTURE(x);
    CHECK(contains(f, Value(x)));
  }
  CHECK(contains(f, Value(F::quiet_NaN())));
  CHECK(contains(edge_values(DType::Float64), Value(std::numeric_limits<double>::denorm_min())));

  const auto i8 = edge_values(DType::Int8);
  for (int x : {-128, -127, -1, 0, 1, 126, 127, 7, 8, 9, -8}) {
    CAPTURE(x);
    CHECK(contains(i8, Value(static_cast<std::int8_t>(x))));
  }
  const auto u64 = edge_values(DType::UInt64);
  CHECK(contains(u64, Value(~std::uint64_t{0})));
  CHECK(contains(u64, Value(std::uint64_t{64})));
  CHECK(edge_values(DType::Bool) == std::vector<Value>{Value(false), Value(true)});
}

TEST_CASE("every edge value appears once the edge share allows it", "[inputs]") {
  InputOptions opt;
  opt.edge_fraction = 1.0;
  for (DType t : kAll) {
    CAPTURE(dtype_name(t));
    const auto edges = edge_values(t, opt);
    const auto xs = random_values(t, edges.size(), 3, opt);
    for (const Value& e : edges) CHECK(contains(xs, e));
  }
}

TEST_CASE("options remove NaN, infinities and subnormals", "[inputs]") {
  InputOptions opt;
  opt.nan_inf = false;
  opt.denormals = false;
  for (DType t : {DType::Float32, DType::Float64}) {
    CAPTURE(dtype_name(t));
    const auto xs = random_values(t, 20000, 11, opt);
    CHECK(std::none_of(xs.begin(), xs.end(), is_nan_or_inf));
    CHECK(std::none_of(xs.begin(), xs.end(), is_subnormal));
    // Without the options both kinds show up among the full-range draws.
    const auto all = random_values(t, 20000, 11);
    CHECK(std::any_of(all.begin(), all.end(), is_nan_or_inf));
    CHECK(std::any_of(all.begin(), all.end(), is_subnormal));
  }
}

TEST_CASE("a range confines the random values", "[inputs]") {
  InputOptions opt;
  opt.edge_fraction = 0;
  opt.range = std::pair{-2.0, 3.0};
  const auto f = random_values(DType::Float32, 5000, 5, opt);
  CHECK(std::all_of(f.begin(), f.end(), [](const Value& x) { return x.as<double>() >= -2 && x.as<double>() <= 3; }));
  const auto [lo, hi] = std::minmax_element(f.begin(), f.end(), [](const Value& a, const Value& b) {
    return a.as<double>() < b.as<double>();
  });
  CHECK(lo->as<double>() < -1.9);  // and fills it
  CHECK(hi->as<double>() > 2.9);

  opt.range = std::pair{-1000.0, 5.0};  // clipped to int8: [-128, 5]
  const auto i = random_values(DType::Int8, 5000, 5, opt);
  CHECK(std::all_of(i.begin(), i.end(), [](const Value& x) { return x.as<int>() >= -128 && x.as<int>() <= 5; }));
  CHECK(contains(i, Value(std::int8_t(-128))));
  CHECK(contains(i, Value(std::int8_t(5))));

  opt.range = std::pair{-1e300, 1e300};  // wide float ranges do not overflow on the way
  const auto d = random_values(DType::Float64, 1000, 5, opt);
  CHECK(std::all_of(d.begin(), d.end(), [](const Value& x) { return std::isfinite(x.as<double>()); }));
}

TEST_CASE("edge_pairs is the cartesian product", "[inputs]") {
  const auto [a, b] = edge_pairs(DType::Int8, DType::Float32);
  const auto ea = edge_values(DType::Int8), eb = edge_values(DType::Float32);
  REQUIRE(a.size() == ea.size() * eb.size());
  REQUIRE(b.size() == a.size());
  CHECK(a[0] == ea[0]);
  CHECK(b[1] == eb[1]);
  CHECK(a.back() == ea.back());
  CHECK(b.back() == eb.back());
}

TEST_CASE("seed helpers", "[inputs]") {
  CHECK(seed_message(0x1234) == "inputs from seed 0x1234; rerun with FUSECL_TEST_SEED=0x1234");
  if (std::getenv("FUSECL_TEST_SEED") == nullptr) CHECK(test_seed(42) == 42);
}
