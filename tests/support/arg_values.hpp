// Values of every dtype for the arg-reduction tests (test_arg_vectors.cpp
// over rows, test_column_args.cpp down columns): from one spread of int64
// values, integers of every size with ties and float64 with few distinct
// values. Each test plants the extremes, NaN and infinities where its
// layout puts them in different lanes.
#pragma once

#include "support/random_inputs.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusecl::test {

struct ArgValues {
  std::vector<std::int32_t> i32;  // ties: the spread divided by 20000
  std::vector<std::int64_t> i64;
  std::vector<std::uint32_t> u32;
  std::vector<std::uint64_t> u64;
  std::vector<std::int8_t> i8;
  std::vector<std::uint8_t> u8;
  std::vector<std::int16_t> i16;
  std::vector<std::uint16_t> u16;
  std::vector<double> f64;
};

inline ArgValues arg_values(std::size_t n, std::uint64_t seed) {
  const auto s = spread_values<std::int64_t>(n, seed);
  ArgValues v{std::vector<std::int32_t>(n), std::vector<std::int64_t>(n),  std::vector<std::uint32_t>(n),
              std::vector<std::uint64_t>(n), std::vector<std::int8_t>(n),   std::vector<std::uint8_t>(n),
              std::vector<std::int16_t>(n),  std::vector<std::uint16_t>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    v.i32[i] = std::int32_t(s[i] / 20000);
    v.i64[i] = s[i] * (std::int64_t(1) << 40);
    v.u32[i] = std::uint32_t(s[i] + 100000) / 1000u;
    v.u64[i] = std::uint64_t(s[i]) * 977u;
    v.i8[i] = std::int8_t(s[i] % 100);
    v.u8[i] = std::uint8_t(std::uint64_t(s[i]) % 200u);
    v.i16[i] = std::int16_t(s[i] % 30000);
    v.u16[i] = std::uint16_t(std::uint64_t(s[i]) % 60000u);
    v.f64[i] = double(s[i] / 1000) / 8.0;
  }
  return v;
}

}  // namespace fusecl::test
