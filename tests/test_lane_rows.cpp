// Reductions over short rows in lanes (codegen ReduceSpec::lanes_per_row,
// lane_rows.cpp's lanes_for_rows, render_lane_rows.cpp): a row's vectors
// spread over a few neighbouring work-items, each work-item several rows.
// The layout is a GPU's, set on any device's tuning; the kernels run on the
// device at hand, the row's lanes meeting through warp shuffles where it has
// them (NVIDIA) and in local memory otherwise (a tuning without warps, or a
// driver that refuses the shuffles' PTX: launch.cpp then drops them). Row
// counts leave the last group partly past the last row; NaN and infinities
// sit at places that differ from row to row, in every lane of a vector.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/random_inputs.hpp"
#include "support/row_stats.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

Array<float> rows_of(std::int64_t rows, std::int64_t m) { return from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m}); }

}  // namespace

TEST_CASE("reductions over short rows in lanes: layouts", "[reduce][lane_rows]") {
  auto& dev = *rows_of(1, 1).node()->device;
  const auto t = gpu_lane_tuning(dev, 32);
  // Lanes a row: the largest power of two up to 32 dividing the row's
  // vectors (of 4 floats, or of 2 where rows are no whole number of 4),
  // each lane at most 4 of them; where none does, the fewest lane slots
  // (some lanes idle in the last round), the fewer lanes on a tie. Rows of
  // at most 32 vectors (16 for moments). Rows of 17 to 32 that are no whole
  // vectors in scalars.
  struct Case {
    std::int64_t m;
    int lanes, per_lane, width;  // lanes 0: not this form
  };
  for (const Case c : {Case{4, 1, 1, 4}, Case{8, 2, 1, 4}, Case{12, 1, 3, 4}, Case{16, 4, 1, 4}, Case{24, 2, 3, 4}, Case{32, 8, 1, 4},
                       Case{48, 4, 3, 4}, Case{64, 16, 1, 4}, Case{96, 8, 3, 4}, Case{128, 32, 1, 4}, Case{132, 0, 0, 0}, Case{256, 0, 0, 0},
                       Case{6, 1, 3, 2},
                       // rows of 17 to 32 that are no whole vectors: scalars, the fewest lanes leaving at most 8 each
                       Case{17, 4, 5, 1}, Case{25, 4, 7, 1}, Case{31, 4, 8, 1}, Case{15, 0, 0, 0}, Case{33, 0, 0, 0},
                       // no whole number of lanes' vectors
                       Case{10, 2, 3, 2}, Case{14, 2, 4, 2}, Case{20, 2, 3, 4}, Case{28, 2, 4, 4}, Case{36, 4, 3, 4}, Case{40, 4, 3, 4},
                       Case{44, 4, 3, 4}, Case{52, 4, 4, 4}, Case{68, 8, 3, 4}, Case{80, 8, 3, 4}, Case{100, 8, 4, 4}, Case{124, 8, 4, 4},
                       Case{18, 4, 3, 2}, Case{62, 8, 4, 2}, Case{66, 0, 0, 0}}) {
    INFO("sum over 4099 rows of " << c.m);
    const bool taken = c.lanes > 0;
    const auto p = only_plan(schedule_with(sum(rows_of(4099, c.m), 1), t));
    CHECK((p.reduce.lanes_per_row > 0) == taken);
    if (!taken) continue;
    CHECK(p.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
    CHECK(int(p.width) == c.width);
    CHECK(int(p.reduce.lanes_per_row) == c.lanes);
    CHECK(int(p.reduce.row_vectors) * c.width == c.m);
    CHECK((int(p.reduce.row_vectors) + c.lanes - 1) / c.lanes == c.per_lane);
    CHECK(int(p.reduce.rows_per_item) == 2);
    CHECK(int(p.reduce.local_size) == 256);
    CHECK(int(p.reduce.rows_per_group) == 2 * 256 / c.lanes);
    CHECK(int(p.reduce.row_warp) == 32);
    const std::string text = codegen::render(p, "k");
    CHECK(text.find("const long m = " + std::to_string(c.m) + "L;") != std::string::npos);
    CHECK((text.find("shfl.sync") != std::string::npos) == (c.lanes > 1));
    CHECK(text.find("barrier(") == std::string::npos);
    // Without warps the lanes meet in local memory.
    auto nw = t;
    nw.row_warp = 0;
    const auto q = only_plan(schedule_with(sum(rows_of(4099, c.m), 1), nw));
    CHECK(q.reduce.row_warp == 0);
    const std::string tq = codegen::render(q, "k");
    CHECK(tq.find("shfl.sync") == std::string::npos);
    CHECK((tq.find("barrier(") != std::string::npos) == (c.lanes > 1));
  }
  // Moments: rows of at most 16 vectors; rows that are no whole number of
  // lanes' vectors only in vectors of 4 (rows of 20, not 10).
  if (default_device().info().fp64) {
    for (const auto& [m, taken] : {std::pair{4, true}, std::pair{32, true}, std::pair{64, true}, std::pair{128, false}, std::pair{6, true},
                                   std::pair{10, false}, std::pair{14, false}, std::pair{20, true}, std::pair{60, true}, std::pair{68, false}}) {
      INFO("var over 4099 rows of " << m);
      const auto p = only_plan(schedule_with(var(rows_of(4099, m), 1), t));
      CHECK(p.reduce.moment == 1);
      CHECK((p.reduce.lanes_per_row > 0) == taken);
    }
  }
  // Few rows: one a work-item, then smaller groups, while the groups would not fill the device (8 here).
  {
    // 8 lanes a row: 64 rows a group of 256 would make 5 groups, 32 make 10.
    const auto p = only_plan(schedule_with(sum(rows_of(300, 32), 1), t));
    CHECK(int(p.reduce.rows_per_item) == 1);
    CHECK(int(p.reduce.local_size) == 256);
    CHECK(int(p.reduce.rows_per_group) == 32);
    // 100 rows: groups of 64, 8 rows each, make 13.
    const auto q = only_plan(schedule_with(sum(rows_of(100, 32), 1), t));
    CHECK(int(q.reduce.rows_per_item) == 1);
    CHECK(int(q.reduce.local_size) == 64);
    CHECK(int(q.reduce.rows_per_group) == 8);
  }
  // Arg-reductions too (test_lane_args.cpp).
  const auto x = rows_of(4099, 32);
  CHECK(only_plan(schedule_with(argmax(x, 1), t)).reduce.lanes_per_row == 2);
  // Not taken: columns, a CPU, FUSECL_LANE_ROWS=0's tuning, rows not
  // aligned to vectors, a strided row.
  auto off = t;
  off.lane_rows = false;
  CHECK(only_plan(schedule_with(sum(rows_of(32, 4099), 0), t)).reduce.lanes_per_row == 0);
  CHECK(only_plan(schedule_with(sum(x, 1), off)).reduce.lanes_per_row == 0);
  const auto wide = rows_of(4099, 37);
  // Rows of 32 starting mid-vector, or 37 apart: no whole vectors, so in
  // lanes of scalars; so rows of 33.
  const auto mid = only_plan(schedule_with(sum(slice(wide, 1, 1, 33), 1), t));
  CHECK((mid.reduce.lanes_per_row == 4 && mid.width == 1));
  const auto apart = only_plan(schedule_with(sum(slice(wide, 1, 0, 32), 1), t));
  CHECK((apart.reduce.lanes_per_row == 4 && apart.width == 1));
  CHECK(only_plan(schedule_with(sum(slice(wide, 1, 1, 34), 1), t)).reduce.lanes_per_row == 0);
  // max and min over rows of fewer than 24 such elements keep a work-item a
  // row; argmax takes lanes.
  CHECK(only_plan(schedule_with(max(rows_of(4099, 21), 1), t)).reduce.lanes_per_row == 0);
  CHECK(only_plan(schedule_with(min(rows_of(4099, 25), 1), t)).reduce.lanes_per_row == 4);
  CHECK(only_plan(schedule_with(argmax(rows_of(4099, 21), 1), t)).reduce.lanes_per_row == 4);
  CHECK(only_plan(schedule_with(sum(slice(rows_of(4099, 64), 1, 0, 64, 2), 1), t)).reduce.lanes_per_row == 0);
  // FUSECL_LOG=schedule says so.
  const std::string log = detail::describe(schedule_with(sum(rows_of(4099, 24), 1), t), "gpu");
  INFO(log);
  CHECK(log.find("short rows in lanes: 2 work-item(s) a row, 3 vector(s) of 4 each, 2 row(s) a work-item, 256 rows a work-group of 256") !=
        std::string::npos);
  const std::string padded = detail::describe(schedule_with(sum(rows_of(4099, 10), 1), t), "gpu");
  INFO(padded);
  CHECK(padded.find("short rows in lanes: 2 work-item(s) a row, up to 3 vector(s) of 2 each (5 a row, some lanes idle), 2 row(s) a work-item") !=
        std::string::npos);
}

TEST_CASE("reductions over short rows in lanes: against the host", "[reduce][lane_rows]") {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  const bool fp64 = default_device().info().fp64;
  for (const int warp : {32, 0}) {
    const auto t = gpu_lane_tuning(dev, warp);
    // Empty rows, and an empty array: no vector to read (the GPU suite's
    // poisoned outputs once caught a sum of nothing read in lanes).
    for (const Shape& shape : {Shape{7, 0}, Shape{0}}) {
      auto e = sum(from_host(std::vector<float>{}, shape), -1);
      auto ei = sum(from_host(std::vector<std::int32_t>{}, shape), -1);
      (void)run_with(e, t);
      (void)run_with(ei, t);
      for (const float v : e.to_host()) REQUIRE(v == 0.0f);
      for (const std::int64_t v : ei.to_host()) REQUIRE(v == 0);
      REQUIRE(e.to_host().size() == (shape.ndim() == 2 ? 7u : 1u));
    }
    // Rows of 10, 14, 20, 28, 36, 44, 60, 100 and 124 are no whole number
    // of lanes' vectors: some lanes idle in the last round.
    for (const std::int64_t m : {4, 8, 10, 12, 14, 16, 20, 24, 28, 32, 36, 44, 48, 60, 64, 96, 100, 124, 128}) {
      for (const std::int64_t rows : {1, 7, 1001, 4099}) {
        const std::size_t N = std::size_t(rows * m);
        auto h = spread_values<float>(N, 0x1a + std::uint64_t(m * 31 + rows));
        // NaN and infinities at places that differ from row to row (so in every lane).
        for (std::int64_t r = 0; r < rows; r += 13) h[std::size_t(r * m + (r * 7) % m)] = std::numeric_limits<float>::quiet_NaN();
        for (std::int64_t r = 5; r < rows; r += 17) h[std::size_t(r * m + (r * 3) % m)] = -INFINITY;
        for (std::int64_t r = 6; r < rows; r += 19) h[std::size_t(r * m + (r * 5) % m)] = INFINITY;
        for (std::int64_t r = 3; r < rows; r += 23) h[std::size_t(r * m + (r * 11) % m)] = -0.0f;
        const auto x = from_host(h, {rows, m});
        INFO(rows << " rows of " << m << (warp ? ", warps" : ", local memory"));
        // `lanes`: whether the form is taken (rows of at most 32 vectors, 16 for moments).
        const auto run = [&](auto y, bool lanes = true) {
          const auto s = run_with(y, t);
          CHECK((only_plan(s).reduce.lanes_per_row > 0) == lanes);
          return y.to_host();
        };
        const auto mx = run(max(x, 1)), mn = run(min(x, 1)), sm = run(sum(x, 1)), me = run(mean(x, 1));
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::size_t o = std::size_t(r);
          const RowFacts f = row_facts(h.data() + r * m, m);
          // A tree over at most 128 values: within log2(m) + 4 roundings of the sum's size.
          require_row_stats(r, f, m, mx[o], mn[o], sm[o], me[o], 12 * double(std::numeric_limits<float>::epsilon()) * double(f.size) + 1e-30, 1.5);
        }
        // Integers and doubles: exact whatever the order of the sums. Sums
        // of int32 and float64 accumulate in vectors of two 8-byte values.
        std::vector<std::int32_t> hi(N);
        std::vector<double> hd(N);
        const auto spread = spread_values<float>(N, 0x99 + std::uint64_t(m));
        for (std::size_t i = 0; i < N; ++i) hi[i] = std::int32_t(spread[i] * 64), hd[i] = double(spread[i]);
        const auto xi = from_host(hi, {rows, m});
        const auto si = run(sum(xi, 1), m <= 64);
        const auto mxi = run(max(xi, 1)), mni = run(min(xi, 1));
        std::vector<double> sd;
        if (fp64 && m <= 64) sd = run(sum(from_host(hd, {rows, m}), 1));
        for (std::int64_t r = 0; r < rows; ++r) {
          std::int64_t ei = 0;
          double ed = 0;
          for (std::int64_t k = 0; k < m; ++k) ei += hi[std::size_t(r * m + k)], ed += hd[std::size_t(r * m + k)];
          REQUIRE_EACH(si[std::size_t(r)] == ei, "row " << r);
          const auto row_begin = hi.begin() + r * m, row_end = row_begin + m;
          REQUIRE_EACH(mxi[std::size_t(r)] == *std::max_element(row_begin, row_end), "row " << r);
          REQUIRE_EACH(mni[std::size_t(r)] == *std::min_element(row_begin, row_end), "row " << r);
          if (!sd.empty()) REQUIRE_EACH(sd[std::size_t(r)] == ed, "row " << r);
        }
        // var and std in one pass (float64 sums), and var with its mean in
        // one kernel: within two ulps of the long double two-pass value.
        // Rows whose first value is far from the rest (the shift), and a
        // constant row.
        if (fp64 && m <= 64) {
          auto hv = spread;
          for (std::int64_t r = 0; r < rows; r += 3) hv[std::size_t(r * m)] = 3.0e4f;
          for (std::int64_t k = 0; k < m && rows > 2; ++k) hv[std::size_t(2 * m + k)] = 7.25f;
          if (rows > 4) hv[std::size_t(4 * m + m - 1)] = std::numeric_limits<float>::quiet_NaN();
          const auto xv = from_host(hv, {rows, m});
          const bool moment_lanes = m % 4 == 0;  // rows of 10 and 14: vectors of 2, no whole number a lane
          const auto gv = run(var(xv, 1), moment_lanes), gs = run(stddev(xv, 1, false, 1), moment_lanes);
          auto v2 = var(xv, 1);
          auto mu = mean(xv, 1);
          {
            const detail::GraphLock lock{v2.node().get()};
            detail::Schedule s = detail::make_schedule({v2.node(), mu.node()}, t);
            REQUIRE(s.kernel_count() == 1);
            CHECK(s.steps[0].kernel.plan.reduce.moment == 2);
            CHECK((s.steps[0].kernel.plan.reduce.lanes_per_row > 0) == moment_lanes);
            detail::run_schedule(dev, s);
          }
          const auto gv2 = v2.to_host(), gmu = mu.to_host();
          for (std::int64_t r = 0; r < rows; ++r) {
            long double a = 0, q = 0;
            for (std::int64_t k = 0; k < m; ++k) a += hv[std::size_t(r * m + k)];
            const long double total = a;
            a /= m;
            for (std::int64_t k = 0; k < m; ++k) q += (hv[std::size_t(r * m + k)] - a) * (hv[std::size_t(r * m + k)] - a);
            if (std::isnan(double(q))) {
              REQUIRE_EACH(std::isnan(gv[std::size_t(r)]), "var of row " << r);
              REQUIRE_EACH(std::isnan(gs[std::size_t(r)]), "var of row " << r);
              REQUIRE_EACH(std::isnan(gv2[std::size_t(r)]), "var of row " << r);
              continue;
            }
            const double want = double(q / m), want_s = std::sqrt(double(q / (m - 1 > 0 ? m - 1 : 1)));
            const double ulp = std::numeric_limits<float>::epsilon();
            REQUIRE_EACH(std::fabs(double(gv[std::size_t(r)]) - want) <= 2 * ulp * want, "var of row " << r);
            REQUIRE_EACH(std::fabs(double(gv2[std::size_t(r)]) - want) <= 2 * ulp * want, "var of row " << r);
            REQUIRE_EACH(std::fabs(double(gs[std::size_t(r)]) - want_s) <= 2 * ulp * want_s, "var of row " << r);
            const float mean_want = float(float(total) / float(m));
            REQUIRE_EACH(std::fabs(gmu[std::size_t(r)] - mean_want) <= 2 * ulp * std::fabs(mean_want) + 1e-30, "var of row " << r);
          }
        }
      }
    }
  }
}

TEST_CASE("reductions over short rows in lanes: rows of scalars (no whole vectors), views", "[reduce][lane_rows]") {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  for (const int warp : {32, 0}) {
    const auto t = gpu_lane_tuning(dev, warp);
    const auto check = [&](const Array<float>& x, const std::vector<float>& h, std::int64_t rows, std::int64_t m, bool min_max_lanes) {
      INFO(rows << " rows of " << m << (warp ? ", warps" : ", local memory"));
      const auto run = [&](auto y, bool lanes) {
        const auto p = only_plan(run_with(y, t));
        CHECK((p.reduce.lanes_per_row > 0) == lanes);
        CHECK((!lanes || p.width == 1));
        return y.to_host();
      };
      const auto mx = run(max(x, 1), min_max_lanes), mn = run(min(x, 1), min_max_lanes), sm = run(sum(x, 1), true), me = run(mean(x, 1), true);
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t o = std::size_t(r);
        const RowFacts f = row_facts(h.data() + r * m, m);
        require_row_stats(r, f, m, mx[o], mn[o], sm[o], me[o], 12 * double(std::numeric_limits<float>::epsilon()) * double(f.size) + 1e-30, 1.5);
      }
    };
    for (const std::int64_t m : {17, 21, 25, 31})
      for (const std::int64_t rows : {7, 1001}) {
        const std::size_t N = std::size_t(rows * m);
        auto h = spread_values<float>(N, 0x2b + std::uint64_t(m * 31 + rows));
        for (std::int64_t r = 0; r < rows; r += 13) h[std::size_t(r * m + (r * 7) % m)] = std::numeric_limits<float>::quiet_NaN();
        for (std::int64_t r = 5; r < rows; r += 17) h[std::size_t(r * m + (r * 3) % m)] = -INFINITY;
        for (std::int64_t r = 6; r < rows; r += 19) h[std::size_t(r * m + (r * 5) % m)] = INFINITY;
        for (std::int64_t r = 3; r < rows; r += 23) h[std::size_t(r * m + (r * 11) % m)] = -0.0f;
        check(from_host(h, {rows, m}), h, rows, m, m >= 24);
        // int32 sums: exact.
        const auto spread = spread_values<float>(N, 0x2d + std::uint64_t(m));
        std::vector<std::int32_t> hi(N);
        for (std::size_t i = 0; i < N; ++i) hi[i] = std::int32_t(spread[i] * 64) | 1;
        const auto si = sum(from_host(hi, {rows, m}), 1);
        CHECK(only_plan(run_with(si, t)).reduce.lanes_per_row > 0);
        const auto gi = si.to_host();
        for (std::int64_t r = 0; r < rows; ++r) {
          std::int64_t e = 0;
          for (std::int64_t k = 0; k < m; ++k) e += hi[std::size_t(r * m + k)];
          REQUIRE_EACH(gi[std::size_t(r)] == e, "row " << r);
        }
      }
    // Views: rows of 32 starting one element in, 37 apart.
    const std::int64_t rows = 1001;
    const auto hw = spread_values<float>(std::size_t(rows * 37), 0x2c);
    std::vector<float> h;
    for (std::int64_t r = 0; r < rows; ++r) h.insert(h.end(), hw.begin() + r * 37 + 1, hw.begin() + r * 37 + 33);
    check(slice(from_host(hw, {rows, 37}), 1, 1, 33), h, rows, 32, true);
  }
}

TEST_CASE("reductions over short rows in lanes: a fused body, rows over two axes, views", "[reduce][lane_rows]") {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  const auto t = gpu_lane_tuning(dev, 32);
  // sum(x * y + 1) over the last two axes of 3 x 333 x 4 x 8 (rows of 32),
  // y broadcast along the first two axes; and a slice of whole rows.
  const std::int64_t a = 3, b = 333, c = 4, d = 8;
  const auto hx = spread_values<float>(std::size_t(a * b * c * d), 0x44);
  const auto hy = spread_values<float>(std::size_t(c * d), 0x45);
  const auto x = from_host(hx, {a, b, c, d});
  const auto y = from_host(hy, {c, d});
  auto s = sum(x * y + 1.0f, {2, 3});
  const auto sch = run_with(s, t);
  CHECK(only_plan(sch).reduce.lanes_per_row == 8);
  const auto got = s.to_host();
  REQUIRE(got.size() == std::size_t(a * b));
  for (std::int64_t o = 0; o < a * b; ++o) {
    long double total = 0, size = 0;
    for (std::int64_t k = 0; k < c * d; ++k) {
      const long double e = (long double)(hx[std::size_t(o * c * d + k)] * hy[std::size_t(k)]) + 1.0L;
      total += e, size += std::fabs(e);
    }
    INFO("output " << o);
    REQUIRE(std::fabs(double(got[std::size_t(o)]) - double(total)) <= 8 * 1.2e-7 * double(size));
  }
  // Rows 2 .. 1000 of a 1001 x 16 array (a view whose rows stay aligned).
  const auto hz = spread_values<float>(1001 * 16, 0x46);
  const auto z = slice(from_host(hz, {1001, 16}), 0, 2, 1001);
  auto mz = max(z, 1);
  CHECK(only_plan(run_with(mz, t)).reduce.lanes_per_row == 4);
  const auto gz = mz.to_host();
  for (std::int64_t r = 0; r < 999; ++r)
    REQUIRE(gz[std::size_t(r)] == *std::max_element(hz.begin() + (r + 2) * 16, hz.begin() + (r + 3) * 16));
}
