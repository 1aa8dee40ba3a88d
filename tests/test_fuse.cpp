// fusecl::fuse: a replay computes what building and evaluating the graph
// again would (bit for bit: it launches the same kernels), with each call's
// own arguments, in the same kernel counts and with no graph built; what a
// plan cannot be replayed with (lazy or empty arguments, random draws,
// evaluation inside the function, an argument's memory read through another
// array, two devices, fusion off) runs the function each time, and info()
// says why.
#include "support/bound_guard.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace fusecl;
using A = Array<float>;

namespace {

// n floats: random values of both signs over many magnitudes, a different
// one in every lane, with the edge values mixed in.
std::vector<float> inputs(std::size_t n, std::uint64_t seed, bool edges = true) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    const double mag = std::ldexp(double(rng() % 1000000) / 1e6 + 0.5, int(rng() % 20) - 10);
    x = float(rng() % 2 ? mag : -mag);
  }
  if (edges) {
    const float e[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), 1e-40f, -1e-40f, FLT_MAX, -FLT_MAX, FLT_MIN, 1.0f};
    for (std::size_t i = 0; i < n && i < std::size(e) * 3; i += 3) v[(i * 7919) % n] = e[i / 3];
  }
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// What the tests fuse: elementwise with two results (one kernel), a row
// softmax (one row kernel), x - mean(x) (a whole-array reduction read again:
// two kernels, the second reading the first's output), and a transposed read.
std::tuple<A, A> two_results(const A& x, const A& y) {
  const A d = (log(abs(x) + 1.0f) + 0.5f * y * y) / (1.0f + abs(y));
  return {sqrt(abs(d)) * sin(x) + exp(-abs(y)), where(d < 0.0f, x, y - d)};
}
A softmax_rows(const A& x) {
  const A e = exp(x - max(x, 1, true));
  return e / sum(e, 1, true);
}
A centered(const A& x) { return x - mean(x); }
A plus_transpose(const A& x, const A& y) { return x + transpose(y); }

}  // namespace

TEST_CASE("fuse: a replay gives what evaluating the graph gives, with each call's own arguments", "[fuse]") {
  const std::size_t n = 4099;  // a vector tail on every width
  auto f = fuse(two_results);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const A x = from_host(inputs(n, seed)), y = from_host(inputs(n, seed + 100));
    auto [p, q] = f(x, y);
    auto [pr, qr] = two_results(x, y);
    eval(pr, qr);
    CHECK(same_bits(p.to_host(), pr.to_host()));
    CHECK(same_bits(q.to_host(), qr.to_host()));
  }
  const FuseInfo i = f.info();
  CHECK(i.traces == 1);
  CHECK(i.replays == 3);
  CHECK(i.unreplayed == 0);
  CHECK(i.signatures == 1);
}

TEST_CASE("fuse: row kernels, reductions read again, and transposed reads replay", "[fuse]") {
  auto soft = fuse(softmax_rows);
  auto cent = fuse(centered);
  auto tr = fuse(plus_transpose);
  for (const std::int64_t cols : {1, 3, 17, 1000}) {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const A x = from_host(inputs(std::size_t(7 * cols), seed, false), Shape{7, cols});
      const A got = soft(x), want = softmax_rows(x);
      CHECK(same_bits(got.to_host(), want.to_host()));
    }
  }
  for (const std::size_t n : {1u, 5u, 100000u, 1000003u}) {  // the larger ones split their reduction
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const A x = from_host(inputs(n, seed * 3, false));
      const A got = cent(x), want = centered(x);
      CHECK(same_bits(got.to_host(), want.to_host()));
    }
  }
  for (const auto& [r, c] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 65}, {257, 100}}) {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const A x = from_host(inputs(std::size_t(r * c), seed), Shape{r, c});
      const A y = from_host(inputs(std::size_t(r * c), seed + 7), Shape{c, r});
      const A got = tr(x, y), want = plus_transpose(x, y);
      CHECK(same_bits(got.to_host(), want.to_host()));
    }
  }
  CHECK(soft.info().traces == 4);
  CHECK(soft.info().replays == 4);
  CHECK(cent.info().replays == 4);
  CHECK(tr.info().replays == 3);
  CHECK(soft.info().unreplayed + cent.info().unreplayed + tr.info().unreplayed == 0);
}

TEST_CASE("fuse: a replay launches what evaluation launches, and moves nothing", "[fuse]") {
  auto cent = fuse(centered);
  auto two = fuse(two_results);
  const A x = from_host(inputs(1 << 20, 5)), y = from_host(inputs(1 << 20, 6));
  auto count = [](auto&& run) {
    reset_stats();
    run();
    finish();
    return stats();
  };
  const Stats evaluated = count([&] { eval(centered(x)); });
  (void)cent(x);  // plans
  const Stats replayed = count([&] { (void)cent(x); });
  CHECK(replayed.kernels_launched == evaluated.kernels_launched);
  CHECK(replayed.kernels_launched >= 1);
  CHECK(replayed.uploads == 0);
  CHECK(replayed.downloads == 0);
  CHECK(replayed.programs_built == 0);
  (void)two(x, y);
  const Stats both = count([&] { (void)two(x, y); });
  CHECK(both.kernels_launched == 1);
  CHECK(both.uploads + both.downloads == 0);
}

TEST_CASE("fuse: signatures are dtypes, shapes and aliasing, and the least recently used is dropped", "[fuse]") {
  auto f = fuse([](const A& a, const A& b) { return a * 2.0f - b; }, 2);
  const std::vector<float> hv = inputs(64, 9), hw = inputs(64, 10);
  const A v = from_host(hv), w = from_host(hw);
  // f(v, v) is planned with one buffer read twice: f(v, w) may not replay it.
  CHECK(same_bits(f(v, v).to_host(), (v * 2.0f - v).to_host()));
  CHECK(same_bits(f(v, w).to_host(), (v * 2.0f - w).to_host()));
  CHECK(same_bits(f(w, w).to_host(), (w * 2.0f - w).to_host()));
  CHECK(f.info().traces == 2);
  CHECK(f.info().replays == 1);
  // A third shape drops the plan least recently used.
  const A m = from_host(inputs(64, 11), Shape{8, 8});
  CHECK(same_bits(f(m, m).to_host(), (m * 2.0f - m).to_host()));
  CHECK(f.info().signatures == 2);
  CHECK(f.info().traces == 3);
  // A float64 argument is another signature; the function's own promotion holds.
  auto g = fuse([](const A& a, const Array<double>& b) { return a + b; });
  const Array<double> d = from_host(std::vector<double>{0.1, 0.2});
  const A a2 = from_host(std::vector<float>{1.5f, 2.5f});
  const auto r = g(a2, d);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(r)>, Array<double>>);
  CHECK(r.to_host() == (a2 + d).to_host());
  CHECK(g(a2, d).to_host() == (a2 + d).to_host());
  CHECK(g.info().replays == 1);
}

namespace {

// Written once for a float scalar (the reference, evaluated as a graph) and
// once for a 0-d array (what a fused function gets): each scalar meets
// arrays only, so both compute the same float32 operations.
template <class S>
std::tuple<A, A> with_scalars(const A& x, const A& y, const S& rate, const S& shift) {
  const A d = (x - shift) * rate + y;
  return {exp(-(rate * abs(y))) * d, where(x < shift, rate * y, d - rate)};
}
template <class S>
A softmax_at(const A& x, const S& temperature) {
  const A e = exp((x - max(x, 1, true)) * temperature);
  return e / sum(e, 1, true);
}
template <class S>
A centered_scaled(const A& x, const S& s) { return (x - mean(x)) * s; }

}  // namespace

TEST_CASE("fuse: scalar arguments are kernel arguments each replay takes from its call", "[fuse]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.02f, 3.5f, -0.0f, 1e-40f, -inf, std::numeric_limits<float>::quiet_NaN(), FLT_MAX, 1.0f};
  auto two = fuse([](const A& x, const A& y, const A& rate, const A& shift) { return with_scalars(x, y, rate, shift); });
  auto soft = fuse([](const A& x, const A& t) { return softmax_at(x, t); });
  auto cent = fuse([](const A& x, const A& s) { return centered_scaled(x, s); });
  const A x = from_host(inputs(4099, 31)), y = from_host(inputs(4099, 32));
  const A rows = from_host(inputs(7 * 1000, 33, false), Shape{7, 1000});
  const A big = from_host(inputs(1000003, 34, false));  // its mean in two kernels: the scalar in the second
  for (std::size_t k = 0; k < std::size(values); ++k) {
    const float v = values[k], w = values[(k + 3) % std::size(values)];
    INFO("scalars " << v << ", " << w);
    reset_stats();
    auto [p, q] = two(x, y, v, w);
    const A s = soft(rows, v);
    const A c = cent(big, w);
    finish();
    const Stats fused = stats();
    auto [pr, qr] = with_scalars(x, y, v, w);
    const A sr = softmax_at(rows, v), cr = centered_scaled(big, w);
    eval(pr, qr, sr, cr);
    CHECK(same_bits(p.to_host(), pr.to_host()));
    CHECK(same_bits(q.to_host(), qr.to_host()));
    CHECK(same_bits(s.to_host(), sr.to_host()));
    CHECK(same_bits(c.to_host(), cr.to_host()));
    CHECK(fused.uploads == 0);
    if (k > 0) CHECK(fused.programs_built == 0);  // a value is an argument, never a kernel of its own
  }
  CHECK(two.info().traces == 1);
  CHECK(two.info().replays == std::size(values) - 1);
  CHECK(soft.info().replays == std::size(values) - 1);
  CHECK(cent.info().replays == std::size(values) - 1);
}

TEST_CASE("fuse: a scalar argument is a 0-d array of its C++ type", "[fuse]") {
  const std::vector<float> hx = inputs(1000, 41);
  const A x = from_host(hx);
  // A double reaches the function as a 0-d float64 array: float32 with it is float64, as in NumPy.
  auto add = fuse([](const A& a, const Array<double>& d) { return a + d; });
  for (const double d : {0.1, -2.5e300, 1e-310}) {
    const auto r = add(x, d);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(r)>, Array<double>>);
    const std::vector<double> got = r.to_host();
    bool right = true;
    for (std::size_t i = 0; i < hx.size(); ++i) {
      const double want = double(hx[i]) + d;
      right = right && (got[i] == want || (std::isnan(got[i]) && std::isnan(want)));
    }
    CHECK(right);
  }
  CHECK(add.info().replays == 2);
  // An int32 scalar with float32 arrays: the cast to float64 is in the kernel, so each call's value counts.
  auto scale = fuse([](const A& a, const Array<std::int32_t>& k) { return a * k; });
  for (const int k : {3, -7, 2147483647}) {
    const std::vector<double> got = scale(x, k).to_host();
    bool right = true;
    for (std::size_t i = 0; i < hx.size(); ++i) {
      const double want = double(hx[i]) * double(k);
      right = right && (got[i] == want || (std::isnan(got[i]) && std::isnan(want)));
    }
    CHECK(right);
  }
  CHECK(scale.info().replays == 2);
  // Integers with integers; and a scalar's dtype is part of the signature.
  const Array<std::int32_t> xi = from_host(std::vector<std::int32_t>{1, -2, 3, 40000, -5});
  auto lin = fuse([](const Array<std::int32_t>& a, const Array<std::int32_t>& k) { return a * k + 1; });
  CHECK(lin(xi, 3).to_host() == std::vector<std::int32_t>{4, -5, 10, 120001, -14});
  CHECK(lin(xi, -1).to_host() == std::vector<std::int32_t>{0, 3, -2, -39999, 6});
  CHECK(lin.info().replays == 1);
  auto g = fuse([](const A& a, const auto& s) { return a * s; });
  (void)g(x, 2.0f).to_host();
  (void)g(x, 2.0).to_host();  // float64: another signature
  (void)g(x, 3.0f).to_host();
  CHECK(g.info().traces == 2);
  CHECK(g.info().replays == 1);
}

TEST_CASE("fuse: what cannot be replayed runs the function each time, and says why", "[fuse]") {
  const A x = from_host(inputs(1000, 21)), y = from_host(inputs(1000, 22));
  auto twice = [](auto& f, auto&&... args) {
    (void)f(args...);
    return f(args...);
  };
  SECTION("a lazy argument") {
    auto f = fuse([](const A& a) { return a * 3.0f; });
    const A got = twice(f, x + 1.0f);
    CHECK(same_bits(got.to_host(), ((x + 1.0f) * 3.0f).to_host()));
    CHECK(f.info().replays == 0);
    CHECK(f.info().unreplayed == 2);
    CHECK_THAT(f.info().last_reason, Catch::Contains("not evaluated"));
  }
  SECTION("a view argument") {
    auto f = fuse([](const A& a) { return a * 3.0f; });
    (void)twice(f, slice(x, 0, 1, 7));
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("not evaluated"));
  }
  SECTION("random numbers") {
    auto f = fuse([](const A& a) { return a + random::uniform<float>(a.shape(), 7); });
    const A got = twice(f, x);
    CHECK(same_bits(got.to_host(), (x + random::uniform<float>(x.shape(), 7)).to_host()));
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("random"));
  }
  SECTION("evaluation inside the function") {
    auto f = fuse([](const A& a) {
      const float first = a.to_host()[0];
      return a * first;
    });
    (void)twice(f, x);
    const A z = from_host(inputs(1000, 23));
    CHECK(same_bits(f(z).to_host(), (z * z.to_host()[0]).to_host()));  // not x's first value
    CHECK(f.info().replays == 0);
    CHECK(f.info().traces == 0);
    CHECK(f.info().unreplayed == 3);
    CHECK(f.info().signatures == 1);  // remembered as not replayable
    CHECK_THAT(f.info().last_reason, Catch::Contains("evaluated or uploaded arrays while it ran"));
  }
  SECTION("an upload inside the function") {
    std::vector<float> host(1000, 2.0f);
    auto f = fuse([&](const A& a) { return a * from_host(host); });
    (void)f(x);
    host.assign(1000, 3.0f);  // a replay would still read the first upload
    CHECK(same_bits(f(x).to_host(), (x * 3.0f).to_host()));
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("uploaded"));
  }
  SECTION("a fused function called inside another") {
    auto inner = fuse([](const A& a) { return a * 2.0f; });
    auto outer = fuse([&](const A& a) { return inner(a) + 1.0f; });
    (void)outer(x);
    (void)outer(x);  // inner replays inside outer's function: outer may not keep its result as a constant
    CHECK(same_bits(outer(y).to_host(), (y * 2.0f + 1.0f).to_host()));
    CHECK(outer.info().replays == 0);
    CHECK(inner.info().replays >= 1);
  }
  SECTION("a graph past the bound is evaluated early") {
    const test::BoundGuard bound(8);
    auto f = fuse([](const A& a) {
      A r = a;
      for (int i = 0; i < 20; ++i) r = r * 1.5f + 1.0f;
      return r;
    });
    (void)twice(f, x);
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("evaluated or uploaded arrays while it ran"));
  }
  SECTION("an argument's memory read through another array") {
    const A alias = x;  // the same node: fine
    auto f = fuse([&](const A& a) { return a + alias; });
    (void)twice(f, x);
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("argument's memory"));
  }
  SECTION("a result that is an argument") {
    auto f = fuse([](const A& a, const A& b) { return std::pair{a, a + b}; });
    auto [p, q] = twice(f, x, y);
    CHECK(same_bits(p.to_host(), x.to_host()));
    CHECK(f.info().replays == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("result is an argument"));
  }
  SECTION("an empty argument") {
    auto f = fuse([](const A& a) { return a + 1.0f; });
    const A e = from_host(std::vector<float>{});
    CHECK(twice(f, e).size() == 0);
    CHECK_THAT(f.info().last_reason, Catch::Contains("empty"));
  }
  SECTION("fusion off") {
    auto f = fuse([](const A& a) { return a * 2.0f + 1.0f; });
    (void)f(x);
    set_fusion(false);
    reset_stats();
    const A got = f(x);
    set_fusion(true);
    CHECK(stats().kernels_launched == 2);  // eager: one per operation
    CHECK(same_bits(got.to_host(), (x * 2.0f + 1.0f).to_host()));
    CHECK_THAT(f.info().last_reason, Catch::Contains("fusion is off"));
  }
  SECTION("arguments on two devices") {
    const Device other = open_device(default_device().info().id());
    auto f = fuse([](const A& a, const A& b) { return a + b.to(a.device()); });
    const A yo = y.to(other);
    eval(yo);
    const A got = twice(f, x, yo);
    CHECK(same_bits(got.to_host(), (x + y).to_host()));
    CHECK_THAT(f.info().last_reason, Catch::Contains("two devices"));
  }
}

TEST_CASE("fuse: captured arrays are read from the buffers they had when traced", "[fuse]") {
  const std::vector<float> hw = inputs(500, 31);
  const A w = from_host(hw);
  const A lazy_w = w * 0.5f;  // lazy: fused into the plan, its input held by it
  auto f = fuse([&](const A& a) { return a * w + lazy_w; });
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const A x = from_host(inputs(500, seed));
    CHECK(same_bits(f(x).to_host(), (x * w + w * 0.5f).to_host()));
  }
  CHECK(f.info().replays == 2);
}

TEST_CASE("fuse: results are arrays like any other, and replays from many threads agree", "[fuse][threads]") {
  auto f = fuse(two_results);
  const A x0 = from_host(inputs(3000, 41)), y0 = from_host(inputs(3000, 42));
  (void)f(x0, y0);
  constexpr int kThreads = 4, kCalls = 20;
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const A x = from_host(inputs(3000, std::uint64_t(100 * t + i))), y = from_host(inputs(3000, std::uint64_t(7 + i)));
        auto [p, q] = f(x, y);
        const A more = p + q;  // results feed later expressions
        auto [pr, qr] = two_results(x, y);
        eval(pr, qr);  // the same kernel as f's (one kernel computing p + q too could contract differently)
        if (!same_bits(more.to_host(), (pr + qr).to_host())) ++bad[std::size_t(t)];
      }
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) CHECK(bad[std::size_t(t)] == 0);
  CHECK(f.info().replays == std::uint64_t(kThreads * kCalls));
}
