// A GPU's rows in blocks of loads (codegen ReduceSpec::blocks; scheduler.cpp
// says where): each of a row's work-items takes as many blocks of 4 vectors
// (of 2 for 8-byte loads where the vectors divide unevenly), the last
// block's loads past the row's end reading the row's last vector and
// folding the identity instead (-inf for softmax's pair). So the elements
// that decide a row sit in its last block: NaN, infinities, the extreme, a
// row's only finite value among -inf, and rows whose vectors are a multiple
// of the block (no last block), one short of it and one past it, with
// scalars after the last whole vector. The layout is a GPU's
// (device_rows.hpp), set on any device's tuning; the results are checked
// against the host's, in long double where sums are.
#include "codegen/body.hpp"
#include "src/device_state.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

using LD = long double;

detail::DeviceTuning gpu_blocks() {
  auto t = gpu_reduction_tuning(*from_host(std::vector<float>{0.f}, {1}).node()->device, false);
  t.pair_sum_elements = 1;  // softmax's pair over rows of any length (launch.cpp: every GPU)
  t.reduce_chains = 1;      // compensated sums in one chain (launch.cpp: every GPU)
  return t;
}

// Logsumexp along axis 1, rows kept: the expression that becomes softmax's
// pair (one kernel for max and sum of exp).
template <class A>
auto lse_rows(const A& x) {
  const auto mx = max(x, 1, true);
  return log(sum(exp(x - mx), 1, true)) + mx;
}

// Rows of m floats in [-1, 1], different in every lane; the rows' last
// elements (the last block's, or the scalars after it) carry the row's
// deciding values: row 1 a NaN, row 2 +inf, row 3 -inf, row 4 the largest
// and smallest value, row 5 -inf but its last element (for logsumexp's
// -inf identity), row 6 -0.0 and +0.0 only.
std::vector<float> rows_with_edges(std::int64_t rows, std::int64_t m, std::uint64_t seed, bool lse) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> h(std::size_t(rows * m));
  for (auto& v : h) v = u(rng);
  const auto at = [&](std::int64_t r, std::int64_t k) -> float& { return h[std::size_t(r * m + k)]; };
  if (rows > 1 && !lse) at(1, m - 1 - (m > 3)) = NAN;
  if (rows > 2 && !lse) at(2, m - 2 + (m < 2)) = INFINITY;
  if (rows > 3) at(3, m - 1) = -INFINITY;
  if (rows > 4) at(4, m - 1) = 7.0f, at(4, m - 2) = -7.0f;
  if (rows > 5)
    for (std::int64_t k = 0; k + 1 < m; ++k) at(5, k) = -INFINITY;
  if (rows > 6)
    for (std::int64_t k = 0; k < m; ++k) at(6, k) = (k % 3) ? 0.0f : -0.0f;
  return h;
}

struct Want {
  LD sum = 0, abs_sum = 0, max = -INFINITY, min = INFINITY;
  bool nan = false;
};

template <class T>
Want row_facts(const std::vector<T>& h, std::int64_t r, std::int64_t m) {
  Want w;
  for (std::int64_t k = 0; k < m; ++k) {
    const T x = h[std::size_t(r * m + k)];
    if (std::isnan(x)) w.nan = true;
    w.sum += x, w.abs_sum += std::fabs(LD(x));
    w.max = std::fmax(w.max, LD(x)), w.min = std::fmin(w.min, LD(x));
  }
  return w;
}

// A row's max, min, sum or mean (its facts w, of m elements), and a sum's
// tolerance in precision eps: NaN where the row holds NaN, a sum's or a
// mean's too where it holds +inf and -inf.
LD row_want(const std::string& name, const Want& w, std::int64_t m, LD eps, LD& tol) {
  tol = 0;
  if (name == "max") return w.nan ? LD(NAN) : w.max;
  if (name == "min") return w.nan ? LD(NAN) : w.min;
  LD want = w.nan || (std::isinf(w.max) && std::isinf(w.min)) ? LD(NAN) : w.sum;
  tol = 8 * eps * w.abs_sum;
  if (name == "mean") want /= LD(m), tol = tol / LD(m) + 2 * eps * std::fabs(want);
  return want;
}

bool same(double got, LD want, LD tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return LD(got) == want;
  return std::isfinite(got) && std::fabs(LD(got) - want) <= tol;
}

}  // namespace

TEST_CASE("reductions over rows in blocks on a GPU: the last block predicated, every row length", "[reduce][blocks]") {
  const auto t = gpu_blocks();
  // Rows of 8 / 128 / 512 / 2048 floats: vectors a multiple of the
  // work-items' blocks (or one block short); 500, 1000, 1500: a last block
  // part full; 1001, 1027, 4099: scalars after the last whole vector.
  for (const std::int64_t m : {8, 36, 128, 500, 512, 1000, 1001, 1027, 1500, 2048, 4099})
    for (const std::int64_t rows : {7, 41}) {
      const std::uint64_t seed = test_seed(0xb10c + std::uint64_t(m * 53 + rows));
      INFO("rows of " << m << ", " << rows << " rows; " << seed_message(seed));
      const auto h = rows_with_edges(rows, m, seed, false);
      const auto x = from_host(h, {rows, m});
      struct Case {
        const char* name;
        Array<float> y;
      };
      for (const auto& c : {Case{"sum", sum(x, 1)}, Case{"max", max(x, 1)}, Case{"min", min(x, 1)}, Case{"mean", mean(x, 1)},
                            Case{"sum of squares", sum(x * x, 1)}}) {
        INFO(c.name);
        const detail::Schedule s = run_with(c.y, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& rs = s.steps[0].kernel.plan.reduce;
        if (rs.strategy == codegen::ReduceStrategy::GroupPerOutput && s.steps[0].kernel.plan.width > 1) CHECK(int(rs.blocks) == 4);
        const auto got = c.y.to_host();
        REQUIRE(got.size() == std::size_t(rows));
        const std::string name = c.name;
        for (std::int64_t r = 0; r < rows; ++r) {
          const Want w = row_facts(h, r, m);
          LD want = 0, tol = 0;
          if (name == "sum of squares") {
            for (std::int64_t k = 0; k < m; ++k) want += LD(h[std::size_t(r * m + k)]) * LD(h[std::size_t(r * m + k)]);
            tol = 8 * LD(FLT_EPSILON) * want;
          } else {
            want = row_want(name, w, m, LD(FLT_EPSILON), tol);
          }
          REQUIRE_EACH(same(got[std::size_t(r)], want, tol), "row " << r << ": got " << got[std::size_t(r)] << ", want " << double(want));
        }
      }
    }
}

TEST_CASE("reductions over rows in blocks on a GPU: int32 sums (in int64) and maxima, exact", "[reduce][blocks]") {
  const auto t = gpu_blocks();
  for (const std::int64_t m : {500, 1000, 1003, 2048}) {
    const std::int64_t rows = 9;
    auto h = spread_values<std::int32_t>(std::size_t(rows * m), test_seed(0xb10d + std::uint64_t(m)));
    // The row's extreme in its last element.
    for (std::int64_t r = 0; r < rows; ++r) h[std::size_t(r * m + m - 1)] = r % 2 ? 1000000 : -1000000;
    const auto x = from_host(h, {rows, m});
    const auto s = sum(x, 1);
    const auto mx = max(x, 1);
    const detail::Schedule plan = run_with(s, t);
    CHECK(int(plan.steps[0].kernel.plan.reduce.blocks) == 4);
    run_with(mx, t);
    const auto gs = s.to_host();
    const auto gm = mx.to_host();
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t want_s = 0;
      std::int32_t want_m = std::numeric_limits<std::int32_t>::min();
      for (std::int64_t k = 0; k < m; ++k) want_s += h[std::size_t(r * m + k)], want_m = std::max(want_m, h[std::size_t(r * m + k)]);
      REQUIRE_EACH(std::int64_t(gs[std::size_t(r)]) == want_s, "rows of " << m << ", row " << r);
      REQUIRE_EACH(gm[std::size_t(r)] == want_m, "rows of " << m << ", row " << r);
    }
  }
}

TEST_CASE("reductions over rows in blocks on a GPU: float64 loads in blocks of 2 where the vectors divide unevenly", "[reduce][blocks]") {
  if (!default_device().info().fp64) return;
  const auto t = gpu_blocks();
  // Rows of 500 / 1000 / 2000 doubles: vectors of 2 no multiple of the
  // row's work-items (blocks of 2, the last part full); 36, 1001, 4099:
  // scalars after the last whole vector; 512, 4096: a multiple (no blocks).
  for (const std::int64_t m : {36, 500, 512, 1000, 1001, 2000, 4096, 4099})
    for (const std::int64_t rows : {7, 41}) {
      const std::uint64_t seed = test_seed(0xb10f + std::uint64_t(m * 59 + rows));
      INFO("rows of " << m << " doubles, " << rows << " rows; " << seed_message(seed));
      const auto f = rows_with_edges(rows, m, seed, false);
      std::vector<double> h(f.size());
      // Doubles that float cannot hold, different in every lane.
      for (std::size_t i = 0; i < f.size(); ++i) h[i] = double(f[i]) + (std::isfinite(f[i]) && f[i] != 0 ? 1e-12 * double(i % 7) : 0.0);
      const auto x = from_host(h, {rows, m});
      struct Case {
        const char* name;
        Array<double> y;
      };
      for (const auto& c : {Case{"sum", sum(x, 1)}, Case{"max", max(x, 1)}, Case{"min", min(x, 1)}, Case{"mean", mean(x, 1)}}) {
        INFO(c.name);
        const detail::Schedule s = run_with(c.y, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& plan = s.steps[0].kernel.plan;
        const auto& rs = plan.reduce;
        if (rs.strategy == codegen::ReduceStrategy::GroupPerOutput && plan.width == 2) {
          const bool even = (m / 2) % codegen::group_row_items(rs) == 0;
          CHECK(int(rs.blocks) == (even ? 0 : 2));
        }
        const auto got = c.y.to_host();
        REQUIRE(got.size() == std::size_t(rows));
        const std::string name = c.name;
        for (std::int64_t r = 0; r < rows; ++r) {
          const Want w = row_facts(h, r, m);
          LD tol = 0;
          const LD want = row_want(name, w, m, LD(DBL_EPSILON), tol);
          REQUIRE_EACH(same(got[std::size_t(r)], want, tol), "row " << r << ": got " << got[std::size_t(r)] << ", want " << double(want));
        }
      }
    }
}

TEST_CASE("softmax's pair over rows in blocks on a GPU: logsumexp, -inf in the last block", "[reduce][blocks][pairs]") {
  const auto t = gpu_blocks();
  // Rows of 300 and 600 with 130 of them: half the work-items a row
  // (scheduler.cpp), each taking one more block.
  for (const std::int64_t m : {200, 256, 300, 500, 600, 1000, 1024, 1500, 4099})
    for (const std::int64_t rows : {7, 130}) {
      const std::uint64_t seed = test_seed(0xb10e + std::uint64_t(m * 31 + rows));
      INFO("logsumexp over rows of " << m << ", " << rows << " rows; " << seed_message(seed));
      auto h = rows_with_edges(rows, m, seed, true);
      for (auto& v : h) v *= 30.0f;  // exp's range
      const auto x = from_host(h, {rows, m});
      const auto y = lse_rows(x);
      const detail::Schedule s = run_with(y, t);
      std::string kernels;
      for (const auto& st : s.steps)
        kernels += " (kind " + std::to_string(int(st.kernel.plan.kind)) + ", online " + std::to_string(st.kernel.plan.reduce.online) + ", two_stage " +
                   std::to_string(st.kernel.plan.reduce.two_stage) + ", rows " + std::to_string(st.kernel.plan.reduce.rows_per_group) + ")";
      INFO("kernels:" << kernels);
      // The pair first (where the rows are few and long, in parts that a
      // second kernel combines, each part's blocks ending at its own end).
      REQUIRE(s.kernel_count() >= 1);
      const auto& rs = s.steps[0].kernel.plan.reduce;
      REQUIRE(rs.online);
      CHECK(int(rs.blocks) == 4);
      if (rs.rows_per_group > 1) CHECK(int(rs.local_size) <= 64);  // shared groups of at most 64 (scheduler.cpp)
      const auto got = y.to_host();
      REQUIRE(got.size() == std::size_t(rows));
      for (std::int64_t r = 0; r < rows; ++r) {
        const Want w = row_facts(h, r, m);
        LD sum_exp = 0;
        for (std::int64_t k = 0; k < m; ++k) sum_exp += std::exp(LD(h[std::size_t(r * m + k)]) - w.max);
        const LD want = std::log(sum_exp) + w.max;
        const LD tol = 32 * LD(FLT_EPSILON) * (1 + std::fabs(std::log(sum_exp))) + 2 * LD(FLT_EPSILON) * std::fabs(want);
        REQUIRE_EACH(same(got[std::size_t(r)], want, tol), "row " << r << ": got " << got[std::size_t(r)] << ", want " << double(want));
      }
    }
}

TEST_CASE("reductions in blocks: GPUs' loads of at most 4 bytes, of 8 where uneven, not arg-reductions, not a CPU's rows", "[reduce][blocks]") {
  const auto gpu = gpu_blocks();
  auto cpu = gpu;
  cpu_row_layout(cpu, false);
  const auto x = from_host(std::vector<float>(std::size_t(64 * 1000), 1.0f), {64, 1000});
  const auto plan_of = [](const auto& y, const detail::DeviceTuning& t) {
    const detail::GraphLock lock{y.node().get()};
    return detail::make_schedule({y.node()}, t).steps.at(0).kernel.plan;
  };
  CHECK(int(plan_of(sum(x, 1), gpu).reduce.blocks) == 4);
  CHECK(int(plan_of(sum(x, 1), cpu).reduce.blocks) == 0);
  CHECK(int(plan_of(argmax(x, 1), gpu).reduce.blocks) == 0);
  CHECK(int(plan_of(var(x, 1), gpu).reduce.blocks) == 0);
  // Softmax's pair over shared rows: 4 work-items a row of 300 floats (75
  // vectors in 80 slots) where 8 would leave 21 of 96 idle; 8 for rows of
  // 256 (64 vectors, none idle), 4 for rows of 200 (not 2).
  const auto pair_items = [&](std::int64_t m) {
    const auto f = from_host(std::vector<float>(std::size_t(256 * m), 1.0f), {256, m});
    const auto rs = plan_of(lse_rows(f), gpu).reduce;
    CHECK(rs.online);
    CHECK(int(rs.blocks) == 4);
    CHECK(rs.rows_per_group > 1);
    return codegen::group_row_items(rs);
  };
  CHECK(pair_items(300) == 4);
  CHECK(pair_items(256) == 8);
  CHECK(pair_items(200) == 4);
  if (default_device().info().fp64) {
    // 500 vectors a row, no multiple of its work-items (32 here): blocks of
    // 2; 2048, a multiple of them (256): none. (The groups' rows are the
    // device's: an NVIDIA GPU's group holds 8 rows of 1000, PoCL's one.)
    const auto d = from_host(std::vector<double>(std::size_t(64 * 1000), 1.0), {64, 1000});
    const auto plan_d = plan_of(min(d, 1), gpu);
    CHECK(500 % codegen::group_row_items(plan_d.reduce) != 0);
    CHECK(int(plan_d.reduce.blocks) == 2);
    const auto e = from_host(std::vector<double>(std::size_t(16 * 4096), 1.0), {16, 4096});
    const auto plan_e = plan_of(min(e, 1), gpu);
    CHECK(2048 % codegen::group_row_items(plan_e.reduce) == 0);
    CHECK(int(plan_e.reduce.blocks) == 0);
    CHECK(int(plan_of(min(d, 1), cpu).reduce.blocks) == 0);
    // Not softmax's pair of doubles: its loop as before.
    const auto pair = plan_of(lse_rows(d), gpu);
    CHECK(pair.reduce.online);
    CHECK(int(pair.reduce.blocks) == 0);
  }
}
