// Pairs of reductions in one kernel (DeviceTuning::pair_kernels): where a
// GPU takes a large array's softmax or layer norm down its columns in
// today's kernels (CutReason::ColumnReductions), softmax's max and sum of
// exp(x - max) are one pass in vectors of columns (ReduceSpec::online), and
// the layer norm's mean and variance one moment kernel in column blocks;
// softmax over rows too long for a row kernel is one pass in a group per row.
// Run here with a GPU's layout (32 x 8 work-items, vectors of 4 floats),
// split into parts and not, against the long double host reference, with
// edge values in different lanes of a vector.
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

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

bool device_has_fp64() { return default_device().info().fp64; }

// A GPU's layout for rows and column reductions (launch.cpp), whatever this
// device is; `columns_from`: the bytes from which an array's rows down its
// columns take today's kernels (1: every array here).
detail::DeviceTuning gpu_columns(detail::DeviceTuning t, int target_groups) {
  h200_row_layout(t, 0, 1024);  // rows past 16 elements x 128 work-items: no deep register form
  t.row_column_bytes = 1;
  t.column_items = 32;
  t.column_rows = 8;
  t.column_blocks = true;
  t.pair_kernels = true;
  t.moment_width = 2;
  t.target_groups = target_groups;
  return t;
}


}  // namespace

TEST_CASE("column pairs: softmax and layer norm down the columns, a pair in one kernel", "[reduce][columns][pairs]") {
  const auto all = patterns();
  struct Case {
    Dims dims;
    int axis;
    int target_groups;  // 1: one part of the rows; more: split into parts, then a second kernel
  };
  for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {  // softmax, layer norm
    const Pattern& pat = all[which];
    const bool softmax = which == 3;
    if (!softmax && !device_has_fp64()) continue;  // the moment kernel's accumulators are float64
    for (const Case& c : {Case{{2000, 64}, 0, 1}, Case{{5000, 128}, 0, 64}, Case{{1500, 36}, 0, 16}, Case{{7, 900, 24}, 1, 1},
                          Case{{3, 1100, 24}, 1, 64}, Case{{3, 1100, 2, 16}, 1, 32}}) {
      INFO(pat.name << " over axis " << c.axis << " of " << Shape(c.dims).str() << ", target groups " << c.target_groups);
      auto h = inputs(c.dims, c.axis, test_seed(0xc01a + std::uint64_t(c.dims[0])), pat.lo, pat.hi, true);
      // Column 4 (a lane of the first vector but its first) rises by 100 a
      // row: softmax's reference moves at every element (each by more than 64).
      const auto rows = rows_of(c.dims, c.axis);
      for (std::size_t k = 0; k < rows[4].size(); ++k) h[std::size_t(rows[4][k])] = float(k) * 100.0f - 1000.0f;
      // Column 5: -inf everywhere (softmax: NaN, as exp(-inf - -inf) is).
      for (const auto i : rows[5]) h[std::size_t(i)] = -INFINITY;
      const auto y = pat.device(from_host(h, Shape(c.dims)), c.axis);
      const auto t = gpu_columns(detail::tuning_of(*y.node()->device), c.target_groups);
      const detail::Schedule s = run_with(y, t);
      // The pair, then the output kernel.
      REQUIRE(s.kernel_count() == 2);
      const auto& first = s.steps[0];
      CHECK(first.reason == detail::CutReason::ColumnReductions);
      CHECK(first.outputs.size() == 2);
      const auto& rs = first.kernel.plan.reduce;
      CHECK(rs.strategy == codegen::ReduceStrategy::ColumnBlock);
      CHECK(rs.kept_inner);
      CHECK(rs.online == softmax);
      CHECK(rs.moment == (softmax ? 0 : 2));
      CHECK(rs.two_stage == (c.target_groups > 1));
      CHECK(s.steps[1].kernel.plan.kind == codegen::KernelKind::Elementwise);
      // FUSECL_LOG=schedule says so.
      CHECK(detail::describe(s, "this device").find(softmax ? "; the max and the sum of exp(x - max) in one pass"
                                                            : "; the variance and the mean in one pass") != std::string::npos);
      check_rows(pat, h, y.to_host(), c.dims, c.axis);
    }
  }
}

TEST_CASE("column pairs: parts as many as fit in the target groups", "[reduce][columns][pairs]") {
  // Blocks of 32 vectors (softmax's pair in float4: 128 outputs; the moments
  // in double2 accumulators: 64) one fewer than the target groups: rounded
  // down (column_one_wave), one part and no second kernel; rounded up, two.
  const auto all = patterns();
  for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {  // softmax, layer norm
    const Pattern& pat = all[which];
    const bool softmax = which == 3;
    if (!softmax && !device_has_fp64()) continue;
    for (const Dims& dims : {Dims{1500, 1024}, Dims{3, 1100, 512}})
      for (const bool one_wave : {true, false}) {
        const int axis = dims.size() == 2 ? 0 : 1;
        INFO(pat.name << " over axis " << axis << " of " << Shape(dims).str() << (one_wave ? ", rounded down" : ", rounded up"));
        const auto h = inputs(dims, axis, test_seed(0xc01f + std::uint64_t(dims[0])), pat.lo, pat.hi, true);
        const auto y = pat.device(from_host(h, Shape(dims)), axis);
        auto t = gpu_columns(detail::tuning_of(*y.node()->device), 1);
        t.vector_bytes = 16;
        t.column_one_wave = one_wave;
        const std::int64_t n = 1024 + (dims.size() == 3 ? 512 : 0);  // 1024 or 3 x 512 outputs
        const std::int64_t blocks = n / (32 * (softmax ? 4 : 2));
        t.target_groups = int(blocks + 1);
        const detail::Schedule s = run_with(y, t);
        REQUIRE(s.kernel_count() == 2);
        const auto& k = s.steps[0].kernel;
        CHECK(k.plan.reduce.kept_inner);
        CHECK(k.plan.width == (softmax ? 4 : 2));
        CHECK(k.plan.reduce.two_stage == !one_wave);
        CHECK(k.args.groups == (one_wave ? 1 : 2));
        check_rows(pat, h, y.to_host(), dims, axis);
      }
  }
}

TEST_CASE("column blocks in vectors fit a device's largest work-group", "[reduce][columns][pairs]") {
  // A device whose groups take at most 64 work-items (a GPU's 32 x 8 would
  // not launch): 32 x 2, then 16 x 1 for 16; plain sums, softmax's pair and
  // var's moment kernel, against the host.
  const auto all = patterns();
  const Dims d{3000, 256};
  for (const std::size_t largest : {std::size_t(64), std::size_t(16)})
    for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {
      const Pattern& pat = all[which];
      if (which == 4 && !device_has_fp64()) continue;
      INFO(pat.name << ", groups of at most " << largest);
      const auto h = inputs(d, 0, test_seed(0xc01e), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), 0);
      auto t = gpu_columns(detail::tuning_of(*y.node()->device), 16);
      t.max_work_group_size = largest;
      t.one_pass_moments = true;
      const detail::Schedule s = run_with(y, t);
      REQUIRE(s.kernel_count() == 2);
      const auto& rs = s.steps[0].kernel.plan.reduce;
      CHECK(rs.kept_inner);
      CHECK(rs.local_size == largest);
      CHECK(rs.column_rows == (largest == 64 ? 2 : 1));
      check_rows(pat, h, y.to_host(), d, 0);
    }
}

TEST_CASE("pair kernels: softmax over rows too long for a row kernel, max and sum in one pass", "[reduce][pairs]") {
  // A GPU's layout with groups of at most 64 and 4 KiB of local memory: rows
  // of 3000 and 40000 floats pass both (no row kernel holds them), so the
  // max and the sum take today's kernels (RowTooLong), here one kernel for
  // both, a group per row; 40000 over few rows is split into parts (a second
  // kernel merges their pairs).
  const auto all = patterns();
  const Pattern& pat = all[3];
  for (const Dims& d : {Dims{50, 3000}, Dims{3, 40000}, Dims{2, 5, 3000}}) {
    const int axis = int(d.size()) - 1;
    INFO("softmax over the last axis of " << Shape(d).str());
    auto h = inputs(d, axis, test_seed(0xc01c + std::uint64_t(d[0])), pat.lo, pat.hi, true);
    const auto rows = rows_of(d, axis);
    for (std::size_t k = 0; k < rows[1].size(); k += 3) h[std::size_t(rows[1][k])] = float(k) * 70.0f;  // the reference moves
    const auto y = pat.device(from_host(h, Shape(d)), axis);
    auto t = gpu_columns(detail::tuning_of(*y.node()->device), 64);
    t.local_size = 64, t.max_work_group_size = 64, t.row_bytes = 4096, t.local_mem_bytes = 4096;
    const detail::Schedule s = run_with(y, t);
    REQUIRE(s.kernel_count() == 2);
    const auto& rs = s.steps[0].kernel.plan.reduce;
    CHECK(s.steps[0].reason == detail::CutReason::RowTooLong);
    CHECK(rs.online);
    CHECK(rs.strategy == codegen::ReduceStrategy::GroupPerOutput);
    CHECK(rs.two_stage == (d[0] == 3));
    CHECK(s.steps[0].kernel.plan.width == 4);
    check_rows(pat, h, y.to_host(), d, axis);
  }
  // Rows that are not whole vectors: softmax's pair or the layer norm's
  // moment kernel, then the outputs in vectors that cross from one row into
  // the next (KernelPlan::cross_rows); without those, split over segments
  // instead (two row kernels).
  for (const bool softmax : {true, false}) {
    if (!softmax && !device_has_fp64()) continue;  // the moment kernel's accumulators are float64
    const Pattern& p = all[softmax ? 3 : 4];
    for (const bool cross : {true, false}) {
      INFO(p.name << ", vectors across rows: " << cross);
      const Dims odd{50, 3001};
      const auto h = inputs(odd, 1, test_seed(softmax ? 0xc01d : 0xc01e), p.lo, p.hi, true);
      const auto y = p.device(from_host(h, Shape(odd)), 1);
      auto t = gpu_columns(detail::tuning_of(*y.node()->device), 64);
      t.local_size = 64, t.max_work_group_size = 64, t.row_bytes = 4096, t.local_mem_bytes = 4096;
      t.cross_rows = cross;
      const detail::Schedule s = run_with(y, t);
      REQUIRE(s.kernel_count() == 2);
      CHECK(s.steps[1].kernel.plan.cross_rows == cross);
      if (cross) {
        if (softmax) CHECK(s.steps[0].kernel.plan.reduce.online);
        else CHECK(s.steps[0].kernel.plan.reduce.moment != 0);
        CHECK(s.steps[1].kernel.plan.width == 4);
      } else if (softmax) {
        for (const auto& st : s.steps) CHECK(!st.kernel.plan.reduce.online);
      }
      check_rows(p, h, y.to_host(), odd, 1);
    }
  }
}

TEST_CASE("pair kernels: a logsumexp, whose sum no row kernel reads, in one pass", "[reduce][pairs]") {
  // log(sum(exp(x - m))) + m, m = max(x): the sum's consumers are of the
  // reduced shape, so no row kernel asks for it. With the pair for any sum
  // (DeviceTuning::pair_sum_elements 1, GPUs): the max and the sum in one
  // pass (a group per row, split into parts for few rows, whose second
  // kernel merges them; column blocks down a leading axis), the log and the
  // add computed where it stores (reduce_finish.cpp), or with
  // DeviceTuning::reduce_finish off in a kernel of their own; a CPU's 8192
  // takes the pair only for rows that long. Against the long double host, with edge values (a
  // row with inf, one with -inf, one with NaN), a row whose reference moves
  // at every third element, one whose elements spread past exp's range, and
  // a masked one.
  const auto lse = [](const Array<float>& x, int a) {
    const auto m = max(x, a, true);
    return log(sum(exp(x - m), a, true)) + m;
  };
  struct Case {
    Dims dims;
    int axis;
    codegen::ReduceStrategy strategy;
  };
  for (const Case& c : {Case{{50, 3000}, 1, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{3, 40000}, 1, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{2, 5, 3000}, 2, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{20, 3001}, 1, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{301, 500}, 1, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{130, 1024}, 1, codegen::ReduceStrategy::GroupPerOutput},
                        Case{{2000, 64}, 0, codegen::ReduceStrategy::ColumnBlock}}) {
    for (const auto& [from, finish] : {std::pair{std::int64_t(1), true}, std::pair{std::int64_t(1), false}, std::pair{std::int64_t(8192), true}}) {
      INFO("logsumexp over axis " << c.axis << " of " << Shape(c.dims).str() << ", pairs from rows of " << from << ", finish " << finish);
      auto h = inputs(c.dims, c.axis, test_seed(0x15e0 + std::uint64_t(c.dims[0])), -30, 30, true);
      const auto rows = rows_of(c.dims, c.axis);
      const std::size_t rising = rows.size() > 4 ? 4 : 0, wide = rows.size() > 5 ? 5 : 2;  // few rows: over edge rows' other elements
      for (std::size_t k = 1; k < rows[rising].size(); k += 3) h[std::size_t(rows[rising][k])] = float(k) * 70.0f;
      for (std::size_t k = 3; k < rows[wide].size(); ++k) h[std::size_t(rows[wide][k])] = (k % 2 ? -200.0f : 0.0f) - float(k % 7);
      // Few rows, split into parts: the last row's first half -inf, so whole
      // parts (their every work-item) hold -inf only beside finite parts.
      if (rows.size() == 3)
        for (std::size_t k = 0; k < rows[2].size() / 2; ++k) h[std::size_t(rows[2][k])] = -INFINITY;
      // Masked, as attention's rows are: -inf but two elements, the fifth
      // (the second work-item's) and the last (where rows are not whole
      // vectors, the first work-item's tail, after lanes of -inf only).
      if (rows.size() > 6)
        for (std::size_t k = 0; k < rows[6].size(); ++k)
          if (k != 4 && k + 1 != rows[6].size()) h[std::size_t(rows[6][k])] = -INFINITY;
      const auto y = lse(from_host(h, Shape(c.dims)), c.axis);
      auto t = gpu_columns(detail::tuning_of(*y.node()->device), c.dims[0] == 3 ? 64 : 1);
      t.local_size = 64, t.max_work_group_size = 256, t.row_bytes = 4096, t.local_mem_bytes = 4096;
      t.pair_sum_elements = from;
      t.reduce_finish = finish;
      if (c.dims[1] == 1024) t.row_warp = 32;  // an NVIDIA GPU's (PoCL builds the plan without its shuffles)
      const detail::Schedule s = run_with(y, t);
      const bool pair = c.dims[std::size_t(c.axis)] >= from;
      REQUIRE(s.kernel_count() == (pair ? (finish ? 1 : 2) : 3));
      if (pair) {
        const auto& rs = s.steps[0].kernel.plan.reduce;
        CHECK(s.steps[0].outputs.size() == (finish ? 1 : 2));
        CHECK(s.steps[0].kernel.plan.finish.size() == (finish ? 4 : 0));  // the max, the sum, log, +
        CHECK(rs.online);
        CHECK(rs.strategy == c.strategy);
        CHECK(rs.two_stage == (c.dims[0] == 3));
        // Rows of 500: 8 work-items a row (32 floats each), 8 rows a group
        // of 64 (the last group's three rows past the last row empty). Rows
        // of 1024: 32 work-items, a whole warp, which shares no group.
        CHECK(rs.rows_per_group == (c.dims[1] == 500 ? 8 : 1));
        if (c.dims[1] == 1024) CHECK((t.row_warp == 32 && rs.local_size == 32));
        if (!finish) CHECK(s.steps[1].kernel.plan.kind == codegen::KernelKind::Elementwise);
      }
      for (const auto& st : s.steps) CHECK(st.kernel.plan.kind != codegen::KernelKind::Row);
      const auto got = y.to_host();
      REQUIRE(got.size() == rows.size());
      const LD eps = LD(FLT_EPSILON);
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const LD m = row_max(h, rows[r]);
        LD sum = 0;
        for (const auto i : rows[r]) sum += std::exp(LD(h[std::size_t(i)]) - m);
        const LD want = std::log(sum) + m;
        // exp within 3 ulp and the sum within a few more: log(s) off by their
        // relative error, the add rounding once more.
        const LD tol = 32 * eps * (1 + std::fabs(std::log(sum))) + 2 * eps * std::fabs(want);
        // The output's element for row r: the reduced shape's order is the rows' order (rows_of).
        REQUIRE_EACH(close(got[r], want, tol), "row " << r << ": got " << got[r] << ", want " << double(want) << " within " << double(tol));
      }
    }
  }
}

TEST_CASE("pair kernels: a sum whose x has reductions of its own waits for them", "[reduce][pairs]") {
  // Softmax of a layer-normed row with no row kernels and the pair for any
  // sum: the pair's body reads the layer norm's mean and variance, so it is
  // not decided (its body not planned) before they are scheduled.
  const auto all = patterns();
  const Pattern& pat = all[5];
  for (const Dims& d : {Dims{7, 1000}, Dims{40, 64}}) {
    for (const int axis : {0, 1}) {
      INFO(pat.name << " over axis " << axis << " of " << Shape(d).str());
      const auto h = inputs(d, axis, test_seed(0x15e1), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), axis);
      auto t = gpu_columns(detail::tuning_of(*y.node()->device), 4);
      t.row_bytes = 0;
      t.pair_sum_elements = 1;
      const detail::Schedule s = run_with(y, t);
      CHECK(s.kernel_count() >= 3);
      check_rows(pat, h, y.to_host(), d, axis);
    }
  }
}

TEST_CASE("column pairs: off, and where they are not taken", "[reduce][columns][pairs]") {
  const auto all = patterns();
  const Dims d{2000, 64};
  const auto h = inputs(d, 0, test_seed(0xc01b), -10, 10, true);
  for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {
    const Pattern& pat = all[which];
    if (which == 4 && !device_has_fp64()) continue;
    INFO(pat.name);
    SECTION("FUSECL_PAIR_KERNELS=0: a kernel per reduction") {
      const auto y = pat.device(from_host(h, Shape(d)), 0);
      auto t = gpu_columns(detail::tuning_of(*y.node()->device), 16);
      t.pair_kernels = false;
      const detail::Schedule s = run_with(y, t);
      CHECK(s.kernel_count() == 3);
      for (const auto& st : s.steps) CHECK(!st.kernel.plan.reduce.online);
      check_rows(pat, h, y.to_host(), d, 0);
    }
  }
  SECTION("outputs no vector divides: no pair kernel") {
    // A row kernel's column form takes only inner extents its vectors divide,
    // so the ColumnReductions rule never meets this; the kernel would read
    // past its last vector of outputs.
    const auto x = from_host(std::vector<float>(h.begin(), h.begin() + 2000 * 63), {2000, 63});
    const auto m = max(x, 0, true);
    const auto whole = from_host(h, Shape(d));
    const auto mw = max(whole, 0, true);
    const auto t = gpu_columns(detail::tuning_of(*x.node()->device), 16);
    const detail::GraphLock lock{m.node().get(), mw.node().get()};
    CHECK(!detail::plan_softmax(*m.node(), x.node(), t));
    CHECK(detail::plan_softmax(*mw.node(), whole.node(), t));
    // Nor a moment kernel: var takes its two passes, the mean's and the deviations', in vectors.
    if (device_has_fp64()) {
      auto tm = t;
      tm.one_pass_moments = true;
      const auto v = var(x, 0);
      const detail::GraphLock vlock{v.node().get()};
      const detail::Schedule s = detail::make_schedule({v.node()}, tm);
      CHECK(s.kernel_count() == 2);
      for (const auto& st : s.steps) CHECK(st.kernel.plan.reduce.moment == 0);
    }
  }
  SECTION("a pair kernel over the device's argument limit: a kernel each, the max computed once") {
    // x the sum of 24 arrays: the pair's 24 loads (a buffer and an offset
    // each) and its fixed arguments need 432 bytes, more than 400, so the max
    // and the sum take kernels of their own (cut as they need), the max
    // first and once.
    const auto make_x = [&] {  // anew for each schedule: running one turns its cut parts into buffers
      Array<float> a = from_host(h, Shape(d));
      for (int i = 0; i < 23; ++i) a = a + from_host(std::vector<float>(h.size(), float(i) * 0.01f), Shape(d));
      return a;
    };
    const auto x = make_x();
    const auto e = exp(x - max(x, 0, true));
    // The max first among the reductions the output reads (the fallback then
    // computes the max that the caller was about to compute itself).
    const auto y = 1.0f / sum(e, 0, true) * e;
    auto t = gpu_columns(detail::tuning_of(*y.node()->device), 16);
    t.max_parameter_bytes = 400;
    const detail::Schedule s = run_with(y, t);
    int maxima = 0;
    for (const auto& st : s.steps) {
      CHECK(!st.kernel.plan.reduce.online);
      maxima += st.kernel.plan.kind == codegen::KernelKind::Reduce && st.kernel.plan.reduce.op == Op::Max;
    }
    CHECK(maxima == 1);
    const auto got = y.to_host();
    std::vector<float> xs(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      float v = h[i];
      for (int k = 0; k < 23; ++k) v += float(k) * 0.01f;  // as the device adds them, in order
      xs[i] = v;
    }
    check_rows(all[3], xs, got, d, 0);
    // The same for a layer norm's moment kernel, whichever reduction the
    // schedule meets first: where the mean's output and divisor pass the
    // limit, the variance alone in one pass and the mean in a kernel of its
    // own; where the variance alone does too, the two passes. Each reduction
    // once: two reduction kernels either way.
    if (device_has_fp64()) {
      t.one_pass_moments = true;
      for (const int out : {2, 1})
        for (const bool mean_first : {true, false}) {
          INFO("limit below the moment kernel with " << out << " output(s), " << (mean_first ? "mean" : "variance") << " first");
          const auto x2 = make_x();
          const auto m = mean(x2, 0, true);
          const auto v = var(x2, 0, true);
          const auto r = 1.0f / sqrt(v + 1e-5f);
          const auto ln = mean_first ? (x2 - m) * r : r * (x2 - m);
          {
            const detail::GraphLock lock{v.node().get()};
            const auto mk = detail::plan_moment(*v.node(), x2.node(), out == 2 ? m.node().get() : nullptr, t);
            REQUIRE(mk);
            t.max_parameter_bytes = codegen::param_bytes(mk->plan) - 1;
          }
          const detail::Schedule sl = run_with(ln, t);
          int reductions = 0, moments = 0;
          for (const auto& st : sl.steps) {
            reductions += st.kernel.plan.kind == codegen::KernelKind::Reduce;
            moments += st.kernel.plan.reduce.moment != 0;
          }
          CHECK(reductions == 2);
          CHECK(moments == (out == 2 ? 1 : 0));
          check_rows(all[4], xs, ln.to_host(), d, 0);
        }
    }
  }
  SECTION("softmax's sum alone: a pair from pair_sum_elements; with its max computed already: no pair") {
    const auto x = from_host(h, Shape(d));
    const auto m = max(x, 0, true);
    const auto sm = sum(exp(x - m), 0);
    auto t = gpu_columns(detail::tuning_of(*x.node()->device), 16);
    {
      const detail::GraphLock lock{sm.node().get()};
      t.pair_sum_elements = d[0] + 1;  // rows shorter: a kernel a reduction (no row kernel asked)
      CHECK(detail::make_schedule({sm.node()}, t).kernel_count() == 2);
      t.pair_sum_elements = d[0];
      CHECK(detail::make_schedule({sm.node()}, t).kernel_count() == 1);
    }
    eval(m);
    const detail::GraphLock lock{sm.node().get()};
    CHECK(detail::make_schedule({sm.node()}, t).kernel_count() == 1);  // the sum, reading m
    CHECK(!detail::make_schedule({sm.node()}, t).steps[0].kernel.plan.reduce.online);
  }
}

TEST_CASE("column pairs: float64 softmax, and var over a leading axis in one pass", "[reduce][columns][pairs]") {
  const std::int64_t rows = 3000, cols = 8;
  SECTION("float64 softmax over axis 0, in vectors of 2") {
    if (!device_has_fp64()) return;
    std::vector<double> h(std::size_t(rows * cols));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.37) * 40.0 + double(i % cols);
    h[3] = INFINITY;  // column 3: NaN
    h[cols + 2] = NAN;  // column 2: NaN
    const auto x = from_host(h, {rows, cols});
    const auto e = exp(x - max(x, 0, true));
    const auto y = e / sum(e, 0, true);
    const auto node = y.node();
    {
      const detail::GraphLock lock{node.get()};
      const auto t = gpu_columns(detail::tuning_of(*node->device), 16);
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 2);
      CHECK(s.steps[0].kernel.plan.reduce.online);
      CHECK(s.steps[0].kernel.plan.width == 2);
      detail::run_schedule(*node->device, s);
    }
    const auto got = y.to_host();
    for (std::int64_t c = 0; c < cols; ++c) {
      long double m = -INFINITY, sum = 0;
      for (std::int64_t r = 0; r < rows; ++r) m = std::max(m, (long double)h[std::size_t(r * cols + c)]);
      // exp of the difference as the device rounds it (in float64).
      const auto e = [&](std::int64_t r) { return std::exp((long double)(h[std::size_t(r * cols + c)] - double(m))); };
      for (std::int64_t r = 0; r < rows; ++r) sum += e(r);
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t i = std::size_t(r * cols + c);
        if (c == 2 || c == 3) {
          CHECK_EACH(std::isnan(got[i]), "column " << c << ", row " << r);
          continue;
        }
        const long double want = e(r) / sum;
        CHECK_EACH(std::fabs((long double)got[i] - want) <= 16 * DBL_EPSILON * want + DBL_MIN, "column " << c << ", row " << r);
      }
    }
  }
  SECTION("float64 logsumexp over rows, a group per row: blocks and lanes of double2, and of a CPU's double8") {
    if (!device_has_fp64()) return;
    const std::int64_t n = 6, m = 5003;  // a tail after the vectors
    std::vector<double> h(std::size_t(n * m));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.37) * 40.0 + double(i % 7);
    for (std::int64_t k = 1; k < m; k += 3) h[std::size_t(m + k)] = double(k) * 70.0;  // row 1: the reference moves
    h[std::size_t(2 * m + 7)] = INFINITY;  // row 2: NaN
    h[std::size_t(3 * m + 1)] = NAN;        // row 3: NaN
    for (std::int64_t k = 0; k < m; ++k)    // row 4: masked, but the fifth and the last
      if (k != 4 && k != m - 1) h[std::size_t(4 * m + k)] = -INFINITY;
    for (const int bytes : {16, 64}) {
      INFO("vectors of " << bytes << " bytes");
      const auto x = from_host(h, {n, m});
      const auto mx = max(x, 1, true);
      const auto y = log(sum(exp(x - mx), 1, true)) + mx;
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = gpu_columns(detail::tuning_of(*node->device), 1);
        t.vector_bytes = bytes;
        t.local_size = 64, t.row_bytes = 4096, t.local_mem_bytes = 4096, t.pair_sum_elements = 1;
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 2);
        CHECK(s.steps[0].kernel.plan.reduce.online);
        CHECK(s.steps[0].kernel.plan.width == bytes / 8);
        detail::run_schedule(*node->device, s);
      }
      const auto got = y.to_host();
      for (std::int64_t r = 0; r < n; ++r) {
        if (r == 2 || r == 3) {
          CHECK_EACH(std::isnan(got[std::size_t(r)]), "row " << r << ": got " << got[std::size_t(r)]);
          continue;
        }
        long double big = -INFINITY, sum = 0;
        for (std::int64_t k = 0; k < m; ++k) big = std::max(big, (long double)h[std::size_t(r * m + k)]);
        for (std::int64_t k = 0; k < m; ++k) sum += std::exp((long double)(h[std::size_t(r * m + k)] - double(big)));
        const long double want = std::log(sum) + big;
        CHECK_EACH(std::fabs((long double)got[std::size_t(r)] - want) <= 64 * DBL_EPSILON * (1 + std::fabs(want)), "row " << r << ": got " << got[std::size_t(r)]);
      }
    }
  }
  SECTION("var over axis 0: one moment kernel in vectors, a GPU's and a CPU's layout, split and not") {
    if (!device_has_fp64()) return;
    const std::int64_t n = 256;
    std::vector<float> h(std::size_t(rows * n));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(std::sin(double(i) * 0.11) * 3.0 + 1000.0 * double(i % 3));
    h[7] = INFINITY;  // column 7: NaN (inf - inf)
    h[n + 9] = NAN;   // column 9: NaN
    const auto x = from_host(h, {rows, n});
    for (const int groups : {1, 64})
    for (const bool cpu : {false, true}) {
      const auto v = var(x, 0, false, 1);
      const auto node = v.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = gpu_columns(detail::tuning_of(*node->device), groups);
        t.one_pass_moments = true;
        // A CPU's: a work-item walks a vector of 16 columns (float64 sums in 16 lanes) alone.
        if (cpu) t.row_items_cap = 1, t.column_items = 1, t.column_rows = 1, t.vector_bytes = 64, t.moment_width = 16;
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 1);
        CHECK(s.steps[0].kernel.plan.reduce.moment == 1);
        CHECK(s.steps[0].kernel.plan.reduce.kept_inner);
        CHECK(s.steps[0].kernel.plan.width == (cpu ? 16 : 2));
        CHECK(s.steps[0].kernel.plan.reduce.two_stage == (groups > 1));
        detail::run_schedule(*node->device, s);
      }
      const auto got = v.to_host();
      for (std::int64_t c = 0; c < n; ++c) {
        long double mean = 0, q = 0;
        for (std::int64_t r = 0; r < rows; ++r) mean += h[std::size_t(r * n + c)];
        mean /= rows;
        for (std::int64_t r = 0; r < rows; ++r) q += (h[std::size_t(r * n + c)] - mean) * (h[std::size_t(r * n + c)] - mean);
        const long double want = q / (rows - 1);
        if (c == 7 || c == 9) {
          CHECK_EACH(std::isnan(got[std::size_t(c)]), "column " << c << " of split " << groups << (cpu ? ", a CPU's layout" : "") << ": got " << got[std::size_t(c)] << ", want " << double(want));
          continue;
        }
        CHECK_EACH(std::fabs((long double)got[std::size_t(c)] - want) <= 4 * FLT_EPSILON * want, "column " << c << " of split " << groups << (cpu ? ", a CPU's layout" : "") << ": got " << got[std::size_t(c)] << ", want " << double(want));
      }
    }
  }
}
