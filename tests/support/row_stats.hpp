// The host's check of max, min, sum and mean over rows of floats with NaN and
// infinities planted (the tests of reductions over rows in their layouts).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

namespace fusecl::test {

/// What the host knows of a row of floats: whether it holds NaN, inf or
/// -inf, its extremes apart from NaN, and the long double sum of its finite
/// values and of their magnitudes.
struct RowFacts {
  bool nan = false, pinf = false, ninf = false;
  float max = -INFINITY, min = INFINITY;
  long double total = 0, size = 0;
};

inline RowFacts row_facts(const float* v, std::int64_t m) {
  RowFacts f;
  for (std::int64_t k = 0; k < m; ++k) {
    const float x = v[k];
    f.nan = f.nan || std::isnan(x);
    f.pinf = f.pinf || x == INFINITY, f.ninf = f.ninf || x == -INFINITY;
    if (!std::isnan(x)) f.max = std::max(f.max, x), f.min = std::min(f.min, x);
    if (std::isfinite(x)) f.total += x, f.size += std::fabs(x);
  }
  return f;
}

/// REQUIREs a row's max, min, sum and mean (of m values) as the host's
/// facts say: NaN where the row holds one (the sum too where it holds both
/// infinities), the infinity it holds, else the extremes exactly, the sum
/// within `sum_tol` and the mean within mean_factor * sum_tol / m.
inline void require_row_stats(const RowFacts& f, std::int64_t m, float mx, float mn, float sm, float me, double sum_tol,
                              double mean_factor = 1.0) {
  if (f.nan) {
    REQUIRE(std::isnan(mx));
    REQUIRE(std::isnan(mn));
    REQUIRE(std::isnan(sm));
    return;
  }
  REQUIRE(mx == f.max);
  REQUIRE(mn == f.min);
  if (f.pinf && f.ninf) {
    REQUIRE(std::isnan(sm));
    return;
  }
  if (f.pinf || f.ninf) {
    REQUIRE(sm == (f.pinf ? INFINITY : -INFINITY));
    REQUIRE(me == (f.pinf ? INFINITY : -INFINITY));
    return;
  }
  REQUIRE(std::fabs(double(sm) - double(f.total)) <= sum_tol);
  REQUIRE(std::fabs(double(me) - double(f.total / m)) <= sum_tol / double(m) * mean_factor);
}

}  // namespace fusecl::test
