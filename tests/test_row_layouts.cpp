// Row kernels' layouts (issue 13): the group layouts of GPUs run on this
// device (many work-items per row, rows in registers, in loops, long rows in
// larger groups), the column form for rows along leading axes, vector rows of
// other types, and what the register form and the CPU's stash compute once.
// Each against the long double host reference of tests/support/row_patterns.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// y computed by the schedule the device's tuning gives, but with work-groups
// of `local` (a GPU's 256 on this CPU device, whose groups are 16): the group
// layouts a GPU gets (many work-items per row, rows kept in registers) are
// checked here too.
// A GPU's layout (launch.cpp): groups of at most 128 work-items, up to 16
// elements each in registers, loaded in 16-byte vectors where rows allow.
struct Layout {
  int elements_per_item = 4;
  bool gpu = false;
};

// `t` with a GPU's row layout (launch.cpp), whatever the device.
void gpu_rows(detail::DeviceTuning& t) {
  t.vector_bytes = 16;
  t.row_group_cap = 128;
  t.row_register_elements = 16;
  t.row_items_cap = 1024;
  t.row_held_bytes = 0;  // long rows 16 elements a work-item (test_row_deep.cpp has the deep form)
}

std::vector<float> with_local_size(const Array<float>& y, int local, Layout layout = {}, int* width = nullptr) {
  const auto node = y.node();
  const detail::DevicePtr dev = node->device;
  {
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*dev);
    t.local_size = local;
    t.max_work_group_size = std::size_t(local);  // no larger groups for long rows: the layouts below are these
    t.elements_per_item = layout.elements_per_item;
    t.row_items_cap = 1024;  // several work-items per row on a CPU too: their trees are what is tested
    if (layout.gpu) gpu_rows(t);
    detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() == 1);
    REQUIRE(s.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
    if (width) *width = s.steps[0].kernel.plan.width;
    detail::run_schedule(*dev, s);
  }
  return y.to_host();
}

}  // namespace

TEST_CASE("row fusion: GPU-sized work-groups, in registers and in loops", "[row]") {
  const auto all = patterns();
  for (std::size_t which = 0; which < all.size(); ++which) {
    const Pattern& pat = all[which];
    const bool main = which == 3 || which == 4;  // softmax, layer norm: every layout; the others the GPU's
    // 1 and 3: a work-item per row; 17: 8 per row, several rows per group;
    // 1000, 1024, 2048: 256 per row, 4 or 8 elements each in registers; 4099: a loop.
    // FUSECL_ROW_ELEMENTS=8 (the layout measured fastest on an H200): 128 per
    // row for rows of 1000 and 1024, two rows per group, 8 elements in registers.
    // The GPU layout (16 per work-item, 64 per row of 1000 to 1024, two rows
    // per group of 128, in vectors of 4 where rows are whole vectors: 1000,
    // 1024, 2048 and 20 here, and 1001 not).
    for (const Layout layout : {Layout{4}, Layout{8}, Layout{16, true}, Layout{4, true}})
    for (const std::int64_t m : {1, 3, 17, 20, 1000, 1001, 1024, 2048, 4099}) {
      if (!main && !layout.gpu) continue;
      for (int axis = 0; axis < 2; ++axis) {
        const Dims d = axis == 0 ? Dims{m, 5} : Dims{5, m};
        INFO(pat.name << " along axis " << axis << " of " << dims_str(d) << ", " << layout.elements_per_item
                      << " elements per work-item" << (layout.gpu ? ", a GPU's layout" : ""));
        const auto h = inputs(d, axis, 0x13a6 + std::uint64_t(m), pat.lo, pat.hi, m >= 3);
        int width = 0;
        const auto got = with_local_size(pat.device(from_host(h, Shape(d)), axis), 256, layout, &width);
        if (layout.gpu && axis == 1 && m % 4 == 0 && m <= 2048) CHECK(width == 4);  // the vector register form
        check_rows(pat, h, got, d, axis);
      }
    }
  }
}

TEST_CASE("row fusion: a GPU's long rows take a larger group and stay in registers", "[row]") {
  // Rows of 4099 and 8192 with a GPU's layout and groups of up to 1024: 512
  // work-items per row (8192: 16 elements each, as 4 vectors) instead of a
  // loop in a group of 128. Rows of 16384 pass an H200's 48 KiB of local
  // memory (row_bytes), which a row held in registers does not need: 1024
  // work-items of 16 elements.
  const auto all = patterns();
  for (const std::size_t which : {std::size_t(3), std::size_t(4)})  // softmax, layer norm
    for (const std::int64_t m : {4099, 8192, 16384}) {
      const Pattern& pat = all[which];
      const Dims d{3, m};
      INFO(pat.name << " over rows of " << m);
      const auto h = inputs(d, 1, test_seed(0x13b6 + std::uint64_t(m)), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), 1);
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = detail::tuning_of(*node->device);
        t.local_size = 256, t.elements_per_item = 16, t.max_work_group_size = 1024, t.row_bytes = 49152;
        gpu_rows(t);
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& rs = s.steps[0].kernel.plan.reduce;
        CHECK(rs.local_size == (m == 16384 ? 1024 : 512));
        CHECK(rs.row_chunks == (m == 4099 ? 17 : 4));  // whole vectors of 4; 4099: element by element, 17 each of 256 a row
        detail::run_schedule(*node->device, s);
      }
      const auto got = y.to_host();
      check_rows(pat, h, got, d, 1);
    }
  // Longer rows than its registers hold, past local memory: today's kernels,
  // softmax's max and sum in one pass (DeviceTuning::pair_kernels), then the output.
  auto x = reshape(arange<float>(3 * 20000), {3, 20000});
  const auto e = exp(x - max(x, 1, true));
  const auto y = e / sum(e, 1, true);
  const auto node = y.node();
  const detail::GraphLock lock{node.get()};
  auto t = detail::tuning_of(*node->device);
  t.local_size = 256, t.elements_per_item = 16, t.max_work_group_size = 1024, t.row_bytes = 49152;
  gpu_rows(t);
  const detail::Schedule s = detail::make_schedule({node}, t);
  CHECK(s.kernel_count() == 2);
  CHECK(s.steps[0].kernel.plan.reduce.online);
  for (const auto& st : s.steps) CHECK(st.kernel.plan.kind != codegen::KernelKind::Row);
}

TEST_CASE("row fusion: rows along leading axes in the column form, vectors of neighbouring columns", "[row]") {
  // A work-item takes a vector of neighbouring columns and steps down them;
  // each lane is a column of its own, with the edge values of the inputs in
  // some lanes and not in their neighbours. Four layouts: a CPU's (a
  // work-item per vector of 16 columns); a GPU's in groups of 256 (vectors
  // of 4 side by side, work-items down each: the register form for rows of
  // up to 512, else the loop form); groups of 16 with 4 elements per
  // work-item; and a GPU's in groups of 1024, whose loop form has up to 128
  // work-items down each vector (their partials combined in two levels).
  struct Case {
    Dims d;
    int axis;
  };
  std::vector<Case> cases;
  for (const std::int64_t m : {1, 3, 17, 1000, 4099}) cases.push_back({{m, 48}, 0});
  for (const std::int64_t m : {3, 17, 1000}) cases.push_back({{3, m, 40}, 1});
  cases.push_back({{6, 7, 32}, 0});  // inner extent 7 x 32
  const auto all = patterns();
  int register_form = 0, loop_form = 0, two_levels = 0;
  for (const Pattern& pat : all)
    for (const Case& c : cases)
      for (int layout = 0; layout < 4; ++layout) {
        INFO(pat.name << " along axis " << c.axis << " of " << dims_str(c.d) << ", layout " << layout);
        const auto h = inputs(c.d, c.axis, test_seed(0x13b4 + std::uint64_t(numel(c.d))), pat.lo, pat.hi, c.d[std::size_t(c.axis)] >= 3);
        const auto y = pat.device(from_host(h, Shape(c.d)), c.axis);
        const auto node = y.node();
        {
          const detail::GraphLock lock{node.get()};
          // Layouts the same on any device (few groups fill it, so that the
          // column form is taken even for these small arrays on a GPU).
          auto t = detail::tuning_of(*node->device);
          t.target_groups = 4;
          if (layout == 0) {
            t.local_size = 16, t.vector_bytes = 64, t.row_group_cap = 1024, t.row_items_cap = 1;
          } else if (layout == 1 || layout == 3) {
            t.local_size = layout == 1 ? 256 : 1024, t.elements_per_item = 16;
            t.max_work_group_size = std::size_t(t.local_size);
            t.local_mem_bytes = 49152;
            gpu_rows(t);
          } else {
            t.local_size = 16, t.elements_per_item = 4, t.row_items_cap = 1024;
          }
          detail::Schedule s = detail::make_schedule({node}, t);
          REQUIRE(s.kernel_count() == 1);
          const auto& plan = s.steps[0].kernel.plan;
          CHECK(plan.reduce.row_columns);
          if (layout == 1 || layout == 3) {
            CHECK(plan.width == (c.d.back() % 4 == 0 ? 4 : 1));
            (plan.reduce.row_chunks > 0 ? register_form : loop_form) += 1;
            two_levels += plan.reduce.local_size / plan.reduce.rows_per_group > 2 * plan.reduce.row_fanin;
          }
          reset_stats();
          detail::run_schedule(*node->device, s);
          CHECK(stats().kernels_launched == 1);
        }
        const auto got = y.to_host();
        check_rows(pat, h, got, c.d, c.axis);
      }
  // Each form of the GPU layouts was taken, and the two-level combine.
  CHECK(register_form > 0);
  CHECK(loop_form > 0);
  CHECK(two_levels > 0);
}

TEST_CASE("row fusion: a GPU's column form holds up to 8 vectors a work-item before 32 work-items, its meet in two levels", "[row]") {
  // Rows of m down 64 columns, in a GPU's groups of 256 (the register form):
  // T work-items down each vector of columns, the fewest of up to 32 that
  // hold the rows in 8 vectors each (16 at 32); their partials meet in two
  // levels of fan-in T / 8 (2 at least) where T > 2F, else in one. Every
  // pattern against the host, edge values in some lanes.
  struct Want {
    std::int64_t m, T, chunks, fanin;
  };
  for (const Want& want : {Want{16, 2, 8, 2}, Want{33, 8, 5, 2}, Want{64, 8, 8, 2}, Want{128, 16, 8, 2}, Want{256, 32, 8, 4},
                           Want{512, 32, 16, 4}}) {
    for (const Pattern& pat : patterns()) {
      const Dims d{want.m, 64};
      INFO(pat.name << " along axis 0 of " << dims_str(d));
      const auto h = inputs(d, 0, test_seed(0x13b9 + std::uint64_t(want.m)), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), 0);
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = detail::tuning_of(*node->device);
        t.target_groups = 4;
        t.local_size = 256, t.elements_per_item = 16;
        t.max_work_group_size = 256;
        t.local_mem_bytes = 49152;
        t.row_fanin = 16;
        gpu_rows(t);
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& plan = s.steps[0].kernel.plan;
        REQUIRE(plan.reduce.row_columns);
        CHECK(plan.reduce.local_size / plan.reduce.rows_per_group == want.T);
        CHECK(plan.reduce.row_chunks == want.chunks);
        CHECK(plan.reduce.row_fanin == want.fanin);
        if (want.m == 128) {  // the setting caps the fan-in
          auto capped = t;
          capped.row_fanin = 1;
          CHECK(detail::make_schedule({node}, capped).steps[0].kernel.plan.reduce.row_fanin == 1);
        }
        detail::run_schedule(*node->device, s);
      }
      check_rows(pat, h, y.to_host(), d, 0);
    }
  }
}

TEST_CASE("row fusion: a GPU's vector rows of other types", "[row]") {
  // Rows of whole 16-byte vectors: two float64 lanes, and a bool result
  // stored through a vector pointer of uchar.
  for (const std::int64_t m : {2, 20, 1000, 1024}) {
    INFO("rows of " << m);
    std::vector<double> hd(std::size_t(5 * m));
    std::vector<float> hf(hd.size());
    for (std::size_t i = 0; i < hd.size(); ++i) {
      hd[i] = std::sin(double(i) * 0.37) * 3.0 + double(i % 7);  // a different value in every lane
      hf[i] = float(hd[i]);
    }
    const auto xd = from_host(hd, {5, m});
    const auto xf = from_host(hf, {5, m});
    const auto yd = xd - max(xd, 1, true);
    const auto yb = xf > mean(xf, 1, true);
    int wd = 0, width = 0;
    const auto gd = with_local_size(yd.astype<float>(), 256, Layout{16, true}, &wd);
    CHECK(wd == 2);
    {
      const auto node = yb.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      t.local_size = 256, t.elements_per_item = 16;
      gpu_rows(t);
      detail::Schedule sch = detail::make_schedule({node}, t);
      REQUIRE(sch.kernel_count() == 1);
      width = sch.steps[0].kernel.plan.width;
      detail::run_schedule(*node->device, sch);
    }
    const auto bb = yb.to_host();
    if (m % 4 == 0) CHECK(width == 4);  // shorter rows: too few elements per work-item for a vector
    for (std::int64_t r = 0; r < 5; ++r) {
      double mx = -INFINITY;
      long double mean_ = 0;
      for (std::int64_t j = 0; j < m; ++j) mx = std::max(mx, hd[std::size_t(r * m + j)]), mean_ += hf[std::size_t(r * m + j)];
      mean_ /= m;
      for (std::int64_t j = 0; j < m; ++j) {
        const std::size_t i = std::size_t(r * m + j);
        REQUIRE(gd[i] == float(hd[i] - mx));
        // Only where the row's mean is not within float rounding of the value.
        if (std::fabs(double(hf[i] - mean_)) > 1e-5 * (1 + std::fabs(double(mean_)))) REQUIRE(bool(bb[i]) == (hf[i] > mean_));
      }
    }
  }
}

namespace {

// `src` as the OpenCL compiler sees it with FCL_CPU defined (cpu) or not:
// the lines of the other branch of each #ifdef FCL_CPU dropped.
std::string preprocessed(const std::string& src, bool cpu) {
  std::string out, line;
  bool in_if = false, in_else = false;
  for (std::size_t at = 0; at < src.size();) {
    const std::size_t end = std::min(src.find('\n', at), src.size());
    line = src.substr(at, end - at);
    at = end + 1;
    if (line == "#ifdef FCL_CPU") in_if = true;
    else if (line == "#else" && in_if) in_if = false, in_else = true;
    else if (line == "#endif" && (in_if || in_else)) in_if = in_else = false;
    else if (!(in_if && !cpu) && !(in_else && cpu)) out += line + "\n";
  }
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The one row kernel of y's schedule in a layout the same on any device
// (groups of `local`, 8 elements per work-item, vectors of `vector_bytes`
// where not 0): its row_chunks (0: the loop form) and its source.
std::pair<int, std::string> row_kernel(const detail::NodePtr& y, int local, int vector_bytes = 0, int items_cap = 1024) {
  auto t = detail::tuning_of(*y->device);
  t.row_group_cap = 1024;
  t.row_register_elements = 8;
  t.row_items_cap = items_cap;
  t.local_size = local;
  t.max_work_group_size = std::size_t(local);
  t.elements_per_item = 8;
  if (vector_bytes) t.vector_bytes = vector_bytes;
  t.row_reciprocal = false;  // one output phase (reciprocal.hpp's second pass would count again)
  const detail::GraphLock lock{y.get()};
  const detail::Schedule s = detail::make_schedule({y}, t);
  REQUIRE(s.kernel_count() == 1);
  const auto& plan = s.steps[0].kernel.plan;
  return {int(plan.reduce.row_chunks), codegen::render(plan, codegen::kernel_name(plan))};
}

}  // namespace

TEST_CASE("row fusion: a row in registers keeps its exp for the output phase", "[row]") {
  // Softmax's exp(x - max) is summed in one phase and divided in the next:
  // in the register form it is computed once per element and kept (a GPU's
  // full-precision exp is some ten instructions); in the loop form each
  // phase computes it again from the row it re-reads.
  const auto x = from_host(std::vector<float>(5 * 1024, 1.0f), {5, 1024});
  const auto e = exp(x - max(x, 1, true));
  const auto y = e / sum(e, 1, true);
  auto count_exp = [&](int local, int vector_bytes = 4) {
    const auto [chunks, src] = row_kernel(y.node(), local, vector_bytes);
    return std::pair{chunks, count_of(src, "exp(")};
  };
  CHECK(count_exp(256) == std::pair{8, std::size_t(1)});      // 128 work-items per row, 8 elements each in registers
  CHECK(count_exp(256, 16) == std::pair{2, std::size_t(1)});  // the same as two vectors of 4
  const auto [chunks, n] = count_exp(16);                  // 16 per row: a loop
  CHECK(chunks == 0);
  CHECK(n >= 2);
}

TEST_CASE("row fusion: on CPUs the loop form computes softmax's exp once, stashed where the output goes", "[row]") {
  // The loop form re-reads the row in each phase. A GPU computes exp(x - max)
  // again for the output (its loop form waits on memory); a CPU's (FCL_CPU)
  // sum phase stores it in the output and the output phase reads it back.
  const auto x = from_host(std::vector<float>(5 * 1024, 1.0f), {5, 1024});
  const auto e = exp(x - max(x, 1, true));
  auto source = [&](const auto& y) {
    const auto [chunks, src] = row_kernel(y.node(), 16, 0, 1);  // a CPU's: a work-item per row, the loop form
    REQUIRE(chunks == 0);
    return src;
  };
  const std::string soft = source(e / sum(e, 1, true));
  CHECK(count_of(preprocessed(soft, false), "exp(") == 2 * count_of(preprocessed(soft, true), "exp("));
  // The stash's store and load, for whole vectors and for the tail.
  CHECK(count_of(preprocessed(soft, true), "out0") == count_of(preprocessed(soft, false), "out0") + 4);
  // Outputs of float64 only: nowhere to keep a float, so computed again.
  const std::string wide = source((e / sum(e, 1, true)).astype<double>());
  CHECK(preprocessed(wide, true) == preprocessed(wide, false));

  // Results through the stash on this device (a CPU's, where FCL_CPU is
  // defined; elsewhere the other branch), against the host: softmax with
  // exp(x - max) itself as a second output of the same kernel, and softmax
  // to float64; rows of whole vectors and a tail, edge values in some rows.
  for (const std::int64_t m : {16, 1000, 4099}) {
    const Dims d{4, m};
    const auto h = inputs(d, 1, 0x13b2 + std::uint64_t(m), -30, 30, true);
    const auto xs = from_host(h, Shape(d));
    const auto es = exp(xs - max(xs, 1, true));
    const auto ys = es / sum(es, 1, true);
    const auto yd = ys.astype<double>();
    reset_stats();
    eval(es, ys, yd);
    CHECK(stats().kernels_launched == 1);
    const auto ge = es.to_host(), gy = ys.to_host();
    const auto gd = yd.to_host();
    std::vector<LD> want(h.size()), tol(h.size());
    for (const auto& row : rows_of(d, 1)) patterns()[3].host(h, row, want, tol);  // softmax
    for (const auto& row : rows_of(d, 1)) {
      const float mx = float(row_max(h, row));
      for (auto i : row) {
        const std::size_t k = std::size_t(i);
        INFO("rows of " << m << ", element " << k << ": x " << h[k] << ", exp " << ge[k] << ", softmax " << gy[k]);
        const LD ex = std::exp(LD(h[k] - mx));  // x - max rounded in float, as the device rounds it
        REQUIRE(close(ge[k], ex, 4 * eps * ex));  // OpenCL's exp: 3 ulp
        REQUIRE(close(gy[k], want[k], tol[k]));
        REQUIRE((std::isnan(gd[k]) ? std::isnan(gy[k]) : gd[k] == double(gy[k])));
      }
    }
  }
}

TEST_CASE("row fusion: a GPU's loop form computes softmax's max and sum in one pass", "[row]") {
  // Where a row kernel loops over its rows on a GPU (row_items_cap > 1), the
  // max and the sum of exp(x - max) take one pass (ReduceSpec::row_online):
  // rows whose maximum rises by hundreds (the reference moves, rescaling
  // the sum), rows of -inf before finite values, rows of -inf only, rows
  // with +inf or NaN (NaN throughout, as in two passes), rising and falling
  // rows, along the last axis (whole vectors and a tail) and the first (the
  // column form), the work-items' partials merged in two levels and not.
  const std::int64_t m = 4099;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> rows(8, std::vector<float>(std::size_t(m)));
  for (std::int64_t i = 0; i < m; ++i) {
    const float up = -200.0f + 400.0f * float(i) / float(m - 1);
    rows[0][std::size_t(i)] = up;                                         // rising by 400: references move
    rows[1][std::size_t(i)] = -up;                                        // falling
    rows[2][std::size_t(i)] = i < m / 2 ? -inf : std::sin(float(i)) * 3;  // -inf first
    rows[3][std::size_t(i)] = -inf;                                       // -inf only: NaN
    rows[4][std::size_t(i)] = i == m / 3 ? inf : float(i % 7);            // +inf: NaN
    rows[5][std::size_t(i)] = i == m - 2 ? nan : float(i % 5);            // NaN
    rows[6][std::size_t(i)] = float(std::fmod(double(i) * 7.31, 300.0)) - 150;  // saw teeth
    rows[7][std::size_t(i)] = i % 2 ? 80.0f : -80.0f;                      // alternating, 160 apart
  }
  const Pattern soft = patterns()[3];
  for (const int axis : {1, 0})
    for (const int local : {64, 1024}) {
      INFO("rows along axis " << axis << ", groups of " << local);
      const std::int64_t r = std::int64_t(rows.size());
      const Dims d = axis == 1 ? Dims{r, m} : Dims{m, 4 * r};  // along axis 0: each row in 4 neighbouring columns
      std::vector<float> h(std::size_t(r * m * (axis == 1 ? 1 : 4)));
      for (std::int64_t k = 0; k < r; ++k)
        for (std::int64_t i = 0; i < m; ++i) {
          if (axis == 1) h[std::size_t(k * m + i)] = rows[std::size_t(k)][std::size_t(i)];
          else
            for (std::int64_t j = 0; j < 4; ++j) h[std::size_t(i * 4 * r + k * 4 + j)] = rows[std::size_t(k)][std::size_t((i + 97 * j) % m)];
        }
      const auto y = soft.device(from_host(h, Shape(d)), axis);
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = detail::tuning_of(*node->device);
        t.local_size = local, t.max_work_group_size = std::size_t(local), t.elements_per_item = 16, t.target_groups = 4;
        gpu_rows(t);
        t.row_register_elements = 4;  // not in registers: the loop form
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& plan = s.steps[0].kernel.plan;
        CHECK(plan.reduce.row_online);
        CHECK(plan.reduce.row_chunks == 0);
        CHECK(plan.reduce.row_columns == (axis == 0));
        const std::string src = codegen::render(plan, codegen::kernel_name(plan));
        CHECK(src.find("fcl_online_") != std::string::npos);
        detail::run_schedule(*node->device, s);
      }
      const auto got = y.to_host();
      std::vector<LD> want(h.size()), tol(h.size());
      for (const auto& row : rows_of(d, axis)) soft.host(h, row, want, tol);
      for (std::size_t i = 0; i < h.size(); ++i) {
        REQUIRE_EACH(close(got[i], want[i], tol[i]), "element " << i << ": x " << h[i] << ", got " << got[i] << ", want " << double(want[i]));
      }
    }
  // float64 and float32, in vectors and element by element (7 columns: no
  // vector divides them), against long double.
  auto typed = [&]<class T>(T, const Dims& d, int axis) {
    INFO((sizeof(T) == 8 ? "float64" : "float32") << " softmax along axis " << axis << " of " << dims_str(d));
    std::vector<T> h(std::size_t(d[0] * d[1]));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = T(std::sin(double(i) * 0.37) * 50 + double(i % 13));
    const auto x = from_host(h, Shape(d));
    const auto e = exp(x - max(x, axis, true));
    const auto y = e / sum(e, axis, true);
    const auto node = y.node();
    {
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      t.local_size = 256, t.max_work_group_size = 256, t.elements_per_item = 16, t.target_groups = 4;
      gpu_rows(t);
      t.row_register_elements = 4;
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      CHECK(s.steps[0].kernel.plan.reduce.row_online);
      detail::run_schedule(*node->device, s);
    }
    const auto got = y.to_host();
    const LD tol = (sizeof(T) == 8 ? 64 * LD(DBL_EPSILON) : 16 * eps);
    for (const auto& row : rows_of(d, axis)) {
      // x - max rounded in T, as the device rounds it.
      T mx = -std::numeric_limits<T>::infinity();
      for (auto i : row) mx = std::max(mx, h[std::size_t(i)]);
      LD sum = 0;
      for (auto i : row) sum += std::exp(LD(T(h[std::size_t(i)] - mx)));
      for (auto i : row) {
        const LD want = std::exp(LD(T(h[std::size_t(i)] - mx))) / sum;
        REQUIRE_EACH(std::fabs(LD(got[std::size_t(i)]) - want) <= tol * want + LD(std::numeric_limits<T>::min()), "element " << i << ": got " << got[std::size_t(i)] << ", want " << double(want));
      }
    }
  };
  for (const auto& [d, axis] : {std::pair{Dims{8, 4099}, 1}, std::pair{Dims{4099, 7}, 0}, std::pair{Dims{4099, 8}, 0}}) {
    typed(double(0), d, axis);
    typed(float(0), d, axis);
  }
  // A CPU's loop form keeps two passes (its stash computes exp once).
  const auto x = from_host(std::vector<float>(5 * 1024, 1.0f), {5, 1024});
  const auto e = exp(x - max(x, 1, true));
  const auto [chunks, src] = row_kernel((e / sum(e, 1, true)).node(), 16, 0, 1);
  CHECK(chunks == 0);
  CHECK(src.find("fcl_online_") == std::string::npos);
}

TEST_CASE("row fusion: a float max or min meets NaN in any lane of a vector, in the tail, or in none", "[row]") {
  // The row phases step with fmax / fmin, which skip NaN, and note NaN apart
  // (render_row.cpp): a row holding a NaN anywhere (a vector's lane, the
  // scalar tail after the vectors, the first element) is NaN throughout; a
  // row of infinities and finite values is exact. Each layout: this
  // device's, a GPU's groups of 256 (vectors of 4 in registers), and a
  // GPU's long rows deep in registers.
  for (const std::int64_t m : {1, 3, 5, 17, 20, 33, 1000, 1027, 4099, 8192}) {
    std::vector<std::int64_t> where{-1, 0};  // a row without NaN, then a NaN at each of these
    for (const std::int64_t p : {std::int64_t(1), std::int64_t(2), std::int64_t(3), m / 2, m - 1, m - 2})
      if (p > 0 && p < m && std::find(where.begin(), where.end(), p) == where.end()) where.push_back(p);
    const std::int64_t rows = std::int64_t(where.size()) + 1;  // and a row of infinities
    std::vector<double> h(std::size_t(rows * m));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.61) * 50.0 + double(i % 5);  // every lane differs
    for (std::size_t r = 0; r < where.size(); ++r)
      if (where[r] >= 0) h[std::size_t(std::int64_t(r) * m + where[r])] = NAN;
    for (std::int64_t j = 0; j < m; j += 2) h[std::size_t((rows - 1) * m + j)] = j % 4 ? -INFINITY : INFINITY;
    for (const bool dbl : {false, true}) {
      if (dbl && !default_device().info().fp64) continue;
      std::vector<float> hf(h.begin(), h.end());
      for (int layout = 0; layout < 3; ++layout) {
        for (const bool is_max : {true, false}) {
          INFO("rows of " << m << (dbl ? ", float64" : ", float32") << (is_max ? ", x - max" : ", x - min") << ", layout " << layout);
          Array<float> y;
          if (dbl) {
            const auto x = from_host(h, {rows, m});
            y = (x - (is_max ? max(x, 1, true) : min(x, 1, true))).astype<float>();
          } else {
            const auto x = from_host(hf, {rows, m});
            y = x - (is_max ? max(x, 1, true) : min(x, 1, true));
          }
          const auto node = y.node();
          {
            const detail::GraphLock lock{node.get()};
            auto t = detail::tuning_of(*node->device);
            if (layout > 0) {
              t.local_size = 256, t.elements_per_item = 16, t.max_work_group_size = 1024, t.row_bytes = 49152;
              gpu_rows(t);
              if (layout == 2) t.row_held_bytes = 256;
            }
            detail::Schedule s = detail::make_schedule({node}, t);
            detail::run_schedule(*node->device, s);
          }
          const auto got = y.to_host();
          for (std::int64_t r = 0; r < rows; ++r) {
            bool nan = false;
            double ext = is_max ? -INFINITY : INFINITY;
            for (std::int64_t j = 0; j < m; ++j) {
              const double v = dbl ? h[std::size_t(r * m + j)] : double(hf[std::size_t(r * m + j)]);
              nan = nan || std::isnan(v);
              ext = is_max ? std::max(ext, v) : std::min(ext, v);
            }
            for (std::int64_t j = 0; j < m; ++j) {
              const std::size_t i = std::size_t(r * m + j);
              const float want = nan ? NAN : dbl ? float(h[i] - ext) : hf[i] - float(ext);
              REQUIRE_EACH((std::isnan(want) ? std::isnan(got[i]) : got[i] == want), "row " << r << ", element " << j << ": got " << got[i] << ", want " << want);
            }
          }
        }
      }
    }
  }
}
