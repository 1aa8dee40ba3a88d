// Row kernels whose work-items' partials meet within NVIDIA warps through
// shfl.sync (issue 13; codegen ReduceSpec::row_warp, render_row_warp.cpp),
// and the fan-in of the meet in local memory elsewhere (plan_row.cpp's
// meet_fanin). The plans and their text are checked on any device under an
// H200's row layout; the kernels run only where the device has warps
// (NVIDIA: DeviceTuning::row_warp), since no other compiler takes PTX.
// There: rows of 1 to 1024 work-items (one warp, several rows to a warp,
// several warps to a row), groups with rows past the last (whose work-items
// must still take part in every shuffle), partials of 4 and 8 bytes (and of 1,
// which meet in local memory), against the long double host reference of
// tests/support/row_patterns and bit for bit where one rounding gives the
// result.
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

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// An H200's row layout (device_rows.hpp) with `warp` lanes shuffling (0:
// none), and short rows not staged (a work-item a row there, no partials).
detail::DeviceTuning warp_layout(detail::DeviceState& dev, int warp) {
  auto t = h200_tuning(dev, 256);
  t.row_stage = 0;
  t.row_warp = warp;
  return t;
}

template <class T>
codegen::KernelPlan plan_of(const Array<T>& y, const detail::DeviceTuning& t) {
  return one_row_kernel(schedule_with(y, t));
}

int per_row(const codegen::KernelPlan& p) { return p.reduce.local_size / p.reduce.rows_per_group; }

bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

bool device_has_warps() { return detail::tuning_of(*from_host(std::vector<float>{0.f}, {1}).node()->device).row_warp > 0; }

}  // namespace

TEST_CASE("row fusion: where a row's partials meet within warps", "[row]") {
  const auto x_of = [](std::int64_t rows, std::int64_t m) {
    return from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m});
  };
  const auto softmax = [](const Array<float>& x) {
    const auto e = exp(x - max(x, 1, true));
    return e / sum(e, 1, true);
  };
  auto& dev = *x_of(1, 1).node()->device;
  // Rows of 2 to 64 work-items (the deep form's past 2048: a group a row),
  // enough rows that every group is whole warps.
  for (const std::int64_t m : {17, 65, 129, 257, 1001, 5001}) {
    INFO("softmax over 300 rows of " << m);
    const auto y = softmax(x_of(300, m));
    const auto on = plan_of(y, warp_layout(dev, 32)), off = plan_of(y, warp_layout(dev, 0));
    CHECK(int(on.reduce.row_warp) == 32);
    CHECK(off.reduce.row_warp == 0);
    const std::string text = codegen::render(on, "k"), plain = codegen::render(off, "k");
    CHECK(has(text, "shfl.sync.down.b32"));
    // A row within one warp: its first lane's value to the others, no barrier; a longer row: one barrier a reduction.
    CHECK(has(text, "shfl.sync.idx.b32") == (per_row(on) <= 32));
    CHECK(has(text, "barrier(") == (per_row(on) > 32));
    CHECK_FALSE(has(plain, "shfl"));
    CHECK(has(plain, "barrier("));
  }
  // Groups that are no whole warps (3 rows of 17: a group of 8 work-items): local memory.
  {
    const auto p = plan_of(softmax(x_of(3, 17)), warp_layout(dev, 32));
    CHECK(p.reduce.local_size % 32 != 0);
    CHECK(p.reduce.row_warp == 0);
    CHECK_FALSE(has(codegen::render(p, "k"), "shfl"));
  }
  // Partials of 1 byte (the max of int8) meet in local memory; the plan's
  // 4-byte ones (x - max of int32) through shuffles.
  {
    const auto b = from_host(std::vector<std::int8_t>(300 * 257, 3), {300, 257});
    const auto text = codegen::render(plan_of(b - max(b, 1, true), warp_layout(dev, 32)), "k");
    CHECK_FALSE(has(text, "shfl"));
    CHECK(has(text, "barrier("));
    const auto i = from_host(std::vector<std::int32_t>(300 * 257, 3), {300, 257});
    CHECK(has(codegen::render(plan_of(i - max(i, 1, true), warp_layout(dev, 32)), "k"), "shfl.sync.down.b32"));
  }
  // In local memory the fan-in is the power of two at or above the square
  // root of the row's work-items, at most the setting (FUSECL_ROW_FANIN).
  struct Fanin {
    std::int64_t m;
    int T, fanin;
  };
  for (const Fanin f : {Fanin{65, 8, 4}, Fanin{129, 16, 4}, Fanin{257, 16, 4}, Fanin{511, 32, 8}, Fanin{1001, 64, 8}}) {
    INFO("rows of " << f.m);
    auto t = warp_layout(dev, 0);
    const auto p = plan_of(softmax(x_of(300, f.m)), t);
    CHECK(per_row(p) == f.T);
    CHECK(int(p.reduce.row_fanin) == f.fanin);
    t.row_fanin = 4;
    CHECK(int(plan_of(softmax(x_of(300, f.m)), t).reduce.row_fanin) == 4);
    t.row_fanin = 0;  // a binary tree
    CHECK(plan_of(softmax(x_of(300, f.m)), t).reduce.row_fanin == 0);
  }
}

TEST_CASE("row fusion: which devices' row kernels shuffle within warps", "[row]") {
  // NVIDIA's (the warp and compute capability of cl_nv_device_attribute_query):
  // shuffles from compute capability 3.0 (Kepler); no other device answers.
  const DeviceInfo& here = default_device().info();
  if (here.warp_size == 0) CHECK(here.nv_compute_capability == 0);
  if (std::getenv("FUSECL_ROW_SHUFFLE")) {
    WARN("FUSECL_ROW_SHUFFLE is set: which devices shuffle by default is not checked");
    return;
  }
  DeviceInfo info = here;
  info.type = "GPU";
  for (const auto& [warp, capability, shuffles] : {std::tuple{0u, 0u, 0}, std::tuple{32u, 20u, 0}, std::tuple{32u, 30u, 32},
                                                   std::tuple{32u, 90u, 32}, std::tuple{64u, 90u, 0}}) {
    INFO("a warp of " << warp << ", compute capability " << capability);
    info.warp_size = warp;
    info.nv_compute_capability = capability;
    CHECK(detail::default_tuning(info).row_warp == shuffles);
  }
}

TEST_CASE("row fusion: partials meeting within warps, on a device with warps", "[row]") {
  if (!device_has_warps()) {
    WARN("this device has no warps to shuffle in (only NVIDIA's do): the kernels of this case did not run");
    return;
  }
  const auto all = patterns();
  // Rows of 1 to 1024 work-items (a row of 2049 and 5001: the deep form's
  // large groups), 67 rows: the last group has rows past the last.
  for (const std::int64_t m : {2, 9, 17, 33, 65, 129, 257, 513, 1001, 2049, 5001})
    for (std::size_t which = 0; which < all.size(); ++which) {
      const Pattern& pat = all[which];
      const Dims d{67, m};
      INFO(pat.name << " over 67 rows of " << m);
      const auto h = inputs(d, 1, test_seed(0x3a7 + std::uint64_t(m) * 8 + which), pat.lo, pat.hi, m >= 3);
      const auto y = pat.device(from_host(h, Shape(d)), 1);
      const detail::Schedule s = run_with(y, warp_layout(*y.node()->device, 32));
      REQUIRE(s.kernel_count() == 1);
      CHECK(int(s.steps[0].kernel.plan.reduce.row_warp) == (per_row(s.steps[0].kernel.plan) > 1 ? 32 : 0));  // rows of up to 16: a work-item each
      check_rows(pat, h, y.to_host(), d, 1);
    }
  // x - max, x - min and x - sum of 4- and 8-byte integers and doubles, and
  // x - max of int8 (in local memory): exact, so bit for bit, every work-item
  // of a row with the same value.
  auto check = [](auto zero, std::int64_t rows, std::int64_t m) {
    using T = decltype(zero);
    const Dims d{rows, m};
    const auto h = spread_values<T>(std::size_t(rows * m), std::uint64_t(rows * 977 + m));
    const auto x = from_host(h, Shape(d));
    for (const int which : {0, 1, 2}) {
      // x - sum of int64 only: other types' sums are of another type (and a float sum's order is its rounding).
      if (which == 2 && !std::is_same_v<T, std::int64_t>) continue;
      INFO((which == 0 ? "x - max" : which == 1 ? "x - min" : "x - sum") << " over " << rows << " rows of " << m << ", "
                                                                          << sizeof(T) << "-byte elements");
      Array<T> y = which == 0 ? x - max(x, 1, true) : x - min(x, 1, true);
      if constexpr (std::is_same_v<T, std::int64_t>)
        if (which == 2) y = x - sum(x, 1, true);
      const detail::Schedule s = run_with(y, warp_layout(*y.node()->device, 32));
      REQUIRE(s.kernel_count() == 1);
      const auto got = y.to_host();
      for (std::int64_t r = 0; r < rows; ++r) {
        T e = which == 0 ? std::numeric_limits<T>::lowest() : which == 1 ? std::numeric_limits<T>::max() : T(0);
        for (std::int64_t k = 0; k < m; ++k) {
          const T v = h[std::size_t(r * m + k)];
          e = which == 0 ? std::max(e, v) : which == 1 ? std::min(e, v) : T(e + v);
        }
        for (std::int64_t k = 0; k < m; ++k) {
          const std::size_t i = std::size_t(r * m + k);
          const T want = T(h[i] - e);
          REQUIRE_EACH(std::memcmp(&got[i], &want, sizeof(T)) == 0, "row " << r << ", element " << k);
        }
      }
    }
  };
  for (const std::int64_t m : {9, 33, 257, 1001, 4097}) {
    check(std::int32_t(0), 67, m);
    check(std::int64_t(0), 67, m);
    check(std::int8_t(0), 67, m);
    if (default_device().info().fp64) check(double(0), 67, m);
  }
}

TEST_CASE("row fusion: a driver that will not build the warp shuffles", "[row]") {
  // On a device without warps (every one but NVIDIA's) the shuffles' inline
  // PTX does not build: a device (opened for this test alone) told that it
  // has warps must say so once, then run its row kernels, and every later
  // one, with their partials meeting in local memory.
  if (device_has_warps()) {
    WARN("this device has warps: its driver builds the shuffles, so the fallback is not reached here");
    return;
  }
  const Device dev = open_device(default_device().info().id());
  auto& state = *dev.state();
  {
    const detail::GraphLock lock(state);
    detail::tuning_of(state);  // made, so that it can be changed
    state.tuning->row_warp = 32;
    h200_row_layout(*state.tuning, 256);
    state.tuning->row_stage = 0;
  }
  const std::int64_t rows = 300, m = 257;
  const auto h = spread_values<float>(std::size_t(rows * m), 0x3a7);
  auto expect = [&](const std::vector<float>& got) {
    for (std::int64_t r = 0; r < rows; ++r) {
      float e = -INFINITY;
      for (std::int64_t k = 0; k < m; ++k) e = std::max(e, h[std::size_t(r * m + k)]);
      for (std::int64_t k = 0; k < m; ++k) REQUIRE(got[std::size_t(r * m + k)] == h[std::size_t(r * m + k)] - e);
    }
  };
  reset_stats();
  {
    const auto x = from_host(h, {rows, m}, dev);
    expect((x - max(x, 1, true)).to_host());
  }
  detail::DeviceTuning t;
  {
    const detail::GraphLock lock(state);
    CHECK(state.warps_refused);
    CHECK(state.tuning->row_warp == 0);
    t = *state.tuning;
  }
  CHECK(stats().kernels_launched == 1);
  // A plan made with the shuffles (as a kept plan would be) runs without
  // them, with the kernel already built.
  t.row_warp = 32;
  const auto x = from_host(h, {rows, m}, dev);
  const auto y = x - max(x, 1, true);
  const auto built = stats().programs_built + stats().programs_loaded;
  CHECK(int(one_row_kernel(run_with(y, t)).reduce.row_warp) == 32);
  expect(y.to_host());
  CHECK(stats().programs_built + stats().programs_loaded == built);
}
