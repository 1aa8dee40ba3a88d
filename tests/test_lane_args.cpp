// argmin / argmax over short rows in lanes (render_lane_rows.cpp's
// arg_body, lane_rows.cpp's lanes_for_rows): a row's vectors (or, rows of
// 17 to 32 that are no whole vectors, its elements) spread over a few
// neighbouring work-items, each lane of each vector keeping its best
// value and that value's index, the vector's lanes met in halves, then the
// row's work-items through warp shuffles or local memory. The answer must
// be NumPy's: the first index of the extreme value, or of the first NaN,
// whatever order the lanes meet in. Few distinct values (ties in every row),
// NaN once or twice and both infinities at places that differ from row to
// row (so in every lane of a vector and in every work-item of a row), rows
// of only -inf, only NaN, and one value; row counts that leave the last
// group partly past the last row. The layout is a GPU's, set on any
// device's tuning (test_lane_rows.cpp's); the kernels run on the device at
// hand.
#include "src/device_state.hpp"
#include "src/schedule.hpp"
#include "support/arg_values.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning gpu_lanes(int warp) { return gpu_lane_tuning(*from_host(std::vector<float>{0.f}, {1}).node()->device, warp); }

// argmax and argmin of rows of m of h, each in one kernel, against the
// host's; `lanes`: whether the plan must take lanes.
template <class T>
void check_rows(const std::vector<T>& h, std::int64_t rows, std::int64_t m, bool lanes, const detail::DeviceTuning& t) {
  const auto x = from_host(h, {rows, m});
  for (const bool is_max : {true, false}) {
    INFO((is_max ? "argmax" : "argmin") << " over " << rows << " rows of " << m << ", " << sizeof(T) << "-byte values"
                                        << (t.row_warp ? ", warps" : ", local memory"));
    const auto y = is_max ? argmax(x, 1) : argmin(x, 1);
    const detail::Schedule s = run_with(y, t);
    REQUIRE(s.kernel_count() == 1);
    CHECK((s.steps[0].kernel.plan.reduce.lanes_per_row > 0) == lanes);
    const auto got = y.to_host();
    const auto want = first_extreme(h, m, is_max);
    REQUIRE(got.size() == want.size());
    for (std::size_t r = 0; r < got.size(); ++r) REQUIRE_EACH(got[r] == want[r], "row " << r);
  }
}

}  // namespace

TEST_CASE("argmin and argmax over short rows in lanes: float32 and float64, NaN, ties, every lane count", "[reduce][arg][lane_rows]") {
  const bool fp64 = default_device().info().fp64;
  for (const int warp : {32, 0}) {
    const auto t = gpu_lanes(warp);
    // Rows of 44, 100, 132 and 1000 are no whole number of lanes'
    // vectors (some lanes idle in the last round); of 10 and 14 vectors of
    // 2; of 17, 21 and 31 scalars. Past 255 vectors, the group form.
    for (const std::int64_t m : {4, 10, 14, 17, 21, 24, 31, 32, 44, 100, 132, 256, 1000, 1024})
      for (const std::int64_t rows : {7, 1001}) {
        const std::uint64_t seed = 0x5a + std::uint64_t(m * 31 + rows);
        check_rows(planted_floats<float>(rows, m, seed), rows, m, m <= 1020, t);
      }
    // Doubles in vectors of 2: rows of up to 510.
    for (const std::int64_t m : {4, 6, 10, 17, 24, 68, 130, 510, 512})
      for (const std::int64_t rows : {7, 1001})
        if (fp64) check_rows(planted_floats<double>(rows, m, 0x5b + std::uint64_t(m * 31 + rows)), rows, m, m <= 510, t);
  }
}

TEST_CASE("argmin and argmax over short rows in lanes: layouts", "[reduce][arg][lane_rows]") {
  const auto t = gpu_lanes(32);
  // The fewest lanes (a power of two) that leave each at most 4 of the
  // row's vectors, 8 past 32 vectors (rows of up to 255) and for rows of
  // scalars (17 to 32 elements, no whole vectors).
  struct Case {
    std::int64_t m;
    int lanes, per_lane, width;  // lanes 0: not this form
  };
  for (const Case c : {Case{8, 1, 2, 4}, Case{16, 1, 4, 4}, Case{24, 2, 3, 4}, Case{32, 2, 4, 4}, Case{64, 4, 4, 4}, Case{100, 8, 4, 4},
                       Case{128, 8, 4, 4}, Case{132, 8, 5, 4}, Case{256, 8, 8, 4}, Case{260, 16, 5, 4}, Case{1000, 32, 8, 4},
                       Case{1020, 32, 8, 4}, Case{1024, 0, 0, 0}, Case{17, 4, 5, 1}, Case{31, 4, 8, 1}, Case{33, 0, 0, 0}}) {
    INFO("argmax over 4099 rows of " << c.m);
    const auto x = from_host(std::vector<float>(std::size_t(4099 * c.m), 1.0f), {4099, c.m});
    const detail::GraphLock lock{x.node().get()};
    const auto y = argmax(x, 1);
    const auto p = detail::make_schedule({y.node()}, t).steps.at(0).kernel.plan;
    CHECK(int(p.reduce.lanes_per_row) == c.lanes);
    if (c.lanes == 0) continue;
    CHECK(int(p.width) == c.width);
    CHECK((int(p.reduce.row_vectors) + c.lanes - 1) / c.lanes == c.per_lane);
  }
}

TEST_CASE("argmin and argmax over short rows in lanes: integers", "[reduce][arg][lane_rows]") {
  for (const int warp : {32, 0}) {
    const auto t = gpu_lanes(warp);
    for (const std::int64_t m : {12, 36, 100, 1000})
      for (const std::int64_t rows : {333}) {
        const std::size_t N = std::size_t(rows * m);
        auto v = arg_values(N, 0x77 + std::uint64_t(m + rows));
        // Each row's extremes in different lanes from row to row, some twice.
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::size_t a = std::size_t(r * m + (r * 7 + 2) % m), b = std::size_t(r * m + (r * 5 + 11) % m);
          v.i32[a] = std::numeric_limits<std::int32_t>::max(), v.i32[b] = std::numeric_limits<std::int32_t>::min();
          v.u32[a] = std::numeric_limits<std::uint32_t>::max(), v.u32[b] = 0;
          v.i64[a] = v.i64[b] = std::numeric_limits<std::int64_t>::min();
          if (r % 3 == 0) v.u64[std::size_t(r * m + m - 1)] = std::numeric_limits<std::uint64_t>::max();
        }
        check_rows(v.i32, rows, m, true, t);
        check_rows(v.u32, rows, m, true, t);
        check_rows(v.i64, rows, m, m <= 510, t);  // rows of up to 255 vectors of 2
        check_rows(v.u64, rows, m, m <= 510, t);
        // 1- and 2-byte values are compared as int32 (result_type.hpp's
        // Accumulate::Int32Up), loaded in vectors of their own size.
        check_rows(v.i8, rows, m, true, t);
        check_rows(v.u16, rows, m, true, t);
      }
  }
}

TEST_CASE("argmin and argmax over short rows in lanes: a fused body, a view", "[reduce][arg][lane_rows]") {
  const auto t = gpu_lanes(32);
  // argmax / argmin of x * 2 - y over rows of 32, y one row broadcast down
  // the rows: the values stay exact, so the host computes them alike.
  const std::int64_t rows = 999, m = 32;
  const auto hx = planted_floats<float>(rows, m, 0x91);
  std::vector<float> hy(static_cast<std::size_t>(m)), he(hx.size());
  for (std::size_t k = 0; k < hy.size(); ++k) hy[k] = k % 3 == 0 ? -1.0f : 1.0f;
  for (std::size_t i = 0; i < hx.size(); ++i) he[i] = hx[i] * 2.0f - hy[i % std::size_t(m)];
  const auto x = from_host(hx, {rows, m});
  const auto e = x * 2.0f - from_host(hy, {m});
  for (const bool is_max : {true, false}) {
    INFO((is_max ? "argmax" : "argmin") << " of x * 2 - y");
    const auto y = is_max ? argmax(e, 1) : argmin(e, 1);
    CHECK(run_with(y, t).steps[0].kernel.plan.reduce.lanes_per_row == 2);
    const auto got = y.to_host(), want = first_extreme(he, m, is_max);
    for (std::size_t r = 0; r < got.size(); ++r) REQUIRE_EACH(got[r] == want[r], "row " << r);
  }
  // Rows 2 .. 998 (a view whose rows stay aligned: lanes), and columns 1 ..
  // 16 of each row (rows of 16 starting one float in: no whole vectors, the
  // group form).
  const auto v = slice(x, 0, 2, rows);
  const std::vector<float> hv(hx.begin() + 2 * m, hx.end());
  const auto av = argmax(v, 1);
  CHECK(run_with(av, t).steps[0].kernel.plan.reduce.lanes_per_row > 0);
  CHECK(av.to_host() == first_extreme(hv, m, true));
  const auto w = slice(x, 1, 1, 17);
  std::vector<float> hw;
  for (std::int64_t r = 0; r < rows; ++r) hw.insert(hw.end(), hx.begin() + r * m + 1, hx.begin() + r * m + 17);
  const auto aw = argmin(w, 1);
  CHECK(run_with(aw, t).steps[0].kernel.plan.reduce.lanes_per_row == 0);
  CHECK(aw.to_host() == first_extreme(hw, 16, false));
  // Columns 1 .. 25: rows of 24 starting one float in, in lanes of scalars.
  const auto u = slice(x, 1, 1, 25);
  std::vector<float> hu;
  for (std::int64_t r = 0; r < rows; ++r) hu.insert(hu.end(), hx.begin() + r * m + 1, hx.begin() + r * m + 25);
  const auto au = argmax(u, 1);
  const auto pu = run_with(au, t).steps[0].kernel.plan;
  CHECK((pu.reduce.lanes_per_row == 4 && pu.width == 1));
  CHECK(au.to_host() == first_extreme(hu, 24, true));
}
