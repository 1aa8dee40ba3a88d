// Values of every dtype for the arg-reduction tests (test_arg_vectors.cpp
// over rows, test_column_args.cpp down columns), and the host's answer:
// from one spread of int64 values, integers of every size with ties and
// float64 with few distinct values; floats of few values with NaN and the
// infinities planted row by row. Each test plants the extremes, NaN and
// infinities where its layout puts them in different lanes.
#pragma once

#include "support/random_inputs.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
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

/// Floats (float or double) of few distinct values (ties everywhere), rows
/// of m, with NaN, inf, -inf and -0 planted at row-dependent places (so in
/// different lanes of a vector from row to row); some rows with two NaN (the
/// first wins), one only in the last place, all -inf, all NaN, or one value
/// throughout.
template <class F = float>
std::vector<F> planted_floats(std::int64_t rows, std::int64_t m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<F> h(std::size_t(rows * m));
  for (auto& v : h) v = F(std::int64_t(rng() % 7) - 3);
  const F nan = std::numeric_limits<F>::quiet_NaN(), inf = std::numeric_limits<F>::infinity();
  auto at = [&](std::int64_t r, std::int64_t k) -> F& { return h[std::size_t(r * m + k % m)]; };
  for (std::int64_t r = 0; r < rows; ++r) {
    if (r % 5 == 1) at(r, r * 7 + 3) = inf;
    if (r % 5 == 2) at(r, r * 11 + 1) = -inf;
    if (r % 7 == 3) at(r, r * 13) = nan;
    if (r % 7 == 4) at(r, r * 3 + 5) = nan, at(r, r * 5 + 2) = nan;
    if (r % 9 == 6) at(r, m - 1) = nan;  // in the tail where m leaves one
    if (r % 4 == 0) at(r, r) = F(-0.0), at(r, r + 9) = F(0.0);
    for (std::int64_t k = 0; k < m; ++k) {
      if (r % 11 == 8) at(r, k) = -inf;
      if (r % 13 == 9) at(r, k) = nan;
      if (r % 17 == 10) at(r, k) = F(2);
    }
  }
  return h;
}

/// The host's answer for values h in C order of shape (A, M, B), along M:
/// for each (a, b), the first NaN, else the first extreme value (NumPy's).
template <class T>
std::vector<std::int64_t> first_extreme(const std::vector<T>& h, std::int64_t A, std::int64_t M, std::int64_t B, bool is_max) {
  std::vector<std::int64_t> out;
  for (std::int64_t a = 0; a < A; ++a)
    for (std::int64_t b = 0; b < B; ++b) {
      auto at = [&](std::int64_t k) { return h[std::size_t((a * M + k) * B + b)]; };
      std::int64_t best = 0;
      for (std::int64_t k = 0; k < M; ++k) {
        const T v = at(k), w = at(best);
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(w)) break;
          if (std::isnan(v)) {
            best = k;
            break;
          }
        }
        if (is_max ? v > w : v < w) best = k;
      }
      out.push_back(best);
    }
  return out;
}

/// The same over each row of m values of h.
template <class T>
std::vector<std::int64_t> first_extreme(const std::vector<T>& h, std::int64_t m, bool is_max) {
  return first_extreme(h, std::int64_t(h.size()) / m, m, 1, is_max);
}

}  // namespace fusecl::test
