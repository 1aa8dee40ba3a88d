// Reductions over rows with several rows a work-group (codegen
// ReduceSpec::rows_per_group for GroupPerOutput kernels, scheduler.cpp's
// share_groups): on GPUs a group of one row of at most 32 work-items is too
// small for the device to keep enough of them in flight; on CPUs every row
// is one work-item's, looping over it in vectors. The layouts are a GPU's
// and a CPU's, set on any device's tuning; the kernels run on the device at hand
// (their partials meeting in local memory; through warp shuffles where the
// device has warps, as NVIDIA's does). Row counts leave the last group
// partly past the last row; rows hold NaN and infinities at positions that
// differ from row to row; every lane of every vector holds a different value.
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
#include <type_traits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// A GPU's reduction layout (device_rows.hpp), shuffles as the device has them.
detail::DeviceTuning gpu_groups(detail::DeviceState& dev) {
  return gpu_reduction_tuning(dev, false);  // rows in lanes: test_lane_rows.cpp
}

// A CPU's (src/launch.cpp; device_rows.hpp's cpu_row_layout): groups of
// 16, 64-byte vectors, a work-item a row, few groups to fill the device,
// rows in four compensated chains; float16 moments, no shuffles.
detail::DeviceTuning cpu_groups(detail::DeviceState& dev) {
  auto t = detail::tuning_of(dev);
  cpu_row_layout(t, false);
  t.moment_width = 16;
  t.one_pass_moments = true;
  t.row_warp = 0;
  t.lane_rows = false;
  return t;
}

}  // namespace

TEST_CASE("reductions over short rows, several rows a work-group: layouts", "[reduce][group_rows]") {
  const auto x_of = [](std::int64_t rows, std::int64_t m) {
    return from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m});
  };
  auto& dev = *x_of(1, 1).node()->device;
  const auto t = gpu_groups(dev);
  // Work-items a row: the most that hold 16 elements each or more, one
  // where two would not; several rows a group only where they are within a
  // warp (with shuffles, a whole warp's), else the layout of one row a
  // group; rows of 8 and 16 a work-item each too (a work-item an output
  // otherwise, in scalars).
  enum Share { always, with_warps, never };
  struct Case {
    std::int64_t m;
    int per_row;
    Share share;
  };
  for (const Case c : {Case{8, 1, always}, Case{16, 1, always}, Case{17, 1, always}, Case{31, 1, always}, Case{32, 2, always},
                       Case{256, 16, always}, Case{257, 16, always}, Case{1000, 32, with_warps},
                       Case{1500, 32, never}, Case{5000, 128, never}, Case{8192, 256, never}}) {
    for (const int warp : {0, 32}) {
      INFO("sum over 1001 rows of " << c.m << (warp ? ", warps of 32" : ""));
      auto tw = t;
      tw.row_warp = warp;
      const auto p = only_plan(schedule_with(sum(x_of(1001, c.m), 1), tw));
      CHECK(p.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
      CHECK(p.reduce.local_size / p.reduce.rows_per_group == c.per_row);
      const bool shared = c.share == always || (c.share == with_warps && warp == 32);
      // As many rows as fill 256 work-items, halved while the groups do not fill the device (8 here).
      int R = 256 / c.per_row;
      while ((1001 + R - 1) / R < 8) R /= 2;
      CHECK(int(p.reduce.rows_per_group) == (shared ? R : 1));
      CHECK(int(p.reduce.row_warp) == warp);
      const std::string text = codegen::render(p, "k");
      CHECK((text.find("o < n") != std::string::npos) == shared);
      CHECK((text.find("shfl.sync") != std::string::npos) == (warp > 0 && c.per_row > 1));
      if (warp && c.per_row <= 32) CHECK(text.find("barrier(") == std::string::npos);
      // A maximum of ints spells its operands twice, in a conditional: each
      // shuffle must still be one statement, run by every lane of the warp.
      if (warp) {
        const auto xi = from_host(std::vector<std::int32_t>(std::size_t(1001 * c.m), 1), {1001, c.m});
        const std::string ti = codegen::render(only_plan(schedule_with(max(xi, 1), tw)), "k");
        std::size_t shuffles = 0;
        for (std::size_t at = ti.find("fcl_shfl_down(as_uint"); at != std::string::npos; at = ti.find("fcl_shfl_down(as_uint", at + 1))
          ++shuffles;
        int levels = 0;
        for (int l = std::min(c.per_row, 32); l > 1; l /= 2) ++levels;
        CHECK(shuffles == std::size_t(levels));
      }
    }
  }
  // FUSECL_LOG=schedule says so.
  {
    const auto s = schedule_with(sum(x_of(1001, 256), 1), t);
    const std::string log = detail::describe(s, "gpu");
    INFO(log);
    CHECK(log.find("16 short rows a work-group of 256 (16 work-items a row)") != std::string::npos);
  }
  // Few rows: fewer a group, so that the groups fill the device (8 here).
  CHECK(only_plan(schedule_with(sum(x_of(20, 256), 1), t)).reduce.rows_per_group == 2);
  CHECK(only_plan(schedule_with(sum(x_of(8, 256), 1), t)).reduce.rows_per_group == 1);
  // A CPU: a work-item a row of any length, 16 rows a group (fewer where
  // the groups would not fill the device, 4 here), the row in vectors with
  // its chains; one row a group where two would leave groups too few.
  const auto cpu = cpu_groups(dev);
  for (const std::int64_t m : {16, 17, 20, 32, 256, 1000, 70000}) {
    for (const std::int64_t rows : {1001, 20, 9}) {
      INFO("a CPU, " << rows << " rows of " << m);
      const auto p = only_plan(schedule_with(sum(x_of(rows, m), 1), cpu));
      CHECK(p.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
      CHECK(int(p.reduce.rows_per_group) == (rows == 1001 ? 16 : rows == 20 ? 4 : 2));
      CHECK(p.reduce.local_size == p.reduce.rows_per_group);
      CHECK(p.width == (m < 64 ? 8 : 16));  // fewer than 4 vectors of 16 a row: 8 (scheduler.cpp)
      // A maximum too, but over rows of 16 (a work-item an output: no compensation to spare).
      const auto pm = only_plan(schedule_with(max(x_of(rows, m), 1), cpu));
      CHECK((pm.reduce.strategy == codegen::ReduceStrategy::ThreadPerOutput) == (m == 16));
      if (m > 16) CHECK(pm.reduce.local_size == pm.reduce.rows_per_group);
      if (m > 16) CHECK(pm.reduce.rows_per_group == p.reduce.rows_per_group);
    }
  }
  {
    const std::string log = detail::describe(schedule_with(sum(x_of(1001, 300), 1), cpu), "cpu");
    INFO(log);
    CHECK(log.find("16 short rows a work-group of 16 (a work-item a row)") != std::string::npos);
  }
  CHECK(only_plan(schedule_with(sum(x_of(4, 1 << 20), 1), cpu)).reduce.rows_per_group == 1);
  // Arg-reductions share groups as sums do: each row's value and index meet
  // in the row's part of local memory, not through shuffles.
  for (const int warp : {0, 32}) {
    auto tw = t;
    tw.row_warp = warp;
    const auto pa = only_plan(schedule_with(argmax(x_of(1001, 256), 1), tw));
    CHECK(pa.reduce.rows_per_group == 16);
    CHECK(pa.reduce.local_size / pa.reduce.rows_per_group == 16);
    CHECK(pa.reduce.row_warp == 0);
  }
  // Rows of 16 or fewer keep a work-item an output: of 4 and 12 (measured
  // faster so), arg-reductions, too few rows for two a group, and columns;
  // a CPU's rows of 16 take a work-item a row in vectors for float sums and
  // var (whose scalar form adds one by one with compensation), not of 12.
  const auto per_output = [&](const auto& y, const detail::DeviceTuning& tu) {
    return only_plan(schedule_with(y, tu)).reduce.strategy == codegen::ReduceStrategy::ThreadPerOutput;
  };
  CHECK(per_output(sum(x_of(1001, 4), 1), t));
  CHECK(per_output(sum(x_of(1001, 12), 1), t));
  CHECK(per_output(argmax(x_of(1001, 16), 1), t));
  CHECK(per_output(sum(x_of(15, 16), 1), t));
  CHECK(!per_output(sum(x_of(16, 16), 1), t));
  CHECK(!per_output(sum(x_of(1001, 16), 1), cpu));
  CHECK(only_plan(schedule_with(sum(x_of(1001, 16), 1), cpu)).reduce.rows_per_group == 16);
  CHECK(per_output(sum(x_of(1001, 12), 1), cpu));
  CHECK(per_output(sum(x_of(1001, 8), 1), cpu));  // no whole 16-float vector
  CHECK(per_output(max(x_of(1001, 8), 1), cpu));
  CHECK(per_output(max(x_of(1001, 16), 1), cpu));
  CHECK(per_output(sum(from_host(std::vector<std::int32_t>(1001 * 16, 1), {1001, 16}), 1), cpu));  // exact: no compensation
  CHECK(per_output(argmax(x_of(1001, 300), 1), cpu) == false);
  {
    // A CPU's arg-reductions a work-item a row in vectors too (each lane's index beside its value).
    const auto pa = only_plan(schedule_with(argmax(x_of(1001, 300), 1), cpu));
    CHECK(pa.reduce.rows_per_group == 16);
    CHECK(pa.width == 16);
  }
  CHECK(per_output(sum(x_of(16, 1001), 0), t));
  {
    const std::string log = detail::describe(schedule_with(sum(x_of(1001, 16), 1), t), "gpu");
    INFO(log);
    CHECK(log.find("128 short rows a work-group of 128 (a work-item a row)") != std::string::npos);
  }
  // Moments (double2 sums): the same work-items a row; over rows of 16 a
  // work-item a row, but over rows of 8 a work-item an output (its one
  // division at the end measured faster on an H200 than the shared layout).
  if (default_device().info().fp64) {
    const auto p = only_plan(schedule_with(var(x_of(1001, 256), 1), t));
    CHECK(p.reduce.moment == 1);
    CHECK(p.reduce.local_size / p.reduce.rows_per_group == 16);
    const auto p16 = only_plan(schedule_with(var(x_of(1001, 16), 1), t));
    CHECK(p16.reduce.moment == 1);
    CHECK(p16.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
    CHECK(p16.reduce.local_size / p16.reduce.rows_per_group == 1);
    const auto p8 = only_plan(schedule_with(var(x_of(1001, 8), 1), t));
    CHECK(p8.reduce.moment == 1);
    CHECK(p8.reduce.strategy == codegen::ReduceStrategy::ThreadPerOutput);
    CHECK(!p8.reduce.moment_blocks);
    CHECK(!per_output(sum(x_of(1001, 8), 1), t));
    // A CPU's rows of 16: var a work-item a row in vectors of 16, 16 rows a group.
    const auto c16 = only_plan(schedule_with(var(x_of(1001, 16), 1), cpu_groups(dev)));
    CHECK(c16.reduce.moment == 1);
    CHECK(c16.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
    CHECK(c16.reduce.rows_per_group == 16);
    CHECK(c16.reduce.local_size == 16);
  }
}

TEST_CASE("reductions over short rows, several rows a work-group: against the host", "[reduce][group_rows]") {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  const bool fp64 = default_device().info().fp64;
  for (const bool on_cpu : {false, true}) {
    const auto t = on_cpu ? cpu_groups(dev) : gpu_groups(dev);
    // A CPU's rows also as long as several rotations of its four chains of
    // 16-float vectors, with every remainder past them.
    std::vector<std::int64_t> lengths = {8, 16, 17, 24, 33, 100, 256, 257, 500};
    if (on_cpu) lengths.insert(lengths.end(), {4 * 16 + 16 * 2 + 5, 3 * 64 + 48, 1999});
    for (const std::int64_t m : lengths) {
      const std::int64_t rows = on_cpu && m > 500 ? 61 : 1001;
      const std::size_t N = std::size_t(rows * m);
      auto h = spread_values<float>(N, 0x51 + std::uint64_t(m));
      // NaN and infinities at places that differ from row to row.
      for (std::int64_t r = 0; r < rows; r += 13) h[std::size_t(r * m + (r * 7) % m)] = std::numeric_limits<float>::quiet_NaN();
      for (std::int64_t r = 5; r < rows; r += 17) h[std::size_t(r * m + (r * 3) % m)] = -INFINITY;
      const auto x = from_host(h, {rows, m});
      INFO((on_cpu ? "a CPU's layout, " : "a GPU's layout, ") << rows << " rows of " << m);
      const auto run = [&](auto y) {
        (void)run_with(y, t);
        return y.to_host();
      };
      CHECK((only_plan(schedule_with(sum(x, 1), t)).reduce.rows_per_group > 1) == (!on_cpu || m >= 16));  // a CPU's rows of 8: in scalars
      const auto mx = run(max(x, 1)), mn = run(min(x, 1)), sm = run(sum(x, 1)), me = run(mean(x, 1));
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t o = std::size_t(r);
        const RowFacts f = row_facts(h.data() + r * m, m);
        require_row_stats(r, f, m, mx[o], mn[o], sm[o], me[o], 1e-6 * double(f.size) + 1e-6);
      }
      // Integers and doubles: exact whatever the order of the sums.
      std::vector<std::int32_t> hi(N);
      std::vector<double> hd(N);
      const auto spread = spread_values<float>(N, 0x99 + std::uint64_t(m));
      for (std::size_t i = 0; i < N; ++i) hi[i] = std::int32_t(spread[i] * 64), hd[i] = double(spread[i]);
      const auto xi = from_host(hi, {rows, m});
      const auto si = run(sum(xi, 1));
      const auto mxi = run(max(xi, 1)), mni = run(min(xi, 1));
      std::vector<double> sd;
      if (fp64) sd = run(sum(from_host(hd, {rows, m}), 1));
      for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t ei = 0;
        double ed = 0;
        for (std::int64_t k = 0; k < m; ++k) ei += hi[std::size_t(r * m + k)], ed += hd[std::size_t(r * m + k)];
        REQUIRE(si[std::size_t(r)] == ei);
        const auto row_begin = hi.begin() + r * m, row_end = row_begin + m;
        REQUIRE(mxi[std::size_t(r)] == *std::max_element(row_begin, row_end));
        REQUIRE(mni[std::size_t(r)] == *std::min_element(row_begin, row_end));
        if (fp64) REQUIRE(sd[std::size_t(r)] == ed);
      }
      // argmax / argmin on a GPU's layout: the first NaN, else the first
      // extreme value (ties among the ints), several rows a group. (A CPU's
      // arg-reductions: test_arg_vectors; each kernel here is one more to
      // build in CI's sanitizer run.)
      if (!on_cpu) {
        if (m > 16) CHECK(only_plan(schedule_with(argmax(x, 1), t)).reduce.rows_per_group > 1);
        const auto first_index = [m](const auto* row, bool is_max) {
          std::int64_t at = 0;
          for (std::int64_t k = 0; k < m; ++k) {
            if constexpr (std::is_floating_point_v<std::remove_cvref_t<decltype(*row)>>) {
              if (std::isnan(row[at])) break;
              if (std::isnan(row[k])) {
                at = k;
                break;
              }
            }
            if (is_max ? row[k] > row[at] : row[k] < row[at]) at = k;
          }
          return at;
        };
        const auto amx = run(argmax(x, 1)), amn = run(argmin(x, 1)), amxi = run(argmax(xi, 1)), amni = run(argmin(xi, 1));
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::size_t o = std::size_t(r);
          REQUIRE_EACH(amx[o] == first_index(h.data() + r * m, true), "argmax / argmin of row " << r);
          REQUIRE_EACH(amn[o] == first_index(h.data() + r * m, false), "argmax / argmin of row " << r);
          REQUIRE_EACH(amxi[o] == first_index(hi.data() + r * m, true), "argmax / argmin of row " << r);
          REQUIRE_EACH(amni[o] == first_index(hi.data() + r * m, false), "argmax / argmin of row " << r);
        }
      }
      // var in one pass (float64 sums): within two ulps of the long double two-pass value.
      if (fp64) {
        const auto gv = run(var(from_host(spread, {rows, m}), 1));
        for (std::int64_t r = 0; r < rows; ++r) {
          long double a = 0, q = 0;
          for (std::int64_t k = 0; k < m; ++k) a += spread[std::size_t(r * m + k)];
          a /= m;
          for (std::int64_t k = 0; k < m; ++k) q += (spread[std::size_t(r * m + k)] - a) * (spread[std::size_t(r * m + k)] - a);
          const double want = double(q / m);
          REQUIRE_EACH(std::fabs(double(gv[std::size_t(r)]) - want) <= 2 * std::numeric_limits<float>::epsilon() * want, "var of row " << r);
        }
      }
    }
  }
}

TEST_CASE("reductions over short rows, several rows a work-group: views", "[reduce][group_rows]") {
  // Rows of 8, 16 and 24 read through views: a slice of the columns (rows
  // start where no vector is aligned), a slice with a step (the reduced axis
  // strided), and a row broadcast to every output.
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  const std::int64_t rows = 1001, width = 53;
  const auto h = spread_values<float>(std::size_t(rows * width), 0x7e);
  const auto x = from_host(h, {rows, width});
  for (const bool on_cpu : {false, true}) {
    INFO((on_cpu ? "a CPU's layout" : "a GPU's layout"));
    const auto t = on_cpu ? cpu_groups(dev) : gpu_groups(dev);
    for (const std::int64_t m : {8, 16, 24}) {
      for (const std::int64_t start : {0, 3}) {
        for (const std::int64_t step : {1, 2}) {
          INFO(rows << " rows of " << m << " from column " << start << ", step " << step);
          const auto v = slice(x, 1, start, start + m * step, step);
          REQUIRE(v.shape() == Shape{rows, m});
          // Contiguous rows share groups (on a CPU, rows of a whole vector or more); a strided one is read a work-item an output.
          const auto p = only_plan(schedule_with(sum(v, 1), t));
          CHECK((p.reduce.rows_per_group > 1) == (step == 1 && (!on_cpu || m >= 16)));
          auto s = sum(v, 1), mx = max(v, 1);
          (void)run_with(s, t);
          (void)run_with(mx, t);
          const auto hs = s.to_host(), hm = mx.to_host();
          for (std::int64_t r = 0; r < rows; ++r) {
            long double total = 0, size = 0;
            float best = -INFINITY;
            for (std::int64_t k = 0; k < m; ++k) {
              const float e = h[std::size_t(r * width + start + k * step)];
              total += e, size += std::fabs(e), best = std::max(best, e);
            }
            REQUIRE_EACH(hm[std::size_t(r)] == best, "row " << r);
            REQUIRE_EACH(std::fabs(double(hs[std::size_t(r)]) - double(total)) <= 1e-6 * double(size) + 1e-30, "row " << r);
          }
        }
      }
      // One row broadcast to every output.
      INFO("a row of " << m << " broadcast to " << rows << " rows");
      std::vector<float> one(h.begin(), h.begin() + m);
      auto b = sum(broadcast_to(from_host(one, {1, m}), {rows, m}), 1);
      (void)run_with(b, t);
      long double total = 0;
      for (const float e : one) total += e;
      for (const float got : b.to_host()) REQUIRE(std::fabs(double(got) - double(total)) <= 1e-5 * std::fabs(double(total)) + 1e-6);
    }
  }
}
