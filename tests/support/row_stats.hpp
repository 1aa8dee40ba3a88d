// The host's check of max, min, sum and mean over rows of floats with NaN and
// infinities planted (the tests of reductions over rows in their layouts).
#pragma once

#include "support/each_check.hpp"

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
/// `row` names the row in a failure's message.
inline void require_row_stats(std::int64_t row, const RowFacts& f, std::int64_t m, float mx, float mn, float sm, float me,
                              double sum_tol, double mean_factor = 1.0) {
  if (f.nan) {
    REQUIRE_EACH(std::isnan(mx), "row " << row);
    REQUIRE_EACH(std::isnan(mn), "row " << row);
    REQUIRE_EACH(std::isnan(sm), "row " << row);
    return;
  }
  REQUIRE_EACH(mx == f.max, "row " << row);
  REQUIRE_EACH(mn == f.min, "row " << row);
  if (f.pinf && f.ninf) {
    REQUIRE_EACH(std::isnan(sm), "row " << row);
    return;
  }
  if (f.pinf || f.ninf) {
    REQUIRE_EACH(sm == (f.pinf ? INFINITY : -INFINITY), "row " << row);
    REQUIRE_EACH(me == (f.pinf ? INFINITY : -INFINITY), "row " << row);
    return;
  }
  REQUIRE_EACH(std::fabs(double(sm) - double(f.total)) <= sum_tol, "row " << row);
  REQUIRE_EACH(std::fabs(double(me) - double(f.total / m)) <= sum_tol / double(m) * mean_factor, "row " << row);
}

}  // namespace fusecl::test
