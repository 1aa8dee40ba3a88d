// Row kernels' lanes form (ReduceSpec::row_lanes): on a CPU, rows along the
// last axes of at most two vectors (of one or two whole vectors only where
// the row computes two reductions or more) are computed a lane a row, each
// row's reductions in its own lane.
// Every row pattern against the long double host reference, with edge
// values in some rows (so in some lanes and not in their neighbours), row
// counts that fill whole vectors and that leave the last vector part full.
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning cpu_rows(detail::DeviceTuning t, bool lanes) {
  cpu_row_layout(t, lanes);
  return t;
}

// y's one row kernel under `t`, run; its plan's lanes flag and width.
std::vector<float> run_rows(const Array<float>& y, const detail::DeviceTuning& base, bool lanes, bool* took, int* width) {
  const auto node = y.node();
  {
    const detail::GraphLock lock{node.get()};
    detail::Schedule s = detail::make_schedule({node}, cpu_rows(base, lanes));
    REQUIRE(s.kernel_count() == 1);
    const auto& plan = s.steps[0].kernel.plan;
    REQUIRE(plan.kind == codegen::KernelKind::Row);
    *took = plan.reduce.row_lanes;
    *width = plan.width;
    reset_stats();
    detail::run_schedule(*node->device, s);
    CHECK(stats().kernels_launched == 1);
  }
  return y.to_host();
}

}  // namespace

TEST_CASE("row fusion: short rows along the last axes in the lanes form, a lane a row", "[row][lanes]") {
  const auto base = detail::device_tuning();
  const auto all = patterns();
  // Rows of 1 to 31 floats (under two 16-float vectors), counts of rows
  // below, at and past whole vectors, and 3-D arrays; edge values (+-0, a
  // subnormal, +-inf, NaN) in rows 0 to 3, so in some lanes of a vector and
  // not in their neighbours.
  // A GPU, which never takes the lanes form by itself, builds fewer of
  // these kernels (each row length is a kernel of its own, and a GPU's
  // compiler takes seconds over the longest rows' shuffles).
  const bool cpu = default_device().info().type == "CPU";
  std::vector<Dims> cases;
  for (const std::int64_t m : {1, 3, 10, 15, 16, 17, 31, 32}) {
    if (!cpu && m != 3 && m != 17) continue;
    for (const std::int64_t rows : {2, 5, 16, 37, 100}) cases.push_back({rows, m});
  }
  if (cpu) {
    cases.push_back({7, 3, 5});
    cases.push_back({4, 6, 2});
  }
  int lanes_taken = 0;
  for (const Pattern& pat : all)
    for (const Dims& d : cases) {
      const int axis = int(d.size()) - 1;
      INFO(pat.name << " over the last axis of " << dims_str(d));
      const auto h = inputs(d, axis, test_seed(0x1a7e + std::uint64_t(numel(d))), pat.lo, pat.hi, numel(d) / d.back() >= 4 && d.back() >= 3);
      for (const bool lanes : {true, false}) {
        INFO("lanes form " << (lanes ? "on" : "off"));
        const auto y = pat.device(from_host(h, Shape(d)), axis);
        bool took = false;
        int width = 0;
        const auto got = run_rows(y, base, lanes, &took, &width);
        // Rows of one or two whole vectors: only a row of two reductions or more (not x - max, x - mean, x / sum).
        const bool whole = d.back() == 16 || d.back() == 32;
        const bool one_reduction = std::string(pat.name).rfind("x ", 0) == 0;
        CHECK(took == (lanes && !(whole && one_reduction)));
        if (took) {
          CHECK(width == 16);
          ++lanes_taken;
        }
        check_rows(pat, h, got, d, axis);
      }
    }
  CHECK(lanes_taken > 0);
}

TEST_CASE("row fusion: the lanes form is for rows of at most two vectors along the last axes, whole ones for two reductions", "[row][lanes]") {
  const auto base = detail::device_tuning();
  auto lanes_of = [&](const auto& y) {
    const auto node = y.node();
    const detail::GraphLock lock{node.get()};
    const detail::Schedule s = detail::make_schedule({node}, cpu_rows(base, true));
    REQUIRE(s.kernel_count() == 1);
    return s.steps[0].kernel.plan.reduce.row_lanes;
  };
  auto softmax = [](const auto& x, int axis) {
    const auto e = exp(x - max(x, axis, true));
    return e / sum(e, axis, true);
  };
  auto ones = [](std::int64_t r, std::int64_t c) { return from_host(std::vector<float>(std::size_t(r * c), 1.0f), {r, c}); };
  auto normalize = [](const auto& x, int axis) { return x / sum(x, axis, true); };
  CHECK(lanes_of(softmax(ones(64, 15), 1)));
  CHECK(lanes_of(softmax(ones(64, 16), 1)));  // one whole vector a row, two reductions
  CHECK(lanes_of(softmax(ones(64, 20), 1)));
  CHECK(lanes_of(softmax(ones(64, 32), 1)));  // two whole vectors
  CHECK_FALSE(lanes_of(softmax(ones(64, 33), 1)));
  CHECK(lanes_of(normalize(ones(64, 15), 1)));
  CHECK_FALSE(lanes_of(normalize(ones(64, 16), 1)));  // whole vectors, one reduction: the loop form, no tail
  CHECK(lanes_of(normalize(ones(64, 20), 1)));
  CHECK_FALSE(lanes_of(normalize(ones(64, 32), 1)));
  CHECK_FALSE(lanes_of(softmax(ones(15, 64), 0)));  // rows down columns: the column form
  CHECK(lanes_of(softmax(ones(64, 12).astype<double>(), 1)));         // doubles: vectors of 8
  CHECK(lanes_of(softmax(ones(64, 16).astype<double>(), 1)));  // two whole vectors of 8
  CHECK_FALSE(lanes_of(softmax(ones(64, 17).astype<double>(), 1)));
  CHECK_FALSE(lanes_of(normalize(ones(64, 16).astype<double>(), 1)));
  const auto w = from_host(std::vector<float>(15, 2.0f), {15});
  CHECK_FALSE(lanes_of(softmax(ones(64, 15) * w, 1)));  // an operand broadcast along the rows: read in place
  CHECK(lanes_of(softmax(ones(64, 15) * 2.0f, 1)));     // a scalar is uniform
}

TEST_CASE("row fusion: the lanes form in float64 and in integers, whole vectors and the last part full", "[row][lanes]") {
  const auto base = detail::device_tuning();
  // Every value different; a row max and the sum of a row are exact in
  // integers; float64 softmax against the long double host.
  const bool cpu = default_device().info().type == "CPU";
  for (const std::int64_t m : {3, 7, 12}) {
    if (!cpu && m == 7) continue;  // fewer kernels for a GPU to build (above)
    for (const std::int64_t rows : {8, 21}) {
      INFO(rows << " rows of " << m);
      std::vector<std::int32_t> hi(std::size_t(rows * m));
      std::vector<double> hd(hi.size());
      for (std::size_t i = 0; i < hi.size(); ++i) {
        hi[i] = std::int32_t((i * 7919) % 1009) - 500;
        hd[i] = double(hi[i]) / 64.0;
      }
      const auto xi = from_host(hi, {rows, m});
      const auto yi = xi - max(xi, 1, true) + sum(xi, 1, true);
      const auto xd = from_host(hd, {rows, m});
      const auto ed = exp(xd - max(xd, 1, true));
      const auto yd = ed / sum(ed, 1, true);
      bool took = false;
      {
        const auto n = yi.node();
        const detail::GraphLock lock{n.get()};
        detail::Schedule s = detail::make_schedule({n}, cpu_rows(base, true));
        REQUIRE(s.kernel_count() == 1);
        took = s.steps[0].kernel.plan.reduce.row_lanes;
        detail::run_schedule(*n->device, s);
      }
      CHECK(took);
      {
        const auto n = yd.node();
        const detail::GraphLock lock{n.get()};
        detail::Schedule s = detail::make_schedule({n}, cpu_rows(base, true));
        REQUIRE(s.kernel_count() == 1);
        CHECK(s.steps[0].kernel.plan.reduce.row_lanes == (m < 16 && m != 8));
        detail::run_schedule(*n->device, s);
      }
      const auto gi = yi.to_host();
      const auto gd = yd.to_host();
      for (std::int64_t r = 0; r < rows; ++r) {
        std::int32_t mx = hi[std::size_t(r * m)], sm = 0;
        long double dmx = hd[std::size_t(r * m)], dsum = 0;
        for (std::int64_t j = 0; j < m; ++j) {
          mx = std::max(mx, hi[std::size_t(r * m + j)]);
          sm += hi[std::size_t(r * m + j)];
          dmx = std::max(dmx, (long double)hd[std::size_t(r * m + j)]);
        }
        for (std::int64_t j = 0; j < m; ++j) dsum += std::exp((long double)hd[std::size_t(r * m + j)] - dmx);
        for (std::int64_t j = 0; j < m; ++j) {
          const std::size_t k = std::size_t(r * m + j);
          REQUIRE(gi[k] == hi[k] - mx + sm);
          const long double want = std::exp((long double)hd[k] - dmx) / dsum;
          REQUIRE(std::fabs((long double)gd[k] - want) <= 8 * DBL_EPSILON * want);
        }
      }
    }
  }
}
