// Row kernels holding rows that are no multiple of the vector width in
// vectors (issue 13; codegen ReduceSpec::row_skew, render_row_skew.cpp): a
// row's vectors start at the multiple of the width at or below its first
// element, so its first and last vectors hold other rows' elements, which
// its reductions must leave out and its stores must not touch. Run with a
// GPU's row layout on this device: the deep register form's rows (past 2048)
// and short rows of up to 4 work-items take it. Rows 1 to 5 deep, so that the
// last row's last vector ends at, or past, the array's end (n * m modulo 4
// from 0 to 3). Against the long double host reference of
// tests/support/row_patterns (edge values in the first rows: zeros of both
// signs, a subnormal, infinities, NaN), and bit for bit where one rounding
// gives the result.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// An H200's row layout (launch.cpp), whatever this device is, with its
// reciprocal divisions on or off, and short rows not staged through local
// memory (which takes them instead: test_row_stage.cpp).
detail::DeviceTuning gpu_layout(detail::DeviceState& dev, bool reciprocal) {
  auto t = h200_tuning(dev, 256);
  t.row_stage = 0;
  t.row_reciprocal = reciprocal && t.row_reciprocal;  // where the device's division allows it (launch.cpp)
  return t;
}

// y computed under `t` (schedule_run.hpp), which must be one row kernel: its plan.
template <class T>
codegen::KernelPlan run_one(const Array<T>& y, const detail::DeviceTuning& t) {
  return one_row_kernel(run_with(y, t));
}

}  // namespace

TEST_CASE("row fusion: rows that are no whole vectors, in vectors from their aligned start", "[row]") {
  const auto all = patterns();
  // Short rows (1 to 4 work-items, more than a vector each) and the deep form's.
  for (const std::int64_t m : {5, 6, 7, 9, 13, 17, 33, 2049, 4099, 5001})
    for (const std::int64_t rows : {1, 2, 3, 5})
      for (std::size_t which = 0; which < all.size(); ++which) {
        const Pattern& pat = all[which];
        // Every pattern over a short and a deep row, 3 rows deep; softmax and layer norm over all.
        if (which != 3 && which != 4 && !((m == 17 || m == 4099) && rows == 3)) continue;
        for (const bool reciprocal : {false, true}) {
          if (!reciprocal && which != 2 && which != 3) continue;  // x / sum and softmax divide by a row's value
          const Dims d{rows, m};
          INFO(pat.name << " over " << rows << " rows of " << m << (reciprocal ? ", reciprocal divisions" : ""));
          const auto h = inputs(d, 1, test_seed(0x5e3 + std::uint64_t(m * 8 + rows) + which), pat.lo, pat.hi, m >= 3);
          const auto y = pat.device(from_host(h, Shape(d)), 1);
          const auto plan = run_one(y, gpu_layout(*y.node()->device, reciprocal));
          CHECK(plan.reduce.row_skew);
          CHECK(plan.width == 4);
          check_rows(pat, h, y.to_host(), d, 1);
        }
      }
}

TEST_CASE("row fusion: rows of other types in vectors from their aligned start", "[row]") {
  // x - max(x) and x - min(x): one correctly rounded operation, so bit for
  // bit; every lane a different value, the row's extreme anywhere in it (in
  // a lane its first or last vector shares with another row: the first and
  // last elements of some rows).
  auto check = [](auto zero, std::int64_t rows, std::int64_t m, int width) {
    using T = decltype(zero);
    const Dims d{rows, m};
    auto h = spread_values<T>(std::size_t(rows * m), std::uint64_t(rows * 131 + m));
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto at = [&](std::int64_t k) -> T& { return h[std::size_t(r * m + k)]; };
      at(r % 2 == 0 ? 0 : m - 1) = T(1e6);  // the row's largest at its first or last element
      at(r % 3 == 0 ? m - 1 : 0) = T(-1e6);  // its smallest
    }
    if constexpr (std::is_floating_point_v<T>) {
      h[0] = std::numeric_limits<T>::infinity();  // the first row's first element
      if (rows > 1) h[std::size_t(2 * m - 1)] = -std::numeric_limits<T>::infinity();  // the second row's last
      if (rows > 2) h[std::size_t(2 * m)] = std::numeric_limits<T>::quiet_NaN();      // the third row's first
    }
    const auto x = from_host(h, Shape(d));
    for (const bool is_max : {true, false}) {
      INFO((is_max ? "x - max" : "x - min") << " over " << rows << " rows of " << m << ", " << sizeof(T) << "-byte elements");
      const auto y = is_max ? x - max(x, 1, true) : x - min(x, 1, true);
      const auto plan = run_one(y, gpu_layout(*y.node()->device, false));
      CHECK(plan.reduce.row_skew);
      CHECK(int(plan.width) == width);
      const auto got = y.to_host();
      for (std::int64_t r = 0; r < rows; ++r) {
        T e = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        bool nan = false;
        for (std::int64_t k = 0; k < m; ++k) {
          const T v = h[std::size_t(r * m + k)];
          if constexpr (std::is_floating_point_v<T>) {
            nan = nan || std::isnan(v);
            if (std::isinf(v)) e = is_max ? std::max(e, v) : std::min(e, v);
          }
          e = is_max ? std::max(e, v) : std::min(e, v);
        }
        for (std::int64_t k = 0; k < m; ++k) {
          const std::size_t i = std::size_t(r * m + k);
          const T want = nan ? std::numeric_limits<T>::quiet_NaN() : T(h[i] - e);
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(want)) REQUIRE_EACH(std::isnan(got[i]), "row " << r << ", element " << k);
            else REQUIRE_EACH(std::memcmp(&got[i], &want, sizeof(T)) == 0, "row " << r << ", element " << k);
          } else {
            REQUIRE_EACH(got[i] == want, "row " << r << ", element " << k);
          }
        }
      }
    }
  };
  for (const std::int64_t rows : {1, 3, 4})
    for (const std::int64_t m : {2049, 4097, 9, 17}) {
      check(std::int32_t(0), rows, m, 4);
      if (default_device().info().fp64) check(double(0), rows, m, 2);
    }
}

TEST_CASE("row fusion: where rows stay element by element", "[row]") {
  auto plan_of = [](const Array<float>& y, bool skew) {
    auto t = gpu_layout(*y.node()->device, false);
    t.row_skew = skew;
    const detail::Schedule s = schedule_with(y, t);
    REQUIRE(s.kernel_count() == 1);
    return s.steps[0].kernel.plan;
  };
  auto norm = [](const Array<float>& a) { return a - max(a, 1, true); };
  auto rows_of = [](std::int64_t rows, std::int64_t m) {
    return from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m});
  };
  // Rows between: many work-items, whose scalar loads are coalesced (and a
  // row of 3, less than a vector a work-item): element by element.
  for (const std::int64_t m : {3, 65, 511, 1001, 2047}) {
    INFO("rows of " << m);
    const auto plan = plan_of(norm(rows_of(8, m)), true);
    CHECK_FALSE(plan.reduce.row_skew);
    CHECK(plan.width == 1);
  }
  // FUSECL_ROW_SKEW=0 (DeviceTuning::row_skew): none.
  for (const std::int64_t m : {17, 5001}) {
    INFO("rows of " << m << ", row_skew off");
    CHECK_FALSE(plan_of(norm(rows_of(8, m)), false).reduce.row_skew);
    CHECK(plan_of(norm(rows_of(8, m)), true).reduce.row_skew);
  }
  // Rows read at an offset that is no multiple of the width (a slice of a
  // flat array, reshaped): element by element, and right.
  const std::int64_t m = 5001;
  std::vector<float> h(std::size_t(3 * m + 1));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(int(i * 7919 % 1000) - 500);
  const auto x = reshape(slice(from_host(h, {3 * m + 1}), 0, 1, std::nullopt), {3, m});
  const auto y = x - max(x, 1, true);
  const auto plan = run_one(y, gpu_layout(*y.node()->device, false));
  CHECK_FALSE(plan.reduce.row_skew);
  const auto got = y.to_host();
  for (std::int64_t r = 0; r < 3; ++r) {
    float e = -INFINITY;
    for (std::int64_t k = 0; k < m; ++k) e = std::max(e, h[std::size_t(1 + r * m + k)]);
    for (std::int64_t k = 0; k < m; ++k) REQUIRE(got[std::size_t(r * m + k)] == h[std::size_t(1 + r * m + k)] - e);
  }
}
