// Row kernels that take their row's length as a constant of their source
// (issue 13; codegen ReduceSpec::row_length, DeviceTuning::row_constant), and
// how many lengths of one kernel a device takes so (launch.cpp's
// length_admitted): the first 8, then the length as the argument, in one
// kernel more. Run with a GPU's row layout on this device (device_rows.hpp):
// every pattern over rows of 1 to 4099, against the long double host
// reference of tests/support/row_patterns and bit for bit against the same
// layout with the length as the argument (the same arithmetic in the same
// order).
#include "codegen/render.hpp"
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
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning length_layout(detail::DeviceState& dev, bool constant) {
  auto t = h200_tuning(dev, 256);
  t.row_constant = constant;
  return t;
}

// The device forgets the lengths it has taken as constants, so that the
// next row kernel of every class takes its own (launch.cpp's
// length_admitted: a class takes 8).
void forget_lengths(detail::DeviceState& dev) {
  const detail::GraphLock lock(dev);
  dev.row_lengths.clear();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::uint64_t programs() { return stats().programs_built + stats().programs_loaded; }

}  // namespace

TEST_CASE("row fusion: the row length a constant of the kernel", "[row]") {
  const auto all = patterns();
  for (const std::int64_t m : {1, 3, 5, 17, 31, 65, 100, 129, 257, 1001, 4099})
    for (const std::int64_t rows : {1, 7, 130})
      for (std::size_t which = 0; which < all.size(); ++which) {
        const Pattern& pat = all[which];
        // Softmax and layer norm everywhere; every pattern over rows of 31 and 257.
        if (which != 3 && which != 4 && m != 31 && m != 257) continue;
        if (rows == 1 && m > 5) continue;
        const Dims d{rows, m};
        INFO(pat.name << " over " << rows << " rows of " << m);
        const auto h = inputs(d, 1, test_seed(0x1e9 + std::uint64_t(m * 8 + rows) + which), pat.lo, pat.hi, m >= 3 && rows >= 4);
        const auto x = from_host(h, Shape(d));
        forget_lengths(*x.node()->device);
        const auto y = pat.device(x, 1);
        const auto plan = one_row_kernel(run_with(y, length_layout(*y.node()->device, true)));
        REQUIRE(plan.reduce.row_chunks > 0);  // held in registers: every row here
        CHECK(plan.reduce.row_length == std::uint32_t(m));
        const std::string text = codegen::render(plan, "k");
        CHECK(has(text, "const long m = " + std::to_string(m) + "L;"));
        CHECK(has(text, "const long m_"));
        const auto got = y.to_host();
        check_rows(pat, h, got, d, 1);
        // The same layout with the length as the argument: the same bits.
        const auto z = pat.device(x, 1);
        const auto plain = one_row_kernel(run_with(z, length_layout(*z.node()->device, false)));
        CHECK(plain.reduce.row_length == 0);
        CHECK(!has(codegen::render(plain, "k"), "const long m_"));
        auto same = plain;
        same.reduce.row_length = plan.reduce.row_length;
        CHECK(codegen::signature(same) == codegen::signature(plan));  // nothing else differs
        require_same_bits(got, z.to_host());
      }
}

TEST_CASE("row fusion: the row length a constant of the kernel, rows along axis 0", "[row]") {
  // Softmax and layer norm down columns of 17, 65 and 129 (the column form
  // where the device's tuning takes it, else strided rows held in registers
  // element by element), against the host reference and bit for bit against
  // the length as the argument.
  const auto all = patterns();
  for (const std::int64_t m : {17, 65, 129})
    for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {
      const Pattern& pat = all[which];
      const Dims d{m, 67};
      INFO(pat.name << " down 67 columns of " << m);
      const auto h = inputs(d, 1, test_seed(0xc01 + std::uint64_t(m) * 8 + which), pat.lo, pat.hi, true);
      const auto x = from_host(h, Shape(d));
      forget_lengths(*x.node()->device);
      const auto y = pat.device(x, 0);
      const auto plan = one_row_kernel(run_with(y, length_layout(*y.node()->device, true)));
      CHECK(plan.reduce.row_length == (plan.reduce.row_columns || plan.reduce.row_chunks == 0 ? 0u : std::uint32_t(m)));
      const auto got = y.to_host();
      check_rows(pat, h, got, d, 0);
      const auto z = pat.device(x, 0);
      one_row_kernel(run_with(z, length_layout(*z.node()->device, false)));
      require_same_bits(got, z.to_host());
    }
}

TEST_CASE("row fusion: where the row length is a constant", "[row]") {
  const auto x = from_host(spread_values<float>(64 * 5001, 0x5e1), {64, 5001});
  auto& dev = *x.node()->device;
  auto plan_of = [&](const Array<float>& y, const detail::DeviceTuning& t) { return one_row_kernel(schedule_with(y, t)); };
  const auto y = x - max(x, 1, true);
  // A row held in registers, in the deep form (a group of up to 512 a row);
  // FUSECL_LOG=schedule says so.
  CHECK(plan_of(y, length_layout(dev, true)).reduce.row_length == 5001);
  const std::string said = "; the row length a constant of the kernel";
  CHECK(detail::describe(schedule_with(y, length_layout(dev, true)), "this device").find(said) != std::string::npos);
  CHECK(detail::describe(schedule_with(y, length_layout(dev, false)), "this device").find(said) == std::string::npos);
  // Not where the row loops (no register budget for long rows), nor on a
  // CPU's layout, nor where the setting is off.
  auto loops = length_layout(dev, true);
  loops.row_held_bytes = 0;
  loops.row_register_elements = 1;
  const auto looping = plan_of(y, loops);
  CHECK(looping.reduce.row_chunks == 0);
  CHECK(looping.reduce.row_length == 0);
  const auto s = from_host(spread_values<float>(64 * 9, 0x5e2), {64, 9});
  CHECK(plan_of(s - max(s, 1, true), length_layout(dev, true)).reduce.row_length == 9);
  CHECK(plan_of(s - max(s, 1, true), length_layout(dev, false)).reduce.row_length == 0);
  // Also where 8 or 16 work-items hold a row element by element (rows of 41
  // to 128 here: at most 10 elements each, plan_row.cpp), and a work-item a
  // row (3), 16 (129).
  for (const std::int64_t m : {3, 45, 65, 127, 129}) {
    const auto r = from_host(spread_values<float>(std::size_t(64 * m), 0x5e3), {64, m});
    const auto p = plan_of(r - max(r, 1, true), length_layout(dev, true));
    const int per_row = p.reduce.local_size / p.reduce.rows_per_group;
    INFO("rows of " << m << ", " << per_row << " work-items each");
    CHECK(p.reduce.row_staged == 0);
    CHECK(p.reduce.row_length == std::uint32_t(m));
    CHECK(per_row == (m == 3 ? 1 : m == 45 || m == 65 ? 8 : 16));
  }
  // Rows of v whole vectors, v a power of two or one less from 4 to 32: two
  // vectors a work-item; other lengths as elements_per_item gives (16 here).
  // Rows of 28 take 8-byte vectors instead (plan_row.cpp's narrowed_rows),
  // 8 elements a work-item: 4 work-items of 4 and 3 float2.
  for (const auto& [m, items] : {std::pair<std::int64_t, int>{16, 2}, {20, 2}, {24, 2}, {28, 4}, {32, 4}, {36, 4}, {56, 4},
                                 {60, 8}, {64, 8}, {120, 8}, {124, 16}, {128, 16}, {132, 16}, {1024, 64}}) {
    const auto r = from_host(spread_values<float>(std::size_t(64 * m), 0x5e5), {64, m});
    const auto p = plan_of(r - max(r, 1, true), length_layout(dev, true));
    INFO("rows of " << m);
    CHECK(p.width == (m == 28 ? 2 : 4));
    CHECK(p.reduce.local_size / p.reduce.rows_per_group == items);
  }
  // Where the length is a constant, only the chunks from the first that may
  // pass the row's end test it, and rows past the last store nothing: rows
  // of 65 (8 work-items of 9 elements: the first 8 chunks are the row's),
  // 129 (16 of 9), 1001 (64 of 16: from chunk 15); rows of 1024 in vectors
  // of 4 test nothing (64 work-items of 4 whole vectors). With the length
  // the argument, every chunk tests it.
  for (const std::int64_t m : {65, 129, 1001, 1024})
    for (const bool constant : {true, false}) {
      const auto r = from_host(spread_values<float>(std::size_t(64 * m), 0x5e4), {64, m});
      const auto p = plan_of(r - max(r, 1, true), length_layout(dev, constant));
      INFO("rows of " << m << (constant ? ", the length a constant" : ", the length the argument"));
      const int T = p.reduce.local_size / p.reduce.rows_per_group, W = p.width;
      REQUIRE(W == (m == 1024 ? 4 : 1));
      const std::string text = codegen::render(p, "k"), F = std::to_string(m / W / T);
      const std::string at = W == 1 ? "r >= m) break;" : "q >= m / 4) break;";
      CHECK(has(text, "if (k >= " + F + " && " + at) == (constant && m != 1024));
      CHECK(has(text, W == 1 ? "if (r >= mo) break;" : "if (q >= mo / 4) break;") == !constant);
      CHECK(has(text, "  if (o < n) {\n") == constant);
    }
  // The column form (rows along axis 0 read down their columns) keeps the
  // argument; where rows along axis 0 take the general form (strided) they
  // take the constant (a GPU's tuning declines the column form here).
  {
    const auto col = plan_of(s - max(s, 0, true), length_layout(dev, true));
    CHECK(col.reduce.row_length == (col.reduce.row_columns ? 0u : 64u));
  }
  // A kernel made for one length never runs on rows of another (an
  // internal error, which no kept plan may reach: their shapes are part of
  // their key).
  {
    const auto z = s - max(s, 1, true);
    const detail::GraphLock lock{z.node().get()};
    detail::Schedule sc = detail::make_schedule({z.node()}, length_layout(dev, true));
    REQUIRE(one_row_kernel(sc).reduce.row_length == 9);
    sc.steps[0].kernel.args.reduce_count = 8;
    CHECK_THROWS_WITH(detail::run_schedule(dev, sc), Catch::Contains("made for rows of 9 run on rows of 8"));
  }
  // Only GPUs have it by default (launch.cpp).
  const detail::DeviceTuning own = detail::tuning_of(dev);
  CHECK(own.row_constant == (own.row_items_cap > 1));
}

TEST_CASE("row fusion: a kernel takes 8 row lengths as constants, then the argument", "[row]") {
  // A device opened for this test alone, whose row kernels take the row
  // length as a constant (as a GPU's do): 8 lengths of one kernel are each
  // a program of their own; a ninth and a tenth share one more program, the
  // kernel with the length as the argument; a length taken before is still
  // taken as a constant. Through evaluations (their kept plans, whose memo
  // keeps the choice) and through schedules run afresh.
  const Device dev = open_device(default_device().info().id());
  auto& state = *dev.state();
  {
    const detail::GraphLock lock(state);
    detail::tuning_of(state);  // made, so that it can be changed
    h200_row_layout(*state.tuning, 256);
  }
  const std::int64_t rows = 37;
  auto run = [&](std::int64_t m) {
    const auto h = spread_values<float>(std::size_t(rows * m), std::uint64_t(0x1e0 + m));
    const auto x = from_host(h, {rows, m}, dev);
    // An expression no other test evaluates, so that its programs are this test's.
    const auto got = ((x - max(x, 1, true)) * 0.375f).to_host();
    for (std::int64_t r = 0; r < rows; ++r) {
      float e = -INFINITY;
      for (std::int64_t k = 0; k < m; ++k) e = std::max(e, h[std::size_t(r * m + k)]);
      for (std::int64_t k = 0; k < m; ++k) {
        REQUIRE_EACH(got[std::size_t(r * m + k)] == (h[std::size_t(r * m + k)] - e) * 0.375f, "row " << r << " of " << m << ", element " << k);
      }
    }
  };
  auto taken = [&] {
    const detail::GraphLock lock(state);
    std::size_t most = 0;
    for (const auto& [key, lengths] : state.row_lengths) most = std::max(most, lengths.size());
    return most;
  };
  // Rows of 209 to 224 have the same layout (16 work-items holding up to 14
  // elements each), one element at a time where they are no multiple of 4
  // (of 4 floats, whole vectors): one class. Its first 8 lengths:
  for (std::int64_t m = 209; m <= 223; m += 2) {
    const auto before = programs();
    run(m);
    CHECK(programs() == before + 1);
  }
  CHECK(taken() == 8);
  auto before = programs();
  run(210);
  CHECK(programs() == before + 1);  // the argument's kernel
  run(214);
  run(210);
  CHECK(programs() == before + 1);  // the same kernel again
  before = programs();
  run(213);
  run(213);
  CHECK(programs() == before);  // taken before: its own kernel, built
  CHECK(taken() == 8);
  // A schedule run afresh (no kept plan) decides alike.
  const auto x = from_host(spread_values<float>(std::size_t(rows * 218), 0x1e1), {rows, 218}, dev);
  const auto y = (x - max(x, 1, true)) * 0.375f;
  before = programs();
  detail::DeviceTuning t;
  {
    const detail::GraphLock lock(state);
    t = *state.tuning;
  }
  CHECK(one_row_kernel(run_with(y, t)).reduce.row_length == 218);
  CHECK(programs() == before);  // the argument's kernel, built for 210
}
