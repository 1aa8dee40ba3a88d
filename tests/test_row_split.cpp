// Rows split over segments (issue 13; codegen ReduceSpec::row_split): a GPU's
// rows too long to stay on chip in one work-group take two kernels, the
// segments' partial results and then the outputs, each segment of a row
// combining its row's partials. Run here with a GPU's layout and short
// segments (64 elements, 16 rows), so that rows of a few thousand take
// dozens of them, against the long double host reference.
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

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

struct SplitLayout {
  int segment = 64;         // elements of a segment along the last axes
  int column_segment = 16;  // rows of a segment down columns
  int register_elements = 16;
  int local = 256;
};

// A GPU's row layout (launch.cpp) that splits every row kernel it can.
detail::DeviceTuning split_tuning(detail::DeviceTuning t, const SplitLayout& l) {
  t.vector_bytes = 16;
  t.local_size = l.local;
  t.max_work_group_size = std::size_t(l.local);
  t.row_group_cap = 128;
  t.row_register_elements = l.register_elements;
  t.row_held_bytes = 0;
  t.row_items_cap = 1024;
  t.elements_per_item = 4;
  t.target_groups = 4;
  t.row_segment = l.segment;
  t.row_column_segment = l.column_segment;
  t.row_split = 2;
  return t;
}

// y's schedule with `l`; whether it split (two kernels, partials then outputs).
bool run_split(const detail::NodePtr& node, const SplitLayout& l, std::int64_t* segments = nullptr) {
  const detail::GraphLock lock{node.get()};
  detail::Schedule s = detail::make_schedule({node}, split_tuning(detail::tuning_of(*node->device), l));
  const bool split = s.kernel_count() == 2 && s.steps[0].kernel.plan.reduce.row_split == 1 &&
                     s.steps[1].kernel.plan.reduce.row_split == 2 && s.steps[1].outputs.size() == 1;
  if (split && segments) *segments = s.steps[0].kernel.args.groups;
  detail::run_schedule(*node->device, s);
  return split;
}

}  // namespace

TEST_CASE("row fusion: a GPU's rows split over segments", "[row][split]") {
  const auto all = patterns();
  for (std::size_t which = 0; which < all.size(); ++which) {
    const Pattern& pat = all[which];
    const bool splits = which != 5;  // a layer norm's softmax: its reductions read each other's
    // 17: one segment; 100: two, the second shorter; 1000: 16 of 64 in vectors of 4;
    // 1001: a short last segment, element by element; 4099: 65, the last of 3.
    for (const std::int64_t m : {17, 100, 1000, 1001, 4099})
      for (int axis = 0; axis < 2; ++axis)
        for (const std::int64_t other : {std::int64_t(5), std::int64_t(8)}) {
          if (other == 8 && axis == 1 && m != 1000) continue;
          const Dims d = axis == 0 ? Dims{m, other} : Dims{other, m};
          INFO(pat.name << " along axis " << axis << " of " << dims_str(d));
          const auto h = inputs(d, axis, test_seed(0x5e9 + std::uint64_t(m)), pat.lo, pat.hi, m >= 17);
          const auto y = pat.device(from_host(h, Shape(d)), axis);
          std::int64_t segments = 0;
          CHECK(run_split(y.node(), {}, &segments) == splits);
          if (splits) CHECK(segments == (m + (axis == 0 ? 15 : 63)) / (axis == 0 ? 16 : 64));
          const auto got = y.to_host();
          check_rows(pat, h, got, d, axis);
        }
  }
}

TEST_CASE("row fusion: split rows' segments loop, or hold few elements", "[row][split]") {
  // Segments longer than the work-items hold (the loop form: softmax's max
  // and sum in one pass in the partials kernel), and segments a group of 64
  // holds in registers 4 elements each, with their partials meeting in two levels.
  const auto all = patterns();
  for (const std::size_t which : {std::size_t(3), std::size_t(4)})
    for (const SplitLayout l : {SplitLayout{1024, 256, 4, 64}, SplitLayout{256, 64, 4, 64}})
      for (int axis = 0; axis < 2; ++axis) {
        const Pattern& pat = all[which];
        const Dims d = axis == 0 ? Dims{5000, 8} : Dims{4, 5000};
        INFO(pat.name << " along axis " << axis << " of " << dims_str(d) << ", segments of " << l.segment);
        const auto h = inputs(d, axis, test_seed(0x5ea), pat.lo, pat.hi, true);
        const auto y = pat.device(from_host(h, Shape(d)), axis);
        CHECK(run_split(y.node(), l));
        const auto got = y.to_host();
        check_rows(pat, h, got, d, axis);
      }
}

TEST_CASE("row fusion: split rows' partials merge at the edges", "[row][split]") {
  // Softmax over rows whose segments hold only -inf (their sums merge as 0),
  // rise by 400 across segments, hold +inf or NaN (NaN throughout, as in two
  // passes); a layer norm of rows far from 0 (1000 + 0.01 sin: each
  // segment's squared deviations from its own mean, merged exactly);
  // float64 softmax; along both axes, 65 segments of 64 (and 16 rows).
  const std::int64_t m = 4099;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> rows(6, std::vector<float>(std::size_t(m)));
  for (std::int64_t i = 0; i < m; ++i) {
    rows[0][std::size_t(i)] = -200.0f + 400.0f * float(i) / float(m - 1);
    rows[1][std::size_t(i)] = i < m / 2 ? -inf : std::sin(float(i)) * 3;
    rows[2][std::size_t(i)] = -inf;
    rows[3][std::size_t(i)] = i == m / 3 ? inf : float(i % 7);
    rows[4][std::size_t(i)] = i == m - 2 ? nan : float(i % 5);
    rows[5][std::size_t(i)] = i % 2 ? 80.0f : -80.0f;
  }
  const auto all = patterns();
  for (const int axis : {1, 0}) {
    const std::int64_t r = std::int64_t(rows.size());
    const Dims d = axis == 1 ? Dims{r, m} : Dims{m, r};
    std::vector<float> h(std::size_t(r * m)), far(h.size());
    for (std::int64_t k = 0; k < r; ++k)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::size_t at = std::size_t(axis == 1 ? k * m + i : i * r + k);
        h[at] = rows[std::size_t(k)][std::size_t(i)];
        far[at] = 1000.0f + 0.01f * std::sin(float(i * (k + 1)));
      }
    for (const std::size_t which : {std::size_t(3), std::size_t(4)}) {
      const Pattern& pat = all[which];
      const auto& in = which == 3 ? h : far;
      INFO(pat.name << " along axis " << axis << " of " << dims_str(d));
      const auto y = pat.device(from_host(in, Shape(d)), axis);
      CHECK(run_split(y.node(), {}));
      const auto got = y.to_host();
      std::vector<LD> want(in.size()), tol(in.size());
      for (const auto& row : rows_of(d, axis)) pat.host(in, row, want, tol);
      for (std::size_t i = 0; i < in.size(); ++i) {
        // far: the input's rounding (ulp(1000) against deviations of 0.01)
        // is the host's too; the device's mean rounds once more.
        const LD t = which == 4 ? std::max<LD>(tol[i], 1e-2L) : tol[i];
        REQUIRE_EACH(close(got[i], want[i], t), "element " << i << ": x " << in[i] << ", got " << got[i] << ", want " << double(want[i]));
      }
    }
    // float64 softmax against long double.
    std::vector<double> h64(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) h64[i] = std::sin(double(i) * 0.37) * 50 + double(i % 13);
    const auto x = from_host(h64, Shape(d));
    const auto e = exp(x - max(x, axis, true));
    const auto y = e / sum(e, axis, true);
    CHECK(run_split(y.node(), {}));
    const auto got = y.to_host();
    for (const auto& row : rows_of(d, axis)) {
      double mx = -std::numeric_limits<double>::infinity();
      for (auto i : row) mx = std::max(mx, h64[std::size_t(i)]);
      LD sum = 0;
      for (auto i : row) sum += std::exp(LD(h64[std::size_t(i)] - mx));
      for (auto i : row) {
        const LD want = std::exp(LD(h64[std::size_t(i)] - mx)) / sum;
        INFO("float64, element " << i << ": got " << got[std::size_t(i)] << ", want " << double(want));
        REQUIRE(std::fabs(LD(got[std::size_t(i)]) - want) <= 64 * LD(DBL_EPSILON) * want + LD(DBL_MIN));
      }
    }
  }
}

TEST_CASE("row fusion: split rows of every reduction, integers and truth values", "[row][split]") {
  // min, max, sum and prod of int32 (the sums in int64), any and all, mean
  // of integers (float64), split over segments along both axes, exactly;
  // and rows of 1, an empty array, rows that one segment holds.
  for (const std::int64_t m : {1, 16, 17, 300})
    for (int axis = 0; axis < 2; ++axis)
      for (const std::int64_t other : {std::int64_t(7), std::int64_t(8)}) {
        const Dims d = axis == 0 ? Dims{m, other} : Dims{other, m};
        INFO("along axis " << axis << " of " << dims_str(d));
        std::vector<std::int32_t> h(std::size_t(m * other));
        std::vector<std::int64_t> sign(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) {
          h[i] = std::int32_t((i * 2654435761u) % 201) - 100;
          sign[i] = i % 37 == 5 ? 2 : (i % 3 ? 1 : -1);  // products up to 2^9 in magnitude
        }
        const auto x = from_host(h, Shape(d));
        const auto s = from_host(sign, Shape(d));
        const auto y1 = x - min(x, axis, true);
        const auto y2 = x + max(x, axis, true);
        const auto y3 = x * sum(x, axis, true);
        const auto y4 = s * prod(s, axis, true);
        const auto y5 = x * any(x > 95, axis, true) + all(x > -100, axis, true);
        const auto y6 = x - mean(x, axis, true);
        for (const auto& node : {y1.node(), y2.node(), y3.node(), y4.node(), y5.node(), y6.node()}) CHECK(run_split(node, {}));
        const auto g1 = y1.to_host();
        const auto g2 = y2.to_host();
        const auto g3 = y3.to_host();
        const auto g4 = y4.to_host();
        const auto g5 = y5.to_host();
        const auto g6 = y6.to_host();
        for (const auto& row : rows_of(d, axis)) {
          std::int32_t lo = h[std::size_t(row[0])], hi = lo;
          std::int64_t total = 0, product = 1;
          bool some = false, every = true;
          for (auto i : row) {
            const auto v = h[std::size_t(i)];
            lo = std::min(lo, v), hi = std::max(hi, v), total += v, product *= sign[std::size_t(i)];
            some = some || v > 95, every = every && v > -100;
          }
          for (auto i : row) {
            const auto k = std::size_t(i);
            REQUIRE_EACH(g1[k] == h[k] - lo, "element " << i);
            REQUIRE_EACH(g2[k] == h[k] + hi, "element " << i);
            REQUIRE_EACH(g3[k] == std::int64_t(h[k]) * total, "element " << i);
            REQUIRE_EACH(g4[k] == sign[k] * product, "element " << i);
            REQUIRE_EACH(g5[k] == h[k] * std::int32_t(some) + std::int32_t(every), "element " << i);
            REQUIRE_EACH(std::fabs(g6[k] - (double(h[k]) - double(total) / double(row.size()))) <= 1e-12, "element " << i);
          }
        }
      }
  // Empty: no kernel runs, whatever the split.
  const auto e = from_host(std::vector<float>{}, Shape({0, 5}));
  const auto ye = e - sum(e, 0, true);
  CHECK_NOTHROW(run_split(ye.node(), {}));
  CHECK(ye.to_host().empty());
}
