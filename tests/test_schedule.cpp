// The scheduling pass on its own: graphs built from generators (no uploads)
// are scheduled with a DeviceTuning value, and the schedule's kernels, their
// order, what they read and why they were cut are checked with no device
// work at all; then the runner executes one and the values are checked.
#include "codegen/body.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/node.hpp"
#include "src/schedule.hpp"
#include "support/bound_guard.hpp"
#include "support/cache_test_support.hpp"

#include <fusecl/fusecl.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace fusecl;
using detail::CutReason;
using detail::Schedule;
using detail::ScheduleStep;
using StepKind = detail::ScheduleStep::Kind;

detail::DeviceTuning tuning(std::size_t max_parameter_bytes = 1024) {
  detail::DeviceTuning t;
  t.vector_bytes = 16;
  t.local_size = 16;
  t.target_groups = 8;
  t.max_parameter_bytes = max_parameter_bytes;
  return t;
}

// An H200's layout for row kernels and column reductions: groups of up to
// 1024, 48 KiB of local memory, 528 groups fill it, 16-byte vectors, and its
// defaults for split rows and for large arrays down their columns.
detail::DeviceTuning h200_rows() {
  auto t = tuning();
  t.local_size = 256;
  t.row_group_cap = 128;
  t.elements_per_item = 16;
  t.row_register_elements = 16;
  t.row_items_cap = 1024;
  t.target_groups = 528;
  t.max_work_group_size = 1024;
  t.row_bytes = 49152;
  t.local_mem_bytes = 49152;
  t.vector_bytes = 16;
  t.row_split = 1;
  t.row_segment = 2048;
  t.row_column_segment = 512;
  t.row_split_bytes = std::uint64_t(1) << 27;
  t.row_column_bytes = std::uint64_t(1) << 26;
  t.column_items = 32;
  t.column_rows = 8;
  t.moment_width = 2;
  return t;
}

// Schedules `roots` and checks that doing so did no device work.
Schedule schedule_of(const std::vector<detail::NodePtr>& roots, const detail::DeviceTuning& t) {
  reset_stats();
  const detail::GraphLock lock(roots);
  Schedule s = detail::make_schedule(roots, t);
  const Stats st = stats();
  CHECK(st.kernels_launched == 0);
  CHECK(st.uploads == 0);
  CHECK(st.downloads == 0);
  CHECK(st.programs_built == 0);
  for (const auto& r : roots) CHECK(r->op != Op::Buffer);  // planned, not evaluated
  return s;
}

int output_of(const Schedule& s, const detail::NodePtr& n) { return s.output_of(*n); }

using test::BoundGuard;

}  // namespace

TEST_CASE("schedule: a fused chain is one kernel, an evaluation root", "[schedule]") {
  auto x = arange<float>(1000);
  auto y = sqrt(x * 2.0f + 1.0f) - x;
  const Schedule s = schedule_of({y.node()}, tuning());
  REQUIRE(s.steps.size() == 1);
  CHECK(s.kernel_count() == 1);
  CHECK(s.steps[0].kind == StepKind::Kernel);
  CHECK(s.steps[0].reason == CutReason::Root);
  CHECK(s.steps[0].why() == "evaluation root");
  CHECK(s.steps[0].reads.empty());
  REQUIRE(s.outputs.size() == 1);
  CHECK(s.outputs[0].root);
  CHECK(output_of(s, y.node()) == 0);
}

TEST_CASE("schedule: x - mean(x) is two kernels, the reduction first", "[schedule]") {
  auto x = reshape(arange<float>(4000), {40, 100});
  auto m = mean(x, 1, true);
  auto d = x - m;
  const Schedule s = schedule_of({d.node()}, tuning());
  REQUIRE(s.steps.size() == 2);
  CHECK(s.steps[0].kernel.plan.kind == codegen::KernelKind::Reduce);
  CHECK(s.steps[0].reason == CutReason::Reduction);
  CHECK(s.steps[0].outputs == ScheduleStep::OutputList{output_of(s, m.node())});
  CHECK_FALSE(s.outputs[std::size_t(output_of(s, m.node()))].root);
  CHECK(s.steps[1].kernel.plan.kind == codegen::KernelKind::Elementwise);
  CHECK(s.steps[1].reason == CutReason::Root);
  CHECK(s.steps[1].reads == ScheduleStep::OutputList{output_of(s, m.node())});  // the mean, from step 0
  CHECK(s.steps[1].outputs == ScheduleStep::OutputList{output_of(s, d.node())});
}

TEST_CASE("schedule: reductions read broadcast back along their rows are one row kernel", "[schedule][row]") {
  auto t = tuning();
  t.row_bytes = 4 * 100;  // rows of up to 100 floats
  auto x = reshape(arange<float>(4000), {40, 100});
  auto e = exp(x - max(x, 1, true));
  auto softmax = e / sum(e, 1, true);
  const Schedule s = schedule_of({softmax.node()}, t);
  REQUIRE(s.steps.size() == 1);
  CHECK(s.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
  CHECK(s.steps[0].reason == CutReason::Root);
  CHECK(s.steps[0].reads.empty());
  CHECK(s.steps[0].kernel.args.count == 40);         // a work-group per row
  CHECK(s.steps[0].kernel.args.reduce_count == 100);  // of 100 elements
  CHECK(s.outputs.size() == 1);

  // A layer norm: its mean and var's own mean are one phase, then the variance.
  auto ln = (x - mean(x, 1, true)) / sqrt(var(x, 1, true) + 1e-5f);
  const Schedule lns = schedule_of({ln.node()}, t);
  REQUIRE(lns.kernel_count() == 1);
  const auto& instrs = lns.steps[0].kernel.plan.instrs;
  CHECK(std::count_if(instrs.begin(), instrs.end(), codegen::is_row_reduction) == 2);

  // Along axis 0, rows of 40: the column form, a work-item per vector of 4
  // neighbouring columns (16 bytes) stepping down them, 100 elements apart;
  // the output in place.
  auto c = x - mean(x, 0, true);
  const Schedule col = schedule_of({c.node()}, t);
  REQUIRE(col.steps.size() == 1);
  CHECK(col.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
  CHECK(col.steps[0].kernel.plan.reduce.row_columns);
  CHECK_FALSE(col.steps[0].kernel.plan.out_strided);
  CHECK(col.steps[0].kernel.plan.width == 4);
  CHECK(col.steps[0].kernel.args.count == 25);
  CHECK(col.steps[0].kernel.args.reduce_count == 40);
  CHECK(col.steps[0].kernel.args.row_stride == 100);
  // Rows along axis 0 of a transposed array lie contiguous in memory: the
  // general form reads them in place and stores the output through strides.
  auto xt = transpose(reshape(arange<float>(4000), {100, 40}));
  const Schedule tcol = schedule_of({(xt - mean(xt, 0, true)).node()}, t);
  REQUIRE(tcol.steps.size() == 1);
  CHECK_FALSE(tcol.steps[0].kernel.plan.reduce.row_columns);
  CHECK(tcol.steps[0].kernel.plan.out_strided);
  CHECK(tcol.steps[0].kernel.args.count == 100);
  CHECK(tcol.steps[0].kernel.args.reduce_count == 40);
  // An inner extent of 10: vectors of 2 columns (the widest that divides it).
  auto x3 = reshape(arange<float>(4000), {4, 100, 10});
  const Schedule mid = schedule_of({(x3 / sum(x3, 1, true)).node()}, t);
  REQUIRE(mid.steps.size() == 1);
  CHECK(mid.steps[0].kernel.plan.reduce.row_columns);
  CHECK(mid.steps[0].kernel.plan.width == 2);
  CHECK(mid.steps[0].kernel.args.count == 20);
  CHECK(mid.steps[0].kernel.args.row_stride == 10);

  // One float over the limit: today's kernels, the reductions first, where
  // the row kernel would loop over the row (a CPU's: a work-item per row):
  // softmax's max and sum in one pass (DeviceTuning::pair_kernels), else
  // a kernel each.
  t.row_bytes = 4 * 100 - 1;
  t.row_items_cap = 1;
  for (const bool pairs : {true, false}) {
    INFO((pairs ? "pair kernels" : "a kernel per reduction"));
    t.pair_kernels = pairs;
    const Schedule over = schedule_of({softmax.node()}, t);
    const std::size_t reductions = pairs ? 1 : 2;
    REQUIRE(over.kernel_count() == reductions + 1);
    for (std::size_t i = 0; i < reductions; ++i) {
      CHECK(over.steps[i].reason == CutReason::RowTooLong);
      CHECK(over.steps[i].limit == 399);
      CHECK(over.steps[i].kernel.plan.reduce.online == pairs);
    }
    CHECK(over.steps[reductions].kernel.plan.kind == codegen::KernelKind::Elementwise);
    CHECK(over.steps[reductions].reason == CutReason::Root);
  }
  t.pair_kernels = true;
  // Rows a GPU holds in registers need no cache: one row kernel past the limit.
  t.row_items_cap = 1024;
  t.row_register_elements = 16;
  const Schedule held = schedule_of({softmax.node()}, t);
  REQUIRE(held.kernel_count() == 1);
  CHECK(held.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
  CHECK(held.steps[0].kernel.plan.reduce.row_chunks > 0);
}

TEST_CASE("schedule: x - mean(x) past a row kernel's limit is two kernels, the second combining the partials",
          "[schedule][row]") {
  auto t = tuning();
  t.row_bytes = 4 * 1000;
  auto x = arange<float>(100000);
  auto d = x - mean(x);
  const Schedule s = schedule_of({d.node()}, t);
  REQUIRE(s.steps.size() == 2);
  CHECK(s.steps[0].kernel.plan.kind == codegen::KernelKind::Reduce);
  CHECK(s.steps[0].kernel.plan.reduce.finish == codegen::SplitFinish::Consumer);
  CHECK(s.steps[0].reason == CutReason::Partials);
  REQUIRE(s.steps[0].outputs.size() == 1);
  const auto partials = std::size_t(s.steps[0].outputs[0]);
  CHECK(s.outputs[partials].nodes.empty());  // no node holds them: only the next kernel reads them
  CHECK(s.outputs[partials].elements == s.steps[0].kernel.args.groups);
  CHECK(s.steps[1].kernel.plan.kind == codegen::KernelKind::Row);
  CHECK(s.steps[1].kernel.plan.reduce.combine);
  CHECK(s.steps[1].reads == s.steps[0].outputs);
  CHECK(s.steps[1].kernel.args.groups == s.steps[0].kernel.args.groups);
  CHECK(s.steps[1].reason == CutReason::Root);
  // Within the limit: one kernel, one group.
  auto small = arange<float>(1000);
  CHECK(schedule_of({(small - mean(small)).node()}, t).kernel_count() == 1);
}

TEST_CASE("schedule: a row kernel's group layout follows the row length", "[schedule][row]") {
  auto t = tuning();
  t.local_size = 256;
  t.row_bytes = std::size_t(1) << 20;
  struct Case {
    std::int64_t rows, m;
    int local, rows_per_group, chunks, width;
    int elements = 4, group_cap = 1024, registers = 8, items_cap = 1024;
  };
  // chunks: what a work-item holds in registers (vectors of `width` where
  // width > 1; element by element its share of the row, not the power of
  // two above it), 0 for a loop over the row. Vectors of 16 bytes here: 4 floats.
  for (const Case c : {Case{4096, 1024, 256, 1, 1, 4},  // 256 work-items per row, 4 elements each: one vector
                       Case{64, 2048, 256, 1, 2, 4},     // 8 elements each: two vectors
                       Case{64, 4099, 256, 1, 0, 4},     // too many per work-item: a loop over the row, in vectors
                       Case{1000, 17, 256, 32, 3, 1},    // 8 per row, 32 rows per group; rows not whole vectors: 3 each
                       Case{5, 17, 64, 8, 3, 1},         // no more rows per group than there are rows
                       Case{1000, 3, 256, 256, 3, 1},    // a work-item per row, its 3 elements
                       Case{1000, 1, 256, 256, 1, 1},
                       Case{1000, 16, 256, 64, 1, 4},    // 4 per row, one vector each
                       // A GPU's layout (launch.cpp): groups of at most 128, 16 elements in registers.
                       Case{4096, 1024, 128, 2, 4, 4, 16, 128, 16},
                       Case{4096, 1000, 128, 2, 4, 4, 16, 128, 16},   // the last vectors of each work-item past the row
                       Case{4096, 1001, 128, 2, 16, 1, 16, 128, 16},  // rows not whole vectors: element by element
                       // Element by element just past a power of two of work-items' 16: half
                       // the work-items, each with up to 20, where 16 or more are left.
                       Case{4096, 257, 128, 8, 17, 1, 16, 128, 16},   // 16 a row, not 32 of 9
                       Case{4096, 1025, 128, 2, 17, 1, 16, 128, 16},  // 64 a row, not 128 of 9
                       Case{4096, 129, 128, 8, 9, 1, 16, 128, 16},    // 16 a row: 8 would be too few
                       // Long rows: a larger group (up to the device's largest, 256 here) where
                       // that keeps 16 elements each in registers, else a loop.
                       Case{64, 4096, 256, 1, 4, 4, 16, 128, 16},
                       Case{64, 8192, 128, 1, 0, 4, 16, 128, 16},
                       // A CPU's (launch.cpp): a work-item per row, in vectors, and groups
                       // enough for target_groups (8 here).
                       Case{4096, 1024, 256, 256, 0, 4, 4, 1024, 8, 1},
                       Case{64, 1024, 8, 8, 0, 4, 4, 1024, 8, 1},
                       Case{5, 4099, 1, 1, 0, 4, 4, 1024, 8, 1},
                       Case{1000, 3, 128, 128, 3, 1, 4, 1024, 8, 1}}) {
    INFO(c.rows << " rows of " << c.m << ", " << c.elements << " elements per work-item");
    t.elements_per_item = c.elements;
    t.row_group_cap = c.group_cap;
    t.row_register_elements = c.registers;
    t.row_items_cap = c.items_cap;
    auto x = reshape(arange<float>(c.rows * c.m), {c.rows, c.m});
    const Schedule s = schedule_of({(x - max(x, 1, true)).node()}, t);
    REQUIRE(s.kernel_count() == 1);
    const auto& rs = s.steps[0].kernel.plan.reduce;
    CHECK(rs.local_size == c.local);
    CHECK(rs.rows_per_group == c.rows_per_group);
    CHECK(rs.row_chunks == c.chunks);
    CHECK(s.steps[0].kernel.plan.width == c.width);
  }
}

TEST_CASE("schedule: the column form's blocks narrow where columns are few, and give way to the general form",
          "[schedule][row]") {
  // A GPU's layout (launch.cpp): groups of 256 (the column form is not held
  // to row_group_cap), 16-byte vectors; an H200's 132 compute units, 4 groups each.
  auto t = tuning();
  t.local_size = 256;
  t.row_group_cap = 128;
  t.elements_per_item = 16;
  t.target_groups = 528;
  t.row_bytes = std::size_t(1) << 20;
  t.row_split = 0;  // one kernel's layouts (8192 x 8192 is split: "schedule: a GPU's rows split over segments")
  t.row_column_bytes = 0;  // (and would take column reductions: "schedule: a GPU's large arrays down their columns ...")
  struct Case {
    std::int64_t rows, cols;
    bool column_form;
    int local = 0, vectors_per_group = 0;
  };
  for (const Case c : {Case{8192, 8192, true, 256, 8},  // 2048 vectors of 4 columns: blocks of 8, 256 groups of 256
                       Case{4096, 1024, true, 256, 2},  // 256 vectors: blocks of 2, 128 groups, 128 work-items down each
                       Case{1024, 64, false}}) {        // 16 vectors: 8 groups at most, the general form
    INFO(c.rows << " x " << c.cols << " along axis 0");
    auto x = reshape(arange<float>(c.rows * c.cols), {c.rows, c.cols});
    const Schedule s = schedule_of({(x - max(x, 0, true)).node()}, t);
    REQUIRE(s.kernel_count() == 1);
    const auto& plan = s.steps[0].kernel.plan;
    CHECK(plan.kind == codegen::KernelKind::Row);
    CHECK(plan.reduce.row_columns == c.column_form);
    if (!c.column_form) continue;
    CHECK(plan.width == 4);
    CHECK(plan.reduce.local_size == c.local);
    CHECK(plan.reduce.rows_per_group == c.vectors_per_group);
  }
}

TEST_CASE("schedule: the column form keeps a GPU's short rows in registers", "[schedule][row]") {
  // An H200's layout: groups of up to 1024, 48 KiB of local memory, 528
  // groups fill it. Rows of up to 512 floats are held in registers: up to 8
  // vectors of 4 a work-item while that leaves at most 32 work-items down
  // each vector, else 32 with up to 16 vectors each; longer rows loop.
  auto t = h200_rows();  // local memory per case, below
  t.row_split = 0;  // one kernel's layouts: the large arrays below are split (see below)
  t.row_column_bytes = 0;  // or take column reductions in vectors (see below)
  struct Case {
    std::vector<std::int64_t> shape;
    int axis;
    int local, vectors_per_group, chunks;  // chunks 0: the loop form
    bool norm_of_softmax = false;          // four reductions: 64 bytes of local memory a work-item
    std::uint64_t local_mem = 49152;
  };
  for (const Case& c : {Case{{512, 131072}, 0, 256, 8, 16},     // 32 down each vector of 4 columns, 16 vectors each
                       Case{{256, 65536}, 0, 256, 8, 8},       // 32 down, 8 each
                       Case{{16, 65536}, 0, 128, 64, 8},       // 2 down, 8 each, blocks of 64 vectors
                       Case{{4, 65536}, 0, 64, 64, 4},         // 1 down: blocks narrowed to 64 vectors for 256 groups
                       Case{{3, 17, 4096}, 1, 64, 16, 5},      // 4 down, 5 vectors each; blocks of 16 for 192 groups
                       Case{{256, 1024, 256}, 1, 256, 8, 0},   // rows of 1024 loop, in blocks of 8 vectors
                       Case{{1024, 1024}, 0, 128, 2, 0},       // the loop: 256 vectors in blocks of 2, 64 down each
                       Case{{8192, 8192}, 0, 256, 8, 0},       // the loop, as above
                       Case{{512, 8192}, 0, 128, 4, 16, true, 8192}}) {  // the group halved for local memory
    INFO(Shape(c.shape).str() << " along axis " << c.axis << (c.norm_of_softmax ? ", a layer norm of a softmax" : ""));
    std::int64_t n = 1;
    for (const auto d : c.shape) n *= d;
    auto x = reshape(arange<float>(n) * 1e-6f, c.shape);
    Array<float> y = x - max(x, c.axis, true);
    if (c.norm_of_softmax) {
      const auto e = exp(y);
      const auto sm = e / sum(e, c.axis, true);
      y = (sm - mean(sm, c.axis, true)) / sqrt(var(sm, c.axis, true, 0) + 1e-5f);
    }
    t.local_mem_bytes = c.local_mem;
    const Schedule s = schedule_of({y.node()}, t);
    REQUIRE(s.kernel_count() == 1);
    const auto& plan = s.steps[0].kernel.plan;
    REQUIRE(plan.reduce.row_columns);
    CHECK(plan.width == 4);
    CHECK(plan.reduce.local_size == c.local);
    CHECK(plan.reduce.rows_per_group == c.vectors_per_group);
    CHECK(plan.reduce.row_chunks == c.chunks);
    CHECK(codegen::row_local_bytes(plan) <= c.local_mem);
  }
}

TEST_CASE("schedule: a GPU's rows split over segments", "[schedule][row][split]") {
  // An H200's layout (as above) with its defaults for split rows
  // (DeviceTuning::row_split): arrays of 128 MiB or more whose one row kernel
  // would loop are split, but for a one-pass softmax of columns shorter than
  // 4096; rows too long for one row kernel are split where they are not
  // whole vectors, else take today's kernels.
  auto t = h200_rows();
  t.row_column_bytes = 0;  // the split's own layouts (large arrays down their columns: see the next test)
  struct Case {
    std::vector<std::int64_t> shape;
    int axis;
    bool softmax;
    int kernels;
    std::int64_t segments = 0;  // split: segments a row
  };
  for (const Case& c : {Case{{8192, 8192}, 0, false, 2, 16},     // columns of 8192 would loop: 16 segments of 512
                        Case{{8192, 8192}, 0, true, 2, 16},      // a softmax too
                        Case{{2048, 32768}, 0, false, 2, 4},     // columns of 2048
                        Case{{2048, 32768}, 0, true, 1},         // a one-pass softmax of columns of 2048: one kernel
                        Case{{1024, 16384}, 0, false, 1},        // 64 MiB: one kernel
                        Case{{256, 1024, 256}, 1, false, 2, 2},  // columns of 1024 of a 3-d array
                        Case{{512, 131072}, 0, false, 1},        // held in registers: one kernel
                        Case{{1024, 50257}, 1, true, 2},         // too long, not whole vectors: today's kernels, the
                                                                 // outputs in vectors across rows (below: split without)
                        Case{{2048, 32768}, 1, true, 2},         // too long, whole vectors: today's kernels, max and sum in one
                        Case{{3, 50257}, 1, false, 2}}) {        // small, but too long: today's kernels
    INFO(Shape(c.shape).str() << " along axis " << c.axis << (c.softmax ? ", softmax" : ", x - max"));
    std::int64_t n = 1;
    for (const auto d : c.shape) n *= d;
    auto x = reshape(arange<float>(n) * 1e-6f, c.shape);
    Array<float> y = x - max(x, c.axis, true);
    if (c.softmax) {
      const auto e = exp(y);
      y = e / sum(e, c.axis, true);
    }
    const Schedule s = schedule_of({y.node()}, t);
    REQUIRE(s.kernel_count() == std::size_t(c.kernels));
    if (c.segments == 0) {
      for (const auto& st : s.steps) CHECK(st.kernel.plan.reduce.row_split == 0);
      continue;
    }
    CHECK(s.steps[0].kernel.plan.reduce.row_split == 1);
    CHECK(s.steps[0].reason == CutReason::SegmentPartials);
    CHECK(s.steps[0].kernel.args.groups == c.segments);
    CHECK(s.steps[1].kernel.plan.reduce.row_split == 2);
    CHECK(s.steps[1].kernel.args.groups == c.segments);
    CHECK(s.steps[0].kernel.plan.reduce.row_columns == (c.axis == 0 || c.shape.size() == 3));
    CHECK(codegen::row_splittable(s.steps[0].kernel.plan));
  }
  // Rows too long and not whole vectors, where an elementwise kernel's
  // vectors may not cross rows (FUSECL_CROSS_ROWS=0): split, 25 segments a
  // row, so that the outputs are computed in vectors; with them, the pair
  // and an output kernel in vectors across rows.
  for (const bool cross : {false, true}) {
    INFO("vectors across rows: " << cross);
    auto tc = t;
    tc.cross_rows = cross;
    auto x = reshape(arange<float>(1024 * 50257) * 1e-6f, {1024, 50257});
    const auto e = exp(x - max(x, 1, true));
    const auto y = e / sum(e, 1, true);
    const Schedule s = schedule_of({y.node()}, tc);
    REQUIRE(s.kernel_count() == 2);
    CHECK(s.steps[0].kernel.plan.reduce.row_split == (cross ? 0 : 1));
    CHECK(s.steps[0].kernel.plan.reduce.online == cross);
    CHECK(s.steps[1].kernel.plan.cross_rows == cross);
    if (!cross) CHECK(s.steps[0].kernel.args.groups == 25);
  }
  // Rows a row kernel would hold in registers, no multiple of the vector
  // width: in the deep form's vectors from each row's aligned start (row_skew); without
  // them, past DeviceTuning::row_odd_elements, today's kernels (the pair,
  // then the outputs in vectors across rows), since the register form would
  // hold them an element at a time. Whole vectors keep the row kernel.
  for (const std::int64_t cols : {12289, 12288})
    for (const std::int64_t odd : {0, 4096})
      for (const bool skew : {true, false}) {
        INFO("rows of " << cols << ", row_odd_elements " << odd << ", row_skew " << skew);
        auto to = t;
        to.row_odd_elements = odd;
        to.row_skew = skew;
        to.row_held_bytes = 256;  // an H200's (launch.cpp): the deep register form, for rows it loads (not a generator's)
        const auto x = from_host(std::vector<float>(std::size_t(64 * cols), 0.5f), {64, cols});
        const auto e = exp(x - max(x, 1, true));
        const auto y = e / sum(e, 1, true);
        const Schedule s = schedule_of({y.node()}, to);
        const bool today = odd > 0 && cols % 4 != 0 && !skew;
        REQUIRE(s.kernel_count() == (today ? 2u : 1u));
        if (today) {
          CHECK(s.steps[0].reason == CutReason::RowTooLong);
          CHECK(s.steps[0].kernel.plan.reduce.online);
          CHECK(s.steps[1].kernel.plan.cross_rows);
        } else {
          const auto& plan = s.steps[0].kernel.plan;
          CHECK(plan.kind == codegen::KernelKind::Row);
          CHECK(plan.reduce.row_skew == (cols % 4 != 0 && skew));
          CHECK(plan.width == (cols % 4 == 0 || skew ? 4 : 1));
        }
      }
  // A whole array of that length read with its mean keeps the grid form's two kernels.
  {
    auto to = t;
    to.row_odd_elements = 4096;
    auto x = arange<float>(64 * 12289) * 1e-6f;
    const auto y = x - mean(x);
    CHECK(schedule_of({y.node()}, to).kernel_count() == 2);
  }
  // A layer norm of a softmax: its reductions read each other's; the one
  // kernel, looping.
  auto x = reshape(arange<float>(8192 * 8192) * 1e-6f, {8192, 8192});
  const auto e = exp(x - max(x, 0, true));
  const auto sm = e / sum(e, 0, true);
  const auto y = (sm - mean(sm, 0, true)) / sqrt(var(sm, 0, true, 0) + 1e-5f);
  const Schedule s = schedule_of({y.node()}, t);
  CHECK(s.kernel_count() == 1);
}

TEST_CASE("schedule: a GPU's large arrays down their columns take column reductions in vectors", "[schedule][row][columns]") {
  // An H200's layout (as above) with its defaults: arrays of 64 MiB or more
  // whose rows run down their columns and that one row kernel would loop
  // over take today's kernels, reading the columns in vectors of 4 floats
  // (ReduceSpec::kept_inner): softmax's max and sum in one pass
  // (ReduceSpec::online), the layer norm's mean and variance in one moment
  // kernel (2 floats a vector: its float64 sums), then the output; the log
  // says why. With column pairs off, a kernel per reduction.
  auto t = h200_rows();
  t.one_pass_moments = true;
  struct Case {
    std::vector<std::int64_t> shape;
    int axis;
    bool layer_norm;
    int kernels;             // with column pairs: the pair, then the output
    bool today;              // today's kernels, reductions in vectors of columns
  };
  for (const bool pairs : {true, false})
    for (const Case& c : {Case{{8192, 8192}, 0, false, 2, true},    // 256 MiB: was split
                          Case{{8192, 8192}, 0, true, 2, true},
                          Case{{4096, 4096}, 0, false, 2, true},    // 64 MiB: was one row kernel, looping
                          Case{{64, 1024, 256}, 1, true, 2, true},  // down the middle axis
                          Case{{2048, 4096}, 0, false, 1, false},   // 32 MiB: one row kernel (its re-reads stay in L2)
                          Case{{512, 131072}, 0, false, 1, false},  // columns of 512: held in registers
                          Case{{8192, 8190}, 0, false, 2, false},   // columns in vectors of 2: split, as before
                          Case{{8192, 8192}, 1, false, 1, false}}) {  // rows along the last axis: as before
      INFO(Shape(c.shape).str() << " along axis " << c.axis << (c.layer_norm ? ", layer norm" : ", softmax")
                                << (pairs ? "" : ", column pairs off"));
      t.pair_kernels = pairs;
      std::int64_t n = 1;
      for (const auto d : c.shape) n *= d;
      auto x = reshape(arange<float>(n) * 1e-6f, c.shape);
      // A generator's index along the outputs is not a vector's down a middle
      // axis (its reductions would read it one element at a time): a buffer.
      if (c.shape.size() == 3) eval(x);
      Array<float> y;
      if (c.layer_norm) {
        y = (x - mean(x, c.axis, true)) / sqrt(var(x, c.axis, true, 0) + 1e-5f);
      } else {
        const auto e = exp(x - max(x, c.axis, true));
        y = e / sum(e, c.axis, true);
      }
      const Schedule s = schedule_of({y.node()}, t);
      REQUIRE(s.kernel_count() == std::size_t(c.kernels + (c.today && !pairs ? 1 : 0)));
      if (!c.today) {
        for (const auto& st : s.steps) CHECK(st.reason != CutReason::ColumnReductions);
        continue;
      }
      for (std::size_t i = 0; i + 1 < s.steps.size(); ++i) {
        const auto& k = s.steps[i].kernel;
        CHECK(s.steps[i].reason == CutReason::ColumnReductions);
        CHECK(s.steps[i].limit == t.row_column_bytes);
        CHECK(k.plan.kind == codegen::KernelKind::Reduce);
        CHECK(k.plan.reduce.kept_inner);
        CHECK(s.steps[i].outputs.size() == (pairs ? 2u : 1u));
        CHECK(k.plan.reduce.online == (pairs && !c.layer_norm));
        CHECK(k.plan.reduce.moment == (pairs && c.layer_norm ? 2 : 0));
        CHECK(k.plan.width == (k.plan.reduce.moment ? 2 : 4));
        CHECK(k.plan.reduce.local_size == 256);
        CHECK(k.plan.reduce.column_rows == 8);
      }
      CHECK(s.steps.back().kernel.plan.kind == codegen::KernelKind::Elementwise);
    }
  // 0: never.
  t.row_column_bytes = 0;
  auto x = reshape(arange<float>(4096 * 4096) * 1e-6f, {4096, 4096});
  const Schedule s = schedule_of({(x - max(x, 0, true)).node()}, t);
  CHECK(s.kernel_count() == 1);
}

TEST_CASE("schedule: what a row kernel cannot compute takes today's kernels", "[schedule][row]") {
  auto t = tuning();
  t.row_bytes = std::size_t(1) << 20;
  auto x = reshape(arange<float>(64), {8, 8});
  auto kernels = [&](const Array<float>& y) {
    const Schedule s = schedule_of({y.node()}, t);
    for (const auto& st : s.steps) CHECK(st.kernel.plan.kind != codegen::KernelKind::Row);
    return s.kernel_count();
  };
  CHECK(kernels(x - mean(x, 0, true) - mean(x, 1, true)) == 3);  // rows along two different axes
  CHECK(kernels(x + transpose(sum(x, 1, true))) == 2);            // read along its row, not broadcast back
  CHECK(kernels(x * argmax(x, 1).astype<float>()) == 2);          // an arg-reduction
  auto cat = concatenate({x, x}, 0);
  CHECK(kernels(cat - max(cat, 1, true)) == 4);  // a concatenation below (a kernel per input), the max, the root
  CHECK(kernels(max(x, 1, true) - min(x, 1, true)) == 3);         // the root has the reductions' shape, not the rows'
  {
    // Several work-items a row whose combine needs more local memory than the device has.
    auto small = t;
    small.row_items_cap = 1024;
    small.local_mem_bytes = 16;
    const Schedule s = schedule_of({(x - max(x, 1, true)).node()}, small);
    CHECK(s.kernel_count() == 2);
    for (const auto& st : s.steps) CHECK(st.kernel.plan.kind != codegen::KernelKind::Row);
  }
  // Row kernels off (row_bytes 0), as for every test above.
  t.row_bytes = 0;
  auto e = exp(x - max(x, 1, true));
  CHECK(schedule_of({(e / sum(e, 1, true)).node()}, t).kernel_count() == 3);
}

TEST_CASE("schedule: the same reduction built twice runs once", "[schedule]") {
  auto x = reshape(random::uniform<float>({8, 64}, 7), {8, 64});
  auto e = exp(x - max(x, 1, true));
  auto softmax = e / sum(exp(x - max(x, 1, true)), 1, true);
  auto t = tuning();
  t.pair_kernels = false;
  const Schedule s = schedule_of({softmax.node()}, t);
  // max (once, though built twice), sum, then the quotient.
  REQUIRE(s.kernel_count() == 3);
  CHECK(s.steps[0].reason == CutReason::Reduction);
  CHECK(s.steps[1].reason == CutReason::Reduction);
  CHECK(s.steps[1].reads == s.steps[0].outputs);  // the sum reads the max
  CHECK(s.outputs[std::size_t(s.steps[0].outputs[0])].nodes.size() == 2);
  CHECK(s.steps[2].reason == CutReason::Root);
  // With pair kernels (row kernels are off in tuning()): the max and the sum
  // in one pass, the max's output serving both nodes, then the quotient.
  const Schedule p = schedule_of({softmax.node()}, tuning());
  REQUIRE(p.kernel_count() == 2);
  REQUIRE(p.steps[0].outputs.size() == 2);
  CHECK(p.outputs[std::size_t(p.steps[0].outputs[0])].nodes.size() == 2);
  CHECK(p.steps[1].reason == CutReason::Root);
}

TEST_CASE("schedule: a concatenation is one kernel per non-empty input, before its reader", "[schedule]") {
  auto a = reshape(arange<float>(6), {2, 3});
  auto b = reshape(arange<float>(0, 0), {0, 3});
  auto c = reshape(arange<float>(9), {3, 3});
  auto cat = concatenate({a * 2.0f, b, c + 1.0f}, 0);
  auto y = cat * cat;
  const Schedule s = schedule_of({y.node()}, tuning());
  REQUIRE(s.steps.size() == 3);
  const ScheduleStep::OutputList cat_out{output_of(s, cat.node())};
  for (int i = 0; i < 2; ++i) {
    CHECK(s.steps[std::size_t(i)].reason == CutReason::Concatenate);
    CHECK(s.steps[std::size_t(i)].why() == "concatenate");
    CHECK(s.steps[std::size_t(i)].outputs == cat_out);  // each writes its slab of one output
  }
  CHECK(s.steps[0].shape == Shape{2, 3});
  CHECK(s.steps[1].shape == Shape{3, 3});
  CHECK(s.steps[2].reads == cat_out);
  CHECK(s.steps[2].reason == CutReason::Root);
}

TEST_CASE("schedule: a body whose arguments pass a tiny limit is cut", "[schedule]") {
  // 24 generators, each a load with its own offset and parameters.
  auto sum_of = arange<float>(0, 256);
  for (int i = 1; i < 24; ++i) sum_of = sum_of + arange<float>(i, 256 + i);
  const std::size_t limit = 256;
  const Schedule big = schedule_of({sum_of.node()}, tuning(1 << 20));
  CHECK(big.kernel_count() == 1);
  REQUIRE(codegen::param_bytes(big.steps[0].kernel.plan) > limit);  // else this test tests nothing
  const Schedule s = schedule_of({sum_of.node()}, tuning(limit));
  REQUIRE(s.kernel_count() >= 2);
  for (std::size_t i = 0; i + 1 < s.steps.size(); ++i) {
    CHECK(s.steps[i].reason == CutReason::ParameterBytes);
    CHECK(s.steps[i].why() == "kernel arguments over 256 bytes");
  }
  CHECK(s.steps.back().reason == CutReason::Root);
  CHECK_FALSE(s.steps.back().reads.empty());
  for (const auto& st : s.steps) CHECK(codegen::param_bytes(st.kernel.plan) <= limit);
}

TEST_CASE("schedule: a chain over 1024 instructions is cut into bodies that fit", "[schedule]") {
  const BoundGuard bound(1000000);
  reset_stats();
  auto y = arange<float>(64);
  auto x = y;
  for (int i = 0; i < 1500; ++i) x = x * y;
  REQUIRE(stats().auto_evaluations == 0);  // one graph: the cuts are the pass's
  // Arguments unlimited, so only the instruction limit cuts.
  const Schedule s = schedule_of({x.node()}, tuning(std::size_t(1) << 30));
  REQUIRE(s.kernel_count() >= 2);
  CHECK(s.kernel_count() <= 4);  // cut in few places, not level by level
  for (std::size_t i = 0; i + 1 < s.steps.size(); ++i) {
    CHECK(s.steps[i].reason == CutReason::BodyInstructions);
    CHECK(s.steps[i].why() == "body over 1024 instructions");
  }
  CHECK(s.steps.back().reason == CutReason::Root);
  for (const auto& st : s.steps) CHECK(st.kernel.plan.instrs.size() <= detail::kMaxBodyInstructions);
}

TEST_CASE("schedule: the runner launches the schedule's kernels and evaluates the roots", "[schedule]") {
  auto x = reshape(arange<float>(12), {3, 4});
  auto d = x - mean(x, 1, true);
  auto node = d.node();
  const detail::DevicePtr dev = node->device;
  const detail::GraphLock lock{node.get()};
  Schedule s = schedule_of({node}, detail::tuning_of(*dev));
  const std::size_t kernels = s.kernel_count();
  reset_stats();
  detail::run_schedule(*dev, s);
  CHECK(node->op == Op::Buffer);
  CHECK(stats().kernels_launched >= kernels);  // a split reduction may add its finishing kernel
  CHECK(stats().kernels_launched <= kernels + 1);
  CHECK(d.to_host() == std::vector<float>{-1.5f, -0.5f, 0.5f, 1.5f, -1.5f, -0.5f, 0.5f, 1.5f, -1.5f, -0.5f, 0.5f, 1.5f});
}

TEST_CASE("schedule: twelve reductions read by one kernel, past the pending outputs kept in place", "[schedule]") {
  // Planning finds each earlier output by node: the first eight in a short
  // array, the rest after a switch to a hash map. Every one must be found,
  // or the last kernel would compute a reduction again (or not at all).
  const auto h = std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, -0.75f};
  auto x = from_host(h);
  Array<float> total = zeros<float>({});
  for (int k = 1; k <= 12; ++k) total = total + sum(x * float(k));
  auto node = total.node();
  Schedule s;
  {
    const detail::GraphLock lock{node.get()};
    s = schedule_of({node}, detail::tuning_of(*node->device));
  }
  REQUIRE(s.steps.size() == 13);
  CHECK(s.steps.back().reads.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) CHECK(s.steps[i].reason == CutReason::Reduction);
  float sum_h = 0;
  for (float v : h) sum_h += v;
  CHECK(total.to_host()[0] == Approx(sum_h * 78.0f).epsilon(1e-6));
}

TEST_CASE("PendingOutputs finds every node before and after it outgrows its in-place array", "[schedule]") {
  std::vector<detail::Node> nodes(40);
  detail::PendingOutputs p;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    CHECK(p.find(nodes[i]) == -1);
    p.add(nodes[i], int(i) * 3);
    for (std::size_t j = 0; j <= i; ++j) REQUIRE(p.find(nodes[j]) == int(j) * 3);
  }
  const detail::Node other{};
  CHECK(p.find(other) == -1);
}

TEST_CASE("schedule log child: evaluate x - mean(x)", "[.schedule_log_child]") {
  auto x = reshape(arange<float>(12), {3, 4});
  auto d = x - mean(x, 1, true);
  CHECK(d.to_host().size() == 12);
  // Rows of whole vectors, longer than a row kernel takes: today's two
  // kernels (a GPU splits rows that are not whole vectors over segments).
  const auto cols = detail::longest_row(detail::device_tuning(), 4) + 4;
  auto y = reshape(arange<float>(2 * cols), {2, cols});
  CHECK((y - mean(y, 1, true)).to_host().size() == std::size_t(2 * cols));
}

TEST_CASE("FUSECL_LOG=schedule prints each schedule before it runs", "[schedule]") {
  using fusecl::test::run_this_test_binary;
  const auto logged = run_this_test_binary("FUSECL_LOG=schedule", "[.schedule_log_child]");
  INFO(logged.err);
  CHECK(logged.exit_code == 0);
  CHECK(logged.err.find("fusecl: schedule on ") != std::string::npos);
  CHECK(logged.err.find("1 step(s), 1 kernel(s)") != std::string::npos);
  CHECK(logged.err.find("#0 row (3, 4): computes subtract (3, 4) [root]; reads nothing; cut: evaluation root; row "
                        "kernel: rows of 4, 1 reduction(s) in it, work-groups of ") != std::string::npos);
  CHECK(logged.err.find(" elements each kept in registers") != std::string::npos);
  // The rows too long for a row kernel: the reduction first, and why.
  const auto limit = std::to_string(detail::device_tuning().row_bytes);
  CHECK(logged.err.find("2 step(s), 2 kernel(s)") != std::string::npos);
  CHECK(logged.err.find("): computes mean (2, 1); reads nothing; cut: reduction (its reader's rows read over " + limit +
                        " bytes, the device's local memory: no row kernel)") != std::string::npos);
  CHECK(logged.err.find("#1 elementwise (2, ") != std::string::npos);
  const auto quiet = run_this_test_binary("-u FUSECL_LOG", "[.schedule_log_child]");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.find("schedule") == std::string::npos);
  const auto unknown = run_this_test_binary("FUSECL_LOG=kernels", "[.schedule_log_child]");
  CHECK(unknown.exit_code == 0);
  CHECK(unknown.err.find("fusecl: warning: FUSECL_LOG='kernels'") != std::string::npos);
  CHECK(unknown.err.find("schedule on") == std::string::npos);
}
