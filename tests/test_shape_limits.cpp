// Element counts past int64: every way of making a shape says "array is too
// big" (ShapeError, as NumPy) instead of wrapping to 0 or a negative size.
#include <fusecl/fusecl.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using Catch::Matchers::Contains;
using fusecl::ShapeError;

namespace {
constexpr std::int64_t k32 = std::int64_t(1) << 32;
constexpr std::int64_t k62 = std::int64_t(1) << 62;
constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
}  // namespace

TEST_CASE("shapes whose element count overflows int64 are refused", "[shape][too_big]") {
  CHECK_THROWS_MATCHES(fusecl::Shape({k32, k32}), ShapeError, Catch::Matchers::Message(
      "array is too big: shape (4294967296, 4294967296) has more elements than a 64-bit index can count (2^63 - 1)"));
  CHECK_THROWS_AS(fusecl::Shape({3, k62}), ShapeError);
  CHECK_THROWS_AS(fusecl::Shape({2, 2, 2, k62}), ShapeError);
  CHECK_THROWS_AS(fusecl::Shape({max64, 2}), ShapeError);
  // As NumPy, a zero dimension does not excuse the others.
  CHECK_THROWS_AS(fusecl::Shape({0, k32, k32}), ShapeError);
  // What fits still works, up to the last element.
  CHECK(fusecl::Shape({max64}).size() == max64);
  CHECK(fusecl::Shape({k32, k32 / 2 - 1}).size() == k32 * (k32 / 2 - 1));
  CHECK(fusecl::Shape({0, k62}).size() == 0);
  CHECK(fusecl::Shape({k62, 0, 1}).size() == 0);
}

TEST_CASE("generators, views and joins refuse element counts past int64", "[shape][too_big]") {
  // The examples: size() was 0 or negative, sum 0 and mean NaN.
  CHECK_THROWS_WITH(fusecl::ones<float>({k32, k32}), Contains("array is too big"));
  CHECK_THROWS_WITH(fusecl::ones<float>({3, k62}), Contains("array is too big"));
  CHECK_THROWS_WITH(fusecl::random::uniform<float>({k32, k32}, 1), Contains("array is too big"));
  CHECK_THROWS_AS(fusecl::zeros<std::int8_t>({k32, k32}), ShapeError);
  // Elements fit but bytes do not (2^62 float32 elements are 2^64 bytes).
  CHECK_THROWS_WITH(fusecl::full<float>({k62}, 1.0f), Contains("array is too big") && Contains("bytes"));
  CHECK_THROWS_AS(fusecl::random::normal<double>({k62 / 4, 3}, 7), ShapeError);
  CHECK_THROWS_AS(fusecl::eye<float>(k32, k32), ShapeError);

  const auto big = fusecl::ones<std::int8_t>({k62});  // 2^62 one-byte elements: lazy, never allocated
  CHECK(big.size() == k62);
  // Broadcasting to a shape past the limit.
  CHECK_THROWS_AS(fusecl::broadcast_to(big, fusecl::Shape({4, k62})), ShapeError);
  auto row = fusecl::ones<std::int8_t>({1, k62});
  auto col = fusecl::ones<std::int8_t>({4, 1});
  CHECK_THROWS_AS(row + col, ShapeError);
  // Reshape: dimensions that multiply past int64, also with -1.
  auto small = fusecl::ones<float>({4});
  CHECK_THROWS_WITH(fusecl::reshape(small, {k32, k32}), Contains("array is too big"));
  CHECK_THROWS_AS(fusecl::reshape(small, {-1, k32, k32}), ShapeError);
  CHECK_THROWS_AS(fusecl::expand_dims(big, 0) + fusecl::ones<std::int8_t>({4, 1}), ShapeError);
  // Concatenating along an axis whose total passes int64.
  auto half = fusecl::ones<std::int8_t>({k62});
  CHECK_THROWS_WITH(fusecl::concatenate({half, half}, 0), Contains("array is too big"));
  // An uploaded array of the largest size the host can hold is untouched here;
  // a span claiming more than int64 elements cannot exist.
}

TEST_CASE("arange and linspace refuse lengths past int64", "[shape][too_big]") {
  CHECK_THROWS_WITH(fusecl::arange<float>(0, 1e19), Contains("too many elements"));
  CHECK_THROWS_AS(fusecl::linspace<double>(0, 1, -1), fusecl::Error);
}
