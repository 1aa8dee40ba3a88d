// Compensated float sums in several chains a work-item (codegen ReduceSpec::
// chains, DeviceTuning::reduce_chains; CPUs take 4, GPUs 1): a work-group
// per output whose loop in vectors keeps C independent Kahan accumulators,
// chain c taking vector q + c * L of each step; a CPU's row kernel that
// loops over its row in vectors rotates C chains, one a vector. Each chain count is planned
// here with the count set, whatever this device's default, and run against
// the long double host: sums of small integers exactly, random values (every
// lane of every vector different) within the compensated bound, infinities
// and NaN as NumPy gives them. The lengths leave every remainder of the
// chains' steps: vectors left for chain 0 alone, elements past the last whole
// vector, a part shorter than one step, and rows split over groups.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// y (one reduction) planned on its device with `chains` chains, checked to
// have that many where it is a group per output in vectors (short ranges
// take a work-item per output, none), run; its values.
std::vector<float> run_with_chains(const Array<float>& y, int chains) {
  const auto node = y.node();
  {
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*node->device);
    t.reduce_chains = chains;
    detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() >= 1);
    const auto& plan = s.steps[0].kernel.plan;
    REQUIRE(plan.kind == codegen::KernelKind::Reduce);
    const std::string text = codegen::render(plan, "k");
    INFO(text);
    // The rows-in-lanes form (a GPU's short rows: lanes_per_row work-items
    // a row, its vectors few) keeps one chain.
    if (plan.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput && plan.reduce.lanes_per_row == 0 && plan.width > 1 &&
        chains > 1) {
      CHECK(int(plan.reduce.chains) == chains);
      CHECK(text.find("accv" + std::to_string(chains - 1) + " = ") != std::string::npos);
      CHECK(text.find("accv" + std::to_string(chains) + " = ") == std::string::npos);
    } else {
      CHECK(plan.reduce.chains == 0);
      CHECK(text.find("accv1") == std::string::npos);
    }
    detail::run_schedule(*node->device, s);
  }
  return y.to_host();
}

struct Exact {
  long double sum = 0, abs = 0;
};

Exact exact_row(const float* x, std::int64_t m) {
  Exact e;
  for (std::int64_t i = 0; i < m; ++i) {
    e.sum += x[i];
    e.abs += std::fabs(static_cast<long double>(x[i]));
  }
  return e;
}

// Lengths around the steps of a CPU's plan (groups of 16 work-items, 16
// floats a vector, so a step of C chains is C * 256 floats) and a GPU's (4
// floats a vector, up to 256 work-items): whole steps, a step less or more
// one vector, vectors left for chain 0 only, elements past the last vector.
// A GPU's compiler takes about a second a kernel, and each length and chain
// count is a kernel of its own: a GPU (whose default is one chain) builds
// fewer of them, the counts it would take from FUSECL_REDUCE_CHAINS.
bool on_gpu() { return default_device().info().type == "GPU"; }

const std::int64_t kLengths[] = {1,    15,   16,   17,    255,   257,   511,   769,   1024 + 256 + 3, 3 * 1024 + 2 * 256 + 15,
                                 4099, 8192, 9001, 65537, 99991, 262144 + 7 * 16 + 9, (1 << 20) + 5};

}  // namespace

TEST_CASE("compensated sums in chains: every count and remainder against the long double host", "[reduce][chains]") {
  const std::uint64_t seed = test_seed(0x5EED0C4A);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  const bool gpu = on_gpu();
  for (const int chains : {1, 2, 3, 4, 8}) {
    if (gpu && chains != 3 && chains != 8) continue;
    for (const std::int64_t n : kLengths) {
      INFO(chains << " chains, " << n << " elements");
      // Small integers: every partial sum exact in any order, so any element
      // dropped or taken twice by a chain's indexing shows.
      std::vector<float> ints(static_cast<std::size_t>(n));
      for (auto& v : ints) v = float(std::int64_t(rng() % 201) - 100);
      const Exact ei = exact_row(ints.data(), n);
      CHECK(run_with_chains(sum(from_host(ints)), chains)[0] == float(ei.sum));
      // Random values in [-1, 1) and [0, 1), every lane its own: within 4
      // FLT_EPSILON of sum|x| (test_reductions.cpp's bound for one chain).
      std::vector<float> r(static_cast<std::size_t>(n));
      for (auto& v : r) v = float(2 * rand_unit(rng) - 1);
      const Exact er = exact_row(r.data(), n);
      const float got = run_with_chains(sum(from_host(r)), chains)[0];
      INFO("got " << got << ", exact " << double(er.sum));
      CHECK(std::fabs(double(got) - double(er.sum)) <= 4 * FLT_EPSILON * double(er.abs));
      if (gpu && chains != 3) continue;
      const float mean_got = run_with_chains(mean(from_host(r)), chains)[0];
      CHECK(std::fabs(double(mean_got) - double(er.sum) / double(n)) <= 5 * FLT_EPSILON * double(er.abs) / double(n));
    }
  }
}

TEST_CASE("compensated sums in chains: 1e8 and then ones, which an uncompensated chain loses", "[reduce][chains]") {
  // Every chain compensates: a chain that added plainly would keep 1e8 and
  // drop each 1 it met after it (1e8 + 1 rounds to 1e8), here hundreds.
  // 1e8 at vector 16, which a CPU's plan (16 work-items of 16 floats) gives
  // the first work-item's second chain.
  const std::int64_t n = (std::int64_t(1) << 20) + 77;
  std::vector<float> h(static_cast<std::size_t>(n), 1.0f);
  h[16 * 16] = 1e8f;
  const double exact = 1e8 + double(n - 1);
  for (const int chains : {1, 2, 4, 8}) {
    INFO(chains << " chains");
    const float got = run_with_chains(sum(from_host(h)), chains)[0];
    INFO("got " << got << ", exact " << exact);
    CHECK(std::fabs(double(got) - exact) <= 4 * FLT_EPSILON * exact);
  }
}

TEST_CASE("compensated sums in chains: rows, each its own chains", "[reduce][chains]") {
  const std::uint64_t seed = test_seed(0x5EED0C4B);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (const int chains : {1, 3, 4}) {
    for (const std::int64_t m : {std::int64_t(1000), std::int64_t(4 * 256 + 2 * 16 + 3), std::int64_t(4099), std::int64_t(70001)}) {
      for (const std::int64_t rows : {std::int64_t(1), std::int64_t(3), std::int64_t(37)}) {
        INFO(chains << " chains, " << rows << " rows of " << m);
        std::vector<float> h(static_cast<std::size_t>(rows * m));
        for (auto& v : h) v = float(rand_unit(rng) * 8 - 2);
        const auto x = from_host(h, Shape{rows, m});
        const auto got = run_with_chains(sum(x, 1), chains);
        REQUIRE(got.size() == std::size_t(rows));
        for (std::int64_t i = 0; i < rows; ++i) {
          const Exact e = exact_row(h.data() + i * m, m);
          CHECK_EACH(std::fabs(double(got[std::size_t(i)]) - double(e.sum)) <= 4 * FLT_EPSILON * double(e.abs), "row " << i << ": got " << got[std::size_t(i)] << ", exact " << double(e.sum));
        }
      }
    }
  }
}

TEST_CASE("compensated sums in chains: infinities and NaN", "[reduce][chains]") {
  const float inf = std::numeric_limits<float>::infinity();
  for (const int chains : {1, 2, 4}) {
    INFO(chains << " chains");
    const std::int64_t n = 3 * 4096 + 77;
    std::vector<float> h(static_cast<std::size_t>(n), 1.5f);
    // One +inf: the sum is +inf, not NaN (a chain's compensation of an
    // infinite sum is 0, render_reduce.cpp's kahan_comp).
    h[4096 + 300] = inf;
    CHECK(run_with_chains(sum(from_host(h)), chains)[0] == inf);
    // +inf and -inf in different chains' vectors: NaN, as NumPy.
    h[4096 + 16 * 17 + 1] = -inf;
    CHECK(std::isnan(run_with_chains(sum(from_host(h)), chains)[0]));
    // A NaN past the last whole vector: NaN.
    std::vector<float> t(static_cast<std::size_t>(n), -0.25f);
    t[std::size_t(n - 3)] = std::nanf("");
    CHECK(std::isnan(run_with_chains(sum(from_host(t)), chains)[0]));
    // Values near FLT_MAX, spread over the chains, whose sum overflows: +inf.
    std::vector<float> big(static_cast<std::size_t>(n), 0.0f);
    for (std::int64_t i = 0; i < 8; ++i) big[std::size_t(i * 16 * 16 + 5)] = FLT_MAX / 4;
    CHECK(run_with_chains(sum(from_host(big)), chains)[0] == inf);
  }
}

TEST_CASE("compensated sums in chains: four on CPUs, one on GPUs", "[reduce][chains]") {
  if (std::getenv("FUSECL_REDUCE_CHAINS")) {
    WARN("FUSECL_REDUCE_CHAINS is set: the devices' defaults are not checked");
    return;
  }
  DeviceInfo info = default_device().info();
  info.type = "CPU";
  CHECK(detail::default_tuning(info).reduce_chains == 4);
  info.type = "GPU";
  CHECK(detail::default_tuning(info).reduce_chains == 1);
  // Only compensated float sums take chains: an integer sum and a float max
  // keep one accumulator whatever the setting.
  std::vector<std::int32_t> ints(5000, 3);
  std::vector<float> fl(5000, 0.5f);
  for (const bool is_max : {false, true}) {
    const auto node = is_max ? max(from_host(fl)).node() : sum(from_host(ints)).node();
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*node->device);
    t.reduce_chains = 4;
    const detail::Schedule s = detail::make_schedule({node}, t);
    CHECK(s.steps[0].kernel.plan.reduce.chains == 0);
  }
}

TEST_CASE("compensated sums in chains: a CPU's row kernels in the loop, column and lanes forms", "[reduce][chains][row]") {
  // A CPU's layout on this device (a work-item a row, 16 floats a vector):
  // rows too long to hold (the general form's loop), rows down leading axes
  // (the column form: a vector of columns a work-item), short rows (the
  // lanes form: a row a lane). Every row pattern, whose sums (x - mean,
  // x / sum, layer norm; not softmax's sum of exp) take C chains where a
  // row has at least C steps;
  // lengths leaving 0 to C - 1 steps past the last whole rotation, and
  // elements past the last vector.
  struct Form {
    const char* name;
    Dims d;
    int axis;
    bool lanes;
  };
  // A GPU (which takes none of these forms by itself) builds one of each
  // with 3 chains (on_gpu, above: these 18 kernels took 50 s on an H200).
  const bool gpu = on_gpu();
  std::vector<Form> forms;
  for (const std::int64_t m : {std::int64_t(129), std::int64_t(16 * 4 * 3 + 16 * 2 + 7), std::int64_t(1024), std::int64_t(1999)})
    if (!gpu || m == 16 * 4 * 3 + 16 * 2 + 7) forms.push_back({"the general form's loop", {19, m}, 1, false});
  for (const std::int64_t rows : {std::int64_t(3), std::int64_t(6), std::int64_t(1001)})
    if (!gpu || rows == 6) forms.push_back({"the column form", {rows, 64}, 0, false});
  for (const std::int64_t m : {std::int64_t(3), std::int64_t(10), std::int64_t(20), std::int64_t(31)})
    if (!gpu || m == 20) forms.push_back({"the lanes form", {203, m}, 1, true});
  for (const int chains : {1, 2, 3, 4}) {
    if (gpu && chains != 3) continue;
    for (const auto& f : forms) {
      const std::int64_t m = f.d[std::size_t(f.axis)];
      for (const auto& pat : patterns()) {
        INFO(chains << " chains, " << pat.name << ", " << f.name << " over rows of " << m);
        const auto h = inputs(f.d, f.axis, test_seed(0x5EED0C4C + std::uint64_t(m)), pat.lo, pat.hi, true);
        const auto y = pat.device(from_host(h, Shape(f.d)), f.axis);
        const auto node = y.node();
        {
          const detail::GraphLock lock{node.get()};
          auto t = detail::tuning_of(*node->device);
          cpu_row_layout(t, f.lanes);
          t.row_register_elements = 0;  // the general form loops, whatever the row's length
          t.reduce_chains = chains;
          detail::Schedule s = detail::make_schedule({node}, t);
          REQUIRE(s.kernel_count() == 1);
          const auto& plan = s.steps[0].kernel.plan;
          REQUIRE(plan.kind == codegen::KernelKind::Row);
          REQUIRE(plan.reduce.row_columns == (f.axis == 0 || f.lanes));
          REQUIRE(plan.reduce.row_lanes == f.lanes);
          if (!plan.reduce.row_columns) REQUIRE(plan.reduce.row_chunks == 0);
          // Steps of a work-item's loop: vectors of its row, or rows down its columns or lanes.
          const std::int64_t steps = plan.reduce.row_columns ? m : m / plan.width;
          REQUIRE(plan.width == 16);
          const bool takes = chains > 1 && steps >= chains;
          CHECK(int(plan.reduce.chains) == (takes ? chains : 0));
          // Layer norm's and x / sum's sums are compensated, and rotate.
          const std::string text = codegen::render(plan, "k");
          const bool sums = std::string(pat.name).find("max") == std::string::npos &&
                            std::string(pat.name).find("softmax") == std::string::npos;
          const std::string last = (plan.reduce.row_columns ? "acc_c" : "accv") + std::to_string(chains - 1) + " = a_";
          if (sums) CHECK((text.find(last) != std::string::npos) == takes);
          // Softmax's sum of exp keeps one chain (exp bounds its loop: render_row_loops.cpp's sum_chains).
          if (std::string(pat.name) == "softmax") CHECK(text.find(", c_ = comp") == std::string::npos);
          detail::run_schedule(*node->device, s);
        }
        check_rows(pat, h, y.to_host(), f.d, f.axis);
      }
    }
  }
}

TEST_CASE("compensated sums in chains: a CPU's row of 1e8 and then ones", "[reduce][chains][row]") {
  // x - mean(x) over rows of 65536 that start with 1e8: each of a row's 16
  // lanes x C chains meets about a thousand ones after 1e8 in the chain
  // that holds it, which a plain chain would drop (the mean then 1000 /
  // 65536 low, the outputs 0.015 off, against a bound of 1e-3).
  const std::int64_t rows = 3, m = 65536;
  std::vector<float> h(static_cast<std::size_t>(rows * m), 1.0f);
  for (std::int64_t r = 0; r < rows; ++r) h[std::size_t(r * m)] = 1e8f;
  const long double mean = (1e8L + (m - 1)) / m;
  for (const int chains : {1, 2, 4}) {
    INFO(chains << " chains");
    const auto x = from_host(h, Shape{rows, m});
    const auto y = x - fusecl::mean(x, 1, true);
    const auto node = y.node();
    {
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      cpu_row_layout(t, false);
      t.row_bytes = std::max<std::size_t>(t.row_bytes, std::size_t(4) << 20);  // a CPU's cache proxy: rows of 256 KiB in one kernel
      t.reduce_chains = chains;
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      REQUIRE(s.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
      REQUIRE(s.steps[0].kernel.plan.reduce.row_chunks == 0);
      detail::run_schedule(*node->device, s);
    }
    const auto got = y.to_host();
    for (std::int64_t r = 0; r < rows; ++r)
      for (const std::int64_t j : {std::int64_t(1), std::int64_t(777), m - 1}) {
        CHECK_EACH(std::fabs(double(got[std::size_t(r * m + j)]) - double(1 - mean)) <= 1e-3, "row " << r << ", element " << j << ": got " << got[std::size_t(r * m + j)] << ", want " << double(1 - mean));
      }
  }
}
