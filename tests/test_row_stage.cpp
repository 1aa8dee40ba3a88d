// Row kernels whose rows pass through local memory (issue 13; codegen
// ReduceSpec::row_staged, render_row_stage.cpp): a group's rows are one span
// of the array, read into local memory in aligned vectors and stored from
// there, the span's first and last vectors holding other groups' elements,
// which its stores must not touch, and the array's last vector lane by lane.
// Run with a GPU's row layout on this device (device_rows.hpp). Rows of 1 to
// 1001 (a work-item a row, and up to 64), 1 to 300 rows (the last group part
// full; n * m modulo the width from 0 to 3), against the long double host
// reference of tests/support/row_patterns and bit for bit against the same
// layout without staging (the same arithmetic in the same order); loads at
// offsets that are no multiple of the width, two inputs at different ones,
// and outputs of several types from one kernel.
#include "codegen/body.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_compare.hpp"
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
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// An H200's row layout with staging as `stage` (DeviceTuning::row_stage; 2:
// every row held in registers, whatever plan_row's rule) and without skewed
// vectors, so that without staging the same rows are held element by element.
detail::DeviceTuning stage_layout(detail::DeviceState& dev, int stage, bool reciprocal = true) {
  auto t = h200_tuning(dev, 256);
  t.row_stage = stage;
  t.row_skew = false;
  t.row_reciprocal = reciprocal && t.row_reciprocal;
  return t;
}

template <class T>
codegen::KernelPlan run_one(const Array<T>& y, const detail::DeviceTuning& t) {
  return one_row_kernel(run_with(y, t));
}

}  // namespace

TEST_CASE("row fusion: rows staged through local memory", "[row]") {
  const auto all = patterns();
  for (const std::int64_t m : {1, 3, 5, 7, 17, 33, 65, 257, 1001})
    for (const std::int64_t rows : {1, 3, 129, 300})
      for (std::size_t which = 0; which < all.size(); ++which) {
        const Pattern& pat = all[which];
        // Softmax and layer norm everywhere; every pattern over rows of 5 and 257.
        if (which != 3 && which != 4 && m != 5 && m != 257) continue;
        if (rows == 1 && m > 7) continue;
        const Dims d{rows, m};
        INFO(pat.name << " over " << rows << " rows of " << m);
        const auto h = inputs(d, 1, test_seed(0x57a + std::uint64_t(m * 8 + rows) + which), pat.lo, pat.hi, m >= 3 && rows >= 4);
        const auto x = from_host(h, Shape(d));
        const auto y = pat.device(x, 1);
        const auto plan = run_one(y, stage_layout(*y.node()->device, 2));
        CHECK(int(plan.reduce.row_staged) == 16);
        CHECK(plan.width == 1);
        CHECK(codegen::row_local_bytes(plan) <= 24 * 1024);
        const auto got = y.to_host();
        check_rows(pat, h, got, d, 1);
        // The same layout loading from memory: the same bits. (Staged rows
        // of 17 take a work-item each where they would take two.)
        const auto z = pat.device(x, 1);
        const auto plain = run_one(z, stage_layout(*z.node()->device, 0));
        CHECK(plain.reduce.row_staged == 0);
        if (m == 17) {
          CHECK(plan.reduce.local_size == plan.reduce.rows_per_group);
          continue;
        }
        CHECK(plain.reduce.local_size == plan.reduce.local_size);
        CHECK(plain.reduce.row_chunks == plan.reduce.row_chunks);
        require_same_bits(got, z.to_host());
      }
}

TEST_CASE("row fusion: staged rows at offsets, of other types, several outputs", "[row]") {
  // Two inputs whose rows start at different offsets into their buffers
  // (slices of flat arrays, reshaped): each staging array's vectors start at
  // its own multiple of the width.
  for (const std::int64_t m : {5, 17, 65})
    for (const std::int64_t rows : {3, 130})
      for (const std::int64_t oa : {0, 1, 3})
        for (const std::int64_t ob : {2, 5}) {
          INFO(rows << " rows of " << m << ", offsets " << oa << " and " << ob);
          const auto ha = spread_values<float>(std::size_t(rows * m + oa), std::uint64_t(m * 7 + oa));
          const auto hb = spread_values<float>(std::size_t(rows * m + ob), std::uint64_t(m * 11 + ob));
          const auto a = reshape(slice(from_host(ha, {rows * m + oa}), 0, oa, std::nullopt), {rows, m});
          const auto b = reshape(slice(from_host(hb, {rows * m + ob}), 0, ob, std::nullopt), {rows, m});
          const auto y = a - max(b, 1, true);
          const auto plan = run_one(y, stage_layout(*y.node()->device, 2));
          CHECK(int(plan.reduce.row_staged) == 16);
          const auto got = y.to_host();
          for (std::int64_t r = 0; r < rows; ++r) {
            float e = -INFINITY;
            for (std::int64_t k = 0; k < m; ++k) e = std::max(e, hb[std::size_t(ob + r * m + k)]);
            for (std::int64_t k = 0; k < m; ++k) {
              REQUIRE_EACH(got[std::size_t(r * m + k)] == ha[std::size_t(oa + r * m + k)] - e, "row " << r << ", element " << k);
            }
          }
        }

  // x - max(x) of 1-, 2-, 4- and 8-byte types (staging vectors of 16, 8, 4
  // and 2 lanes), bit for bit; every lane a different value.
  auto check = [](auto zero, std::int64_t rows, std::int64_t m) {
    using T = decltype(zero);
    const Dims d{rows, m};
    std::vector<T> h(std::size_t(rows * m));
    std::uint64_t s = std::uint64_t(rows * 977 + m);
    for (auto& v : h) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      v = T(std::int64_t(s >> 33) % 100 - 50);
    }
    const auto x = from_host(h, Shape(d));
    const auto y = x - max(x, 1, true);
    const auto plan = run_one(y, stage_layout(*y.node()->device, 2));
    CHECK(int(plan.reduce.row_staged) == 16);
    const auto got = y.to_host();
    for (std::int64_t r = 0; r < rows; ++r) {
      T e = std::numeric_limits<T>::lowest();
      for (std::int64_t k = 0; k < m; ++k) e = std::max(e, h[std::size_t(r * m + k)]);
      for (std::int64_t k = 0; k < m; ++k) {
        REQUIRE_EACH(got[std::size_t(r * m + k)] == T(h[std::size_t(r * m + k)] - e), sizeof(T) << "-byte elements, row " << r << " of " << rows << ", element " << k << " of " << m);
      }
    }
  };
  for (const std::int64_t rows : {1, 7, 131})
    for (const std::int64_t m : {3, 9, 33}) {
      check(std::int8_t(0), rows, m);
      check(std::int16_t(0), rows, m);
      check(std::int32_t(0), rows, m);
      if (default_device().info().fp64) check(double(0), rows, m);
    }

  // Two outputs of different types from one kernel (a float and a bool
  // row): each its own staging array and vectors.
  for (const std::int64_t rows : {2, 129})
    for (const std::int64_t m : {5, 33}) {
      INFO(rows << " rows of " << m << ", two outputs");
      const auto h = spread_values<float>(std::size_t(rows * m), std::uint64_t(rows + m));
      const auto x = from_host(h, {rows, m});
      const auto mu = mean(x, 1, true);
      const auto dev = x - mu;
      const auto above = x > mu;
      auto& d = *x.node()->device;
      const auto t = stage_layout(d, 2);
      {
        const detail::GraphLock lock{dev.node().get()};
        detail::Schedule s = detail::make_schedule({dev.node(), above.node()}, t);
        REQUIRE(s.kernel_count() == 1);
        CHECK(int(s.steps[0].kernel.plan.reduce.row_staged) == 16);
        CHECK(s.steps[0].kernel.plan.outputs.size() == 2);
        detail::run_schedule(d, s);
      }
      const auto got = dev.to_host();
      const auto up = above.to_host();
      for (std::int64_t r = 0; r < rows; ++r) {
        long double sum = 0;
        for (std::int64_t k = 0; k < m; ++k) sum += h[std::size_t(r * m + k)];
        for (std::int64_t k = 0; k < m; ++k) {
          const std::size_t i = std::size_t(r * m + k);
          // The mean to within its rounding (integers up to 1e5: exact sums).
          const float want_mean = float(sum / m);
          REQUIRE_EACH(got[i] == h[i] - want_mean, "row " << r << ", element " << k);
          REQUIRE_EACH(bool(up[i]) == (h[i] > want_mean), "row " << r << ", element " << k);
        }
      }
    }
}

TEST_CASE("row fusion: where rows are staged", "[row]") {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  auto softmax = [](const Array<float>& x) {
    const auto e = exp(x - max(x, 1, true));
    return e / sum(e, 1, true);
  };
  auto plan_of = [&](std::int64_t rows, std::int64_t m, const detail::DeviceTuning& t) {
    const auto y = softmax(from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m}));
    const detail::Schedule s = schedule_with(y, t);
    REQUIRE(s.kernel_count() == 1);
    return s.steps[0].kernel.plan;
  };
  auto h200 = h200_tuning(dev, 256);
  h200.row_stage = 1;
  // Short rows that are no multiple of the width, more than a vector a
  // work-item: staged, a work-item a row below 32 elements.
  for (const std::int64_t m : {5, 7, 9, 17, 31, 33, 39}) {
    INFO("rows of " << m);
    const auto p = plan_of(300, m, h200);
    CHECK(int(p.reduce.row_staged) == 16);
    CHECK_FALSE(p.reduce.row_skew);
    CHECK(p.width == 1);
    CHECK(p.reduce.local_size / p.reduce.rows_per_group == (m < 32 ? 1 : 4));
    CHECK(int(p.reduce.row_chunks) == (m < 32 ? m : (m + 3) / 4));
  }
  // A vector or less a work-item (rows of 3), rows past 40, whole vectors,
  // and the deep form's rows: not (row_stage 2: all but the deep form's).
  for (const std::int64_t m : {3, 8, 41, 45, 65, 129, 257, 1001, 1024, 5001, 8192}) {
    INFO("rows of " << m);
    CHECK(plan_of(300, m, h200).reduce.row_staged == 0);
  }
  // FUSECL_LOG=schedule says which.
  for (const std::int64_t m : {5, 65}) {
    const auto y = softmax(from_host(std::vector<float>(std::size_t(300 * m), 0.5f), {300, m}));
    const bool said = detail::describe(schedule_with(y, h200), "this device").find("; the group's rows staged through local memory") !=
                      std::string::npos;
    CHECK(said == (m == 5));
  }
  auto everywhere = h200;
  everywhere.row_stage = 2;
  for (const std::int64_t m : {3, 45, 65, 1024, 2047}) CHECK(int(plan_of(300, m, everywhere).reduce.row_staged) == 16);
  CHECK(plan_of(300, 5001, everywhere).reduce.row_staged == 0);
  // FUSECL_ROW_STAGE=0, and a CPU's layout (a work-item a row, in place): never.
  auto none = h200;
  none.row_stage = 0;
  CHECK(plan_of(300, 5, none).reduce.row_staged == 0);
  auto cpu = detail::tuning_of(dev);
  cpu_row_layout(cpu, false);
  cpu.row_stage = 1;
  CHECK(plan_of(300, 5, cpu).reduce.row_staged == 0);
  // Staging arrays past 24 KiB a group: fewer rows to a group where a row is
  // a work-item's (rows of 31 a work-item each, four inputs and an output:
  // 32 rows, not 128), else none (rows of 2047, 128 work-items of 16
  // elements: 8 KiB an array).
  for (const std::int64_t m : {31, 2047}) {
    INFO("four inputs, rows of " << m);
    auto in = [m] { return from_host(std::vector<float>(std::size_t(300 * m), 0.5f), {300, m}); };
    const auto r = in() * in() - max(in() * in(), 1, true);
    const detail::Schedule s = schedule_with(r, everywhere);
    REQUIRE(s.kernel_count() == 1);
    const auto& p = s.steps[0].kernel.plan;
    CHECK(int(p.reduce.row_staged) == (m == 31 ? 16 : 0));
    if (m == 31) CHECK(p.reduce.rows_per_group == 32);
    CHECK(codegen::row_local_bytes(p) <= 24 * 1024);
  }
  // The counts: one upload, one kernel, one download.
  const auto h = spread_values<float>(300 * 5, 7);
  reset_stats();
  const auto x = from_host(h, {300, 5});
  const auto y = softmax(x);
  run_one(y, stage_layout(dev, 1));
  const auto got = y.to_host();
  const auto st = stats();
  CHECK(st.uploads == 1);
  CHECK(st.kernels_launched == 1);
  CHECK(st.downloads == 1);
}
