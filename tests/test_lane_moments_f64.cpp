// var, std and mean of float64 and integer rows in lanes, on a GPU's layout
// set on any device (lane_rows.cpp's lanes_for_rows for a chan_moment,
// render_lane_rows.cpp's chan_body): each lane's values one block around its
// first value, the row's lanes met in Chan's update through warp shuffles
// (NVIDIA; a driver that refuses their PTX runs the plan without) or local
// memory. Checked against NumPy's two passes in long double with outliers
// where lanes take their shifts (and where the row's first value, the frame
// of the means, is one), data far from zero, every lane of a vector
// different, row counts that leave the last group partly past the last row,
// NaN / inf / squares past DBL_MAX in some rows, integers near their
// extremes; and the layouts each row length takes.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/f64_moments.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

template <class T>
Array<T> filled(std::int64_t rows, std::int64_t m, T v) {
  return from_host(std::vector<T>(std::size_t(rows * m), v), {rows, m});
}

// var of y and its mean in one kernel under tuning t (a Catch2 REQUIRE), run.
void run_pair(detail::DeviceState& dev, const Array<double>& v, const Array<double>& mu, const detail::DeviceTuning& t, bool lanes) {
  const detail::GraphLock lock{v.node().get()};
  detail::Schedule s = detail::make_schedule({v.node(), mu.node()}, t);
  REQUIRE(s.kernel_count() == 1);
  CHECK(s.steps[0].kernel.plan.reduce.moment == 2);
  CHECK((s.steps[0].kernel.plan.reduce.lanes_per_row > 0) == lanes);
  detail::run_schedule(dev, s);
}

}  // namespace

TEST_CASE("float64 var over short rows in lanes: layouts", "[reduce][moments][float64][lane_rows]") {
  if (!default_device().info().fp64) {
    WARN("the device has no float64");
    return;
  }
  auto& dev = *filled<double>(1, 1, 0.0).node()->device;
  const auto t = gpu_lane_tuning(dev, 32);
  // Vectors of 2 doubles; the fewest lanes, at least 2, that divide the
  // row's vectors and leave each at most 4 of them and 32 bytes (2 vectors),
  // else 64; rows of at most 32 vectors.
  struct Case {
    std::int64_t m;
    int lanes, per_lane;  // lanes 0: not this form
  };
  for (const Case c : {Case{2, 0, 0}, Case{4, 2, 1}, Case{6, 0, 0}, Case{8, 2, 2}, Case{10, 0, 0}, Case{12, 2, 3}, Case{16, 4, 2},
                       Case{24, 4, 3}, Case{32, 8, 2}, Case{40, 0, 0}, Case{48, 8, 3}, Case{64, 16, 2}, Case{66, 0, 0}, Case{128, 0, 0}}) {
    INFO("var over 4099 rows of " << c.m << " doubles");
    const auto p = only_plan(schedule_with(var(filled(4099, c.m, 0.5), 1), t));
    CHECK(p.reduce.moment == 1);
    CHECK((p.reduce.lanes_per_row > 0) == (c.lanes > 0));
    if (c.lanes == 0) continue;
    CHECK(int(p.width) == 2);
    CHECK(int(p.reduce.lanes_per_row) == c.lanes);
    CHECK(int(p.reduce.row_vectors) * 2 == c.m);
    CHECK(codegen::lane_rounds(p.reduce) == c.per_lane);
    CHECK(int(p.reduce.rows_per_item) == 2);
    CHECK(int(p.reduce.local_size) == 256);
    CHECK(int(p.reduce.row_warp) == 32);
    const std::string text = codegen::render(p, "k");
    CHECK(text.find("const long m = " + std::to_string(c.m) + "L;") != std::string::npos);
    CHECK(text.find("x0 = as_double(") != std::string::npos);  // the row's first value from its lane 0
    CHECK(text.find("dl_ * dl_ * ((double)(" + std::to_string(c.per_lane * 2 * c.lanes / 2) + " / 1) * 0.5)") != std::string::npos);
    CHECK(text.find("barrier(") == std::string::npos);
    auto nw = t;
    nw.row_warp = 0;
    const std::string tq = codegen::render(only_plan(schedule_with(var(filled(4099, c.m, 0.5), 1), nw)), "k");
    CHECK(tq.find("shfl.sync") == std::string::npos);
    CHECK(tq.find("barrier(") != std::string::npos);
    if (c.m == 64 && std::getenv("SHOW_TEXT")) std::printf("%s\n%s\n", text.c_str(), tq.c_str());
  }
  // Integers: vectors of 2 too (a moment's width, DeviceTuning::moment_width);
  // the 32 bytes a lane are of the buffer's values (8 int32 a lane, 4 int64).
  const auto i32 = only_plan(schedule_with(var(filled<std::int32_t>(4099, 64, 3), 1), t));
  CHECK((i32.width == 2 && i32.reduce.lanes_per_row == 8 && codegen::lane_rounds(i32.reduce) == 4));
  const auto i8 = only_plan(schedule_with(var(filled<std::int8_t>(4099, 24, 3), 1), t));
  CHECK((i8.width == 2 && i8.reduce.lanes_per_row == 4 && codegen::lane_rounds(i8.reduce) == 3));
  const auto i64 = only_plan(schedule_with(stddev(filled<std::int64_t>(4099, 16, 3), 1), t));
  CHECK((i64.width == 2 && i64.reduce.lanes_per_row == 4 && i64.reduce.post_sqrt));
  // Not taken: FUSECL_LANE_ROWS=0's tuning, rows starting mid-vector, a
  // strided row, a CPU's layout.
  auto off = t;
  off.lane_rows = false;
  const auto wide = filled(4099, 37, 0.5);
  CHECK(only_plan(schedule_with(var(filled(4099, 64, 0.5), 1), off)).reduce.lanes_per_row == 0);
  CHECK(only_plan(schedule_with(var(slice(wide, 1, 1, 33), 1), t)).reduce.lanes_per_row == 0);
  for (const auto& step : schedule_with(var(slice(filled(4099, 64, 0.5), 1, 0, 64, 2), 1), t).steps)
    CHECK(step.kernel.plan.reduce.lanes_per_row == 0);
  // FUSECL_LOG=schedule says so.
  const std::string log = detail::describe(schedule_with(var(filled(4099, 64, 0.5), 1), t), "gpu");
  INFO(log);
  CHECK(log.find("short rows in lanes: 16 work-item(s) a row, 2 vector(s) of 2 each, 2 row(s) a work-item") != std::string::npos);
}

TEST_CASE("float64 var over short rows in lanes: against NumPy's two passes in long double", "[reduce][moments][float64][lane_rows]") {
  if (!default_device().info().fp64) return;
  auto& dev = *filled<double>(1, 1, 0.0).node()->device;
  for (const int warp : {32, 0}) {
    const auto t = gpu_lane_tuning(dev, warp);
    for (const std::int64_t m : {4, 8, 12, 16, 24, 32, 48, 64})
    for (const double centre : {0.0, 1e8, -3e12})
    for (const bool outliers : {false, true}) {
      const std::int64_t rows = m == 64 ? 4099 : 1001;
      std::mt19937_64 rng(std::uint64_t(m * 7 + (outliers ? 1 : 0)) + std::uint64_t(warp));
      std::uniform_real_distribution<double> u(-1.5, 1.5);
      std::vector<double> h(std::size_t(rows * m));
      for (auto& v : h) v = centre + u(rng);
      // Outliers: the first value of some rows (the frame x0 and lane 0's
      // shift), and values at places that differ from row to row, among
      // them other lanes' first values.
      if (outliers)
        for (std::int64_t r = 0; r < rows; ++r) {
          if (r % 3 == 0) h[std::size_t(r * m)] += 4e4;
          for (std::int64_t i = 1; i < m; ++i)
            if ((i + r) % 5 == 0) h[std::size_t(r * m + i)] += (i % 2 ? 3e4 : -5e4);
        }
      const auto x = from_host(h, {rows, m});
      for (const int ddof : {0, 1}) {
        INFO(rows << " rows of " << m << " around " << centre << (outliers ? ", outliers" : "") << ", ddof " << ddof
                  << (warp ? ", warps" : ", local memory"));
        const RowMoments want = per_row(h, m, ddof);
        auto v = var(x, 1, false, ddof);
        auto s = stddev(x, 1, false, ddof);
        CHECK(only_plan(run_with(v, t)).reduce.lanes_per_row > 0);
        (void)run_with(s, t);
        auto v2 = var(x, 1, false, ddof);
        auto mu = mean(x, 1);
        run_pair(dev, v2, mu, t, true);
        const auto gv = v.to_host(), gs = s.to_host(), gv2 = v2.to_host(), gm = mu.to_host();
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::size_t o = std::size_t(r);
          REQUIRE_EACH(close(gv[o], want.var[o], 16), "var of row " << r << ": " << gv[o] << ", want " << double(want.var[o]));
          REQUIRE_EACH(close(gv2[o], want.var[o], 16), "var (with the mean) of row " << r);
          REQUIRE_EACH(close(gs[o], std::sqrt(want.var[o]), 16), "std of row " << r);
          REQUIRE_EACH(std::fabs(static_cast<long double>(gm[o]) - want.mean[o]) <= 4 * DBL_EPSILON * want.abs_mean[o], "mean of row " << r);
        }
      }
    }
  }
}

TEST_CASE("float64 var over short rows in lanes: NaN, inf, overflow, constant rows, integers", "[reduce][moments][float64][lane_rows]") {
  if (!default_device().info().fp64) return;
  auto& dev = *filled<double>(1, 1, 0.0).node()->device;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const int warp : {32, 0}) {
    const auto t = gpu_lane_tuning(dev, warp);
    for (const std::int64_t m : {4, 16, 64}) {
      INFO("rows of " << m << (warp ? ", warps" : ", local memory"));
      const std::int64_t rows = 300;
      std::vector<double> h(std::size_t(rows * m));
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = double(i % 7) - 2.5;
      // Row r % 6: 0 plain, 1 a NaN, 2 an inf, 3 -inf and inf, 4 squares
      // past DBL_MAX (NumPy: inf), 5 constant; each at a place that moves
      // from row to row, so in every lane.
      for (std::int64_t r = 0; r < rows; ++r) {
        double* row = h.data() + r * m;
        const std::int64_t at = (r * 5) % m;
        switch (r % 6) {
          case 1: row[at] = nan; break;
          case 2: row[at] = inf; break;
          case 3: row[at] = -inf, row[(at + 1) % m] = inf; break;
          case 4:
            for (std::int64_t i = 0; i < m; ++i) row[i] = (i + r) % 2 ? 1e200 : -1e200;
            break;
          case 5:
            for (std::int64_t i = 0; i < m; ++i) row[i] = 7.25;
            break;
          default: break;
        }
      }
      const auto x = from_host(h, {rows, m});
      auto v = var(x, 1);
      auto mu = mean(x, 1);
      run_pair(dev, v, mu, t, true);
      const auto gv = v.to_host(), gm = mu.to_host();
      const RowMoments want = per_row(h, m, 0);
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t o = std::size_t(r);
        switch (r % 6) {
          case 1: REQUIRE_EACH((std::isnan(gv[o]) && std::isnan(gm[o])), "row " << r); break;
          case 2: REQUIRE_EACH((std::isnan(gv[o]) && gm[o] == inf), "row " << r); break;
          case 3: REQUIRE_EACH((std::isnan(gv[o]) && std::isnan(gm[o])), "row " << r); break;
          case 4: REQUIRE_EACH((gv[o] == inf && gm[o] == 0), "row " << r << ": " << gv[o] << ", " << gm[o]); break;
          case 5: REQUIRE_EACH((gv[o] == 0 && gm[o] == 7.25), "row " << r); break;
          default: REQUIRE_EACH(close(gv[o], want.var[o], 16), "row " << r); break;
        }
      }
      // Integers near their extremes: var is float64, of the values cast.
      std::mt19937_64 rng{std::uint64_t(m)};
      std::vector<std::int64_t> h64(std::size_t(rows * m));
      std::vector<std::int32_t> h32(h64.size());
      for (std::size_t k = 0; k < h64.size(); ++k) {
        h64[k] = (std::int64_t(1) << 50) | std::int64_t(rng() % 1000);
        h32[k] = std::int32_t(k % 3 ? 2147483000 + std::int64_t(rng() % 600) : -2147483000);
      }
      auto v64 = var(from_host(h64, {rows, m}), 1, false, 1);
      auto v32 = var(from_host(h32, {rows, m}), 1);
      CHECK(only_plan(run_with(v64, t)).reduce.lanes_per_row > 0);
      CHECK(only_plan(run_with(v32, t)).reduce.lanes_per_row > 0);
      const auto g64 = v64.to_host(), g32 = v32.to_host();
      const auto w64 = per_row(h64, m, 1), w32 = per_row(h32, m, 0);
      for (std::int64_t r = 0; r < rows; ++r) {
        REQUIRE_EACH(close(g64[std::size_t(r)], w64.var[std::size_t(r)], 16), "int64 row " << r);
        REQUIRE_EACH(close(g32[std::size_t(r)], w32.var[std::size_t(r)], 16), "int32 row " << r);
      }
    }
  }
}
