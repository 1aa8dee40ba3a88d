// Plans kept per device (src/plan_cache.hpp): an evaluation of a graph whose
// structure matches an earlier one's runs that one's kernels with its own
// buffers. It must give what scheduling afresh gives, bit for bit and in the
// same kernel counts, turn the same nodes into buffers, and never reuse a
// plan for a graph that differs in anything the schedule depends on: a
// shape, a scalar's dtype, a view's offset or strides, which inputs are the
// same memory, the device's tuning. Random draws are never kept. A scalar's
// value is not structure: a graph differing only there reuses the plan and
// computes with its own values.
#include "runtime/context.hpp"
#include "src/launch.hpp"
#include "src/plan_cache.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace fusecl;
using A = Array<float>;

namespace {

// n floats over many magnitudes, both signs, a different value in every
// lane, with the edge values mixed in.
std::vector<float> values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    const double mag = std::ldexp(double(rng() % 1000000) / 1e6 + 0.5, int(rng() % 16) - 8);
    x = float(rng() % 2 ? mag : -mag);
  }
  const float e[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                     std::numeric_limits<float>::quiet_NaN(), 1e-40f, -1e-40f, FLT_MAX, -FLT_MAX, FLT_MIN};
  if (n > 64)
    for (std::size_t i = 0; i < std::size(e); ++i) v[(i * 7919 + 3) % n] = e[i];
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Against a host reference: the same bits, or NaN on both sides (a GPU may
// give its own NaN pattern, NVIDIA's 0x7fffffff for one).
bool same_value(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }
bool same_values(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_value(a[i], b[i])) return false;
  return true;
}

class CacheSwitch {
 public:
  explicit CacheSwitch(bool on) : previous_(detail::set_plan_cache(on)) {}
  ~CacheSwitch() { detail::set_plan_cache(previous_); }
  CacheSwitch(const CacheSwitch&) = delete;
  CacheSwitch& operator=(const CacheSwitch&) = delete;

 private:
  bool previous_;
};

struct Run {
  std::vector<std::vector<float>> results;
  std::uint64_t kernels = 0, reused = 0;
};

// Builds the graph from fresh uploads of `inputs`, evaluates it once, and
// downloads its results; with the plan cache on or off.
Run run(const std::function<std::vector<A>(const std::vector<A>&)>& f, const std::vector<std::vector<float>>& inputs,
        const std::vector<Shape>& shapes, bool cache) {
  const CacheSwitch sw(cache);
  std::vector<A> in;
  for (std::size_t i = 0; i < inputs.size(); ++i) in.push_back(from_host(inputs[i], shapes[i]));
  finish();
  const Stats before = stats();
  std::vector<A> out = f(in);
  std::vector<detail::NodePtr> nodes;
  for (const auto& o : out) nodes.push_back(o.node());
  detail::evaluate_nodes(nodes);
  finish();
  const Stats after = stats();
  Run r{{}, after.kernels_launched - before.kernels_launched, after.plans_reused - before.plans_reused};
  for (const auto& o : out) r.results.push_back(o.to_host());
  return r;
}

struct Case {
  std::string name;
  std::vector<Shape> shapes;
  std::function<std::vector<A>(const std::vector<A>&)> f;
};

std::vector<Case> cases() {
  const Shape flat{4099}, rows{7, 1000}, odd{33, 65}, big{1000003};
  return {
      {"two results of one elementwise kernel", {flat, flat},
       [](const std::vector<A>& v) {
         const A d = (log(abs(v[0]) + 1.0f) + 0.5f * v[1] * v[1]) / (1.0f + abs(v[1]));
         return std::vector<A>{sqrt(abs(d)) * sin(v[0]) + exp(-abs(v[1])), where(d < 0.0f, v[0], v[1] - d)};
       }},
      {"row softmax", {rows},
       [](const std::vector<A>& v) {
         const A e = exp(v[0] - max(v[0], 1, true));
         return std::vector<A>{e / sum(e, 1, true)};
       }},
      {"x - mean(x), split in two kernels", {big}, [](const std::vector<A>& v) { return std::vector<A>{v[0] - mean(v[0])}; }},
      {"mean and std", {rows},
       [](const std::vector<A>& v) { return std::vector<A>{mean(v[0], {1}), stddev(v[0], {1})}; }},
      {"column sums", {odd}, [](const std::vector<A>& v) { return std::vector<A>{sum(v[0] * 2.0f, {0})}; }},
      {"a transposed read", {odd, Shape{65, 33}},
       [](const std::vector<A>& v) { return std::vector<A>{v[0] + transpose(v[1])}; }},
      {"views and a concatenation", {flat},
       [](const std::vector<A>& v) {
         const A s = slice(v[0], 0, 1, 4000, 3);
         return std::vector<A>{concatenate({s * 2.0f, flip(s)}) + 1.0f};
       }},
  };
}

}  // namespace

TEST_CASE("plan cache: a reused plan gives what scheduling afresh gives, bit for bit, in the same kernels",
          "[plan_cache]") {
  for (const Case& c : cases()) {
    INFO(c.name);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      std::vector<std::vector<float>> inputs;
      for (std::size_t i = 0; i < c.shapes.size(); ++i) inputs.push_back(values(std::size_t(c.shapes[i].size()), seed * 10 + i));
      const Run fresh = run(c.f, inputs, c.shapes, false);
      const Run first = run(c.f, inputs, c.shapes, true);  // kept (or reused from the seed before)
      const Run again = run(c.f, inputs, c.shapes, true);
      CHECK(fresh.reused == 0);
      CHECK(again.reused == 1);
      CHECK(again.kernels == fresh.kernels);
      CHECK(first.kernels == fresh.kernels);
      REQUIRE(again.results.size() == fresh.results.size());
      for (std::size_t k = 0; k < fresh.results.size(); ++k) {
        CHECK(same_bits(first.results[k], fresh.results[k]));
        CHECK(same_bits(again.results[k], fresh.results[k]));
      }
    }
  }
}

TEST_CASE("plan cache: a graph differing in a shape, a view or aliasing gets its own plan", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::vector<float> hx = values(5000, 1), hy = values(5000, 2);
  const A x = from_host(hx), y = from_host(hy);
  auto reused_by = [](auto&& make) {
    const std::uint64_t before = stats().plans_reused;
    A r = make();
    eval(r);
    return std::pair{r.to_host(), stats().plans_reused - before};
  };
  auto host = [](const std::vector<float>& a, const std::vector<float>& b, float s, std::size_t off, std::size_t n) {
    std::vector<float> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = a[i + off] * s + b[i];
    return r;
  };
  // Twice, so that the second of each is a reuse of the first's.
  for (int round = 0; round < 2; ++round) {
    const std::uint64_t expect = round == 0 ? 0 : 1;
    {
      auto [got, reused] = reused_by([&] { return x * 3.0f + y; });
      CHECK(same_values(got, host(hx, hy, 3.0f, 0, 5000)));
      CHECK(reused == expect);
    }
    {
      auto [got, reused] = reused_by([&] { return x * 5.0f + y; });  // another scalar: the same plan
      CHECK(same_values(got, host(hx, hy, 5.0f, 0, 5000)));
      CHECK(reused == 1);
    }
    {
      auto [got, reused] = reused_by([&] { return x * 3.0f + x; });  // the same memory twice
      CHECK(same_values(got, host(hx, hx, 3.0f, 0, 5000)));
      CHECK(reused == expect);
    }
    {
      auto [got, reused] = reused_by([&] { return slice(x, 0, 7, 4007) * 3.0f + slice(y, 0, 0, 4000); });  // a view's offset
      CHECK(same_values(got, host(hx, hy, 3.0f, 7, 4000)));
      CHECK(reused == expect);
    }
    {
      auto [got, reused] = reused_by([&] { return slice(x, 0, 8, 4008) * 3.0f + slice(y, 0, 0, 4000); });
      CHECK(same_values(got, host(hx, hy, 3.0f, 8, 4000)));
      CHECK(reused == expect);
    }
  }
  // Another shape: its own plan, then reused.
  const A z = from_host(values(77, 3));
  for (int round = 0; round < 2; ++round) {
    const std::uint64_t before = stats().plans_reused;
    const auto got = (z * 3.0f + z).to_host();
    CHECK(stats().plans_reused - before == std::uint64_t(round));
    CHECK(got.size() == 77);
  }
}

namespace {

struct ScalarCase {
  std::string name;
  std::vector<Shape> shapes;
  std::function<std::vector<A>(const std::vector<A>&, float)> f;
};

// Graphs with scalars in every kind of kernel: elementwise, row (with a
// mean's divisor beside them), grid-wide in two kernels, moments, columns,
// tiled, and a concatenation's several kernels.
std::vector<ScalarCase> scalar_cases() {
  const Shape flat{4099}, rows{7, 1000}, odd{33, 65}, big{1000003};
  return {
      {"two scalars and a constant", {flat, flat},
       [](const std::vector<A>& v, float s) { return std::vector<A>{v[0] * s + v[1] / (s * 2.0f) - 1.0f}; }},
      {"a double and an int scalar, cast to float32 on the host", {flat},
       [](const std::vector<A>& v, float s) { return std::vector<A>{v[0] * double(s) + int(s)}; }},
      {"where with scalar branches", {flat},
       [](const std::vector<A>& v, float s) { return std::vector<A>{where(v[0] < s, -s, v[0])}; }},
      {"softmax with a temperature", {rows},
       [](const std::vector<A>& v, float s) {
         const A e = exp((v[0] - max(v[0], 1, true)) * s);
         return std::vector<A>{e / sum(e, 1, true)};
       }},
      {"row normalization, scaled", {rows},
       [](const std::vector<A>& v, float s) {
         const A d = v[0] - mean(v[0], 1, true);
         return std::vector<A>{d / sqrt(mean(d * d, 1, true) + s * s) * s};
       }},
      {"x - mean(x) * s, in two kernels", {big},
       [](const std::vector<A>& v, float s) { return std::vector<A>{v[0] - mean(v[0]) * s}; }},
      {"mean and std of a scaled row", {rows},
       [](const std::vector<A>& v, float s) { return std::vector<A>{mean(v[0] * s, {1}), stddev(v[0] + s, {1})}; }},
      {"column sums", {odd}, [](const std::vector<A>& v, float s) { return std::vector<A>{sum(v[0] * s, {0})}; }},
      {"a transposed read", {odd, Shape{65, 33}},
       [](const std::vector<A>& v, float s) { return std::vector<A>{v[0] * s + transpose(v[1])}; }},
      {"a concatenation", {flat},
       [](const std::vector<A>& v, float s) {
         return std::vector<A>{concatenate({v[0] * s, slice(v[0], 0, 0, 100) + s, flip(v[0]) - 1.0f})};
       }},
  };
}

}  // namespace

TEST_CASE("plan cache: a graph differing only in its scalars' values reuses the plan with its own values",
          "[plan_cache]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float scalars[] = {3.0f, 0.5f, -0.0f, 1e-40f, -7.25f, inf, std::numeric_limits<float>::quiet_NaN(), FLT_MAX, 1.0f};
  for (const ScalarCase& c : scalar_cases()) {
    INFO(c.name);
    std::vector<std::vector<float>> inputs;
    for (std::size_t i = 0; i < c.shapes.size(); ++i) inputs.push_back(values(std::size_t(c.shapes[i].size()), 50 + i));
    std::uint64_t built = 0;
    for (std::size_t k = 0; k < std::size(scalars); ++k) {
      const float s = scalars[k];
      INFO("scalar " << s);
      const auto f = [&](const std::vector<A>& v) { return c.f(v, s); };
      const Run fresh = run(f, inputs, c.shapes, false);
      const Run got = run(f, inputs, c.shapes, true);
      // The first value's plan is made (or an earlier case's is reused); every later value reuses it.
      if (k > 0) CHECK(got.reused == 1);
      CHECK(got.kernels == fresh.kernels);
      REQUIRE(got.results.size() == fresh.results.size());
      for (std::size_t j = 0; j < fresh.results.size(); ++j) CHECK(same_bits(got.results[j], fresh.results[j]));
      // A scalar is an argument: no value builds a kernel of its own.
      if (k == 1) built = stats().programs_built;
      if (k > 1) CHECK(stats().programs_built == built);
    }
  }
}

TEST_CASE("plan cache: a loop over many scalar values keeps one plan, not one per value", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::vector<float> h = values(3000, 8);
  const A x = from_host(h);
  auto other = [&] { return ((x + 1.0f) * (x - 2.0f)).to_host(); };
  other();  // kept first, then 100 evaluations of another structure
  for (int step = 0; step < 100; ++step) {
    const float t = 0.01f * float(step);
    const std::uint64_t before = stats().plans_reused;
    const auto got = (x * t + t * t).to_host();
    CHECK(stats().plans_reused - before == (step == 0 ? 0u : 1u));
    std::vector<float> want(h);
    for (auto& v : want) v = v * t + t * t;
    CHECK(same_values(got, want));
  }
  // Under a cache of 32 plans, 100 values of one structure left the first one in.
  const std::uint64_t before = stats().plans_reused;
  other();
  CHECK(stats().plans_reused - before == 1);
}

TEST_CASE("plan cache: arrays the caller holds inside the graph are evaluated as without it", "[plan_cache]") {
  const std::vector<float> h = values(1000003, 4);
  std::vector<std::vector<float>> means, ys;
  std::vector<std::uint64_t> kernels;
  for (const bool cache : {false, true, true}) {
    const CacheSwitch sw(cache);
    const A x = from_host(h);
    const A m = mean(x);
    const A y = x - m;
    eval(y);
    finish();
    const std::uint64_t before = stats().kernels_launched;
    means.push_back(m.to_host());  // x - mean(x) combines the partials in y's kernel: m is computed now
    kernels.push_back(stats().kernels_launched - before);
    ys.push_back(y.to_host());
  }
  CHECK(kernels[1] == kernels[0]);
  CHECK(kernels[2] == kernels[0]);
  CHECK(same_bits(means[0], means[1]));
  CHECK(same_bits(means[0], means[2]));
  CHECK(same_bits(ys[0], ys[2]));
  // A concatenation read again has a kernel of its own: it becomes a buffer, reused or not.
  const std::vector<float> hc = values(33 * 65, 5);
  std::vector<std::vector<float>> sums;
  std::uint64_t reused = 0;
  for (const bool cache : {false, true, true}) {
    const CacheSwitch sw(cache);
    const A x = from_host(hc, Shape{33, 65});
    const A s = concatenate({x, x * 2.0f});
    const std::uint64_t r0 = stats().plans_reused;
    eval(s + 1.0f);
    reused += stats().plans_reused - r0;
    finish();
    const std::uint64_t before = stats().kernels_launched;
    sums.push_back(s.to_host());
    CHECK(stats().kernels_launched == before);
  }
  CHECK(reused == 1);  // the third evaluation reused the second's plan
  CHECK(same_bits(sums[0], sums[1]));
  CHECK(same_bits(sums[0], sums[2]));
}

TEST_CASE("plan cache: random draws are not kept", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::uint64_t before = stats().plans_reused;
  std::vector<std::vector<float>> draws;
  for (const std::uint64_t seed : {7, 7, 8}) draws.push_back((random::uniform<float>(Shape{1000}, seed) * 2.0f).to_host());
  CHECK(stats().plans_reused == before);  // the same graph twice (seed 7), not kept
  CHECK(same_bits(draws[0], draws[1]));
  CHECK(!same_bits(draws[1], draws[2]));
}

TEST_CASE("plan cache: a change of the device's tuning is a new plan", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::vector<float> h = values(4099, 5);
  const A x = from_host(h);
  auto once = [&] {
    const std::uint64_t before = stats().plans_reused;
    const auto got = (sqrt(abs(x)) + 1.0f).to_host();
    return std::pair{got, stats().plans_reused - before};
  };
  const auto [a, ra] = once();
  const auto [b, rb] = once();
  CHECK(rb == 1);
  detail::set_vector_bytes(4);
  const auto [c, rc] = once();
  const auto [d, rd] = once();
  detail::set_vector_bytes(0);
  const auto [e, re] = once();
  CHECK(rc == 0);  // made again for the new width
  CHECK(rd == 1);
  CHECK(re == 0);  // and again after the override is gone
  CHECK(same_bits(a, b));
  CHECK(same_bits(a, c));
  CHECK(same_bits(a, d));
  CHECK(same_bits(a, e));
  (void)ra;
}

TEST_CASE("plan cache: more structures than it keeps, all still right", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::vector<float> h = values(1000, 6);
  const A x = from_host(h);
  for (int round = 0; round < 2; ++round)
    for (int k = 1; k <= 40; ++k) {  // 40 structures (chains of k steps): past the 32 kept, the least recently used go
      A r = x;
      for (int j = 0; j < k; ++j) r = r * 0.5f + float(k);
      std::vector<float> want(h);
      for (auto& v : want)
        for (int j = 0; j < k; ++j) v = v * 0.5f + float(k);
      CHECK(same_values(r.to_host(), want));
    }
}

TEST_CASE("plan cache: once an evaluation is done, nothing of it holds the graph's buffers", "[plan_cache]") {
  // Keys are reused from one evaluation to the next (ScratchKey); one that
  // kept its graph's buffers would hold device memory the caller let go.
  const CacheSwitch on(true);
  rt::Runtime& runtime = rt::runtime();
  finish();
  const std::uint64_t before = rt::memory_budget(runtime).in_use;
  {
    const A x = from_host(values(1 << 18, 8));
    const A y = from_host(values(1 << 18, 9));
    for (int k = 0; k < 3; ++k) {  // scheduled, then the plan reused
      A r = x * 2.0f + y;
      eval(r);
    }
  }
  finish();
  CHECK(rt::memory_budget(runtime).in_use == before);
}

TEST_CASE("plan cache: threads evaluating one structure on their own arrays", "[plan_cache][threads]") {
  const CacheSwitch on(true);
  const int threads = 4, rounds = 20;
  std::vector<int> wrong(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < rounds; ++i) {
        const std::vector<float> h = values(3001, std::uint64_t(t * 100 + i));
        const A x = from_host(h);
        const auto got = (x * 2.0f - 1.0f).to_host();
        for (std::size_t j = 0; j < h.size(); ++j) {
          const float want = h[j] * 2.0f - 1.0f;
          if (!same_value(got[j], want)) ++wrong[std::size_t(t)];
        }
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) CHECK(wrong[std::size_t(t)] == 0);
}

TEST_CASE("plan cache: a concatenation of more than 255 inputs", "[plan_cache]") {
  const CacheSwitch on(true);
  const std::vector<float> h = values(600, 7);
  const A x = from_host(h);
  for (int round = 0; round < 2; ++round) {
    std::vector<A> parts;
    for (int i = 0; i < 300; ++i) parts.push_back(slice(x, 0, 2 * i, 2 * i + 2) * 2.0f);
    const std::uint64_t before = stats().plans_reused;
    const auto got = concatenate(parts).to_host();
    CHECK(stats().plans_reused - before == std::uint64_t(round));
    std::vector<float> want(h);
    for (auto& v : want) v *= 2.0f;
    CHECK(same_values(got, want));
  }
}
