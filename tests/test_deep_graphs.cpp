// Deep graphs: long chains of every node kind (elementwise operations, casts,
// views that force copies, concatenations, reductions) are built, printed,
// evaluated and destroyed without recursion proportional to their depth (a
// 10^5-deep chain would overflow the stack of a recursive walk, crashing the
// test process), with the default graph bound (which evaluates them part by
// part) and with the bound raised so that the whole chain is one graph.
// Results are checked against the same computation on the host.
#include "src/node.hpp"
#include "support/bound_guard.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace fusecl;

namespace {

using test::BoundGuard;

constexpr std::uint32_t kHuge = 1000000000;  // as FUSECL_MAX_FUSED_OPS=1000000000 in the issue

// Different values in every lane, negative ones and zero included.
std::vector<float> lanes(std::size_t n) {
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = float(i) * 0.75f - 13.0f;
  return h;
}

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

Array<float> step_affine(const Array<float>& x) { return x * 0.5f + 1.0f; }

Array<float> step_rotate(const Array<float>& x) {  // the concatenate of slices: a rotation by one
  return concatenate({slice(x, 0, 1, std::nullopt), slice(x, 0, 0, 1)}, 0);
}

Array<float> step_transpose(const Array<float>& x) {  // reshape cannot view the transpose: a copy each step
  return reshape(transpose(reshape(x, {8, 8})), {64}) + 1.0f;
}

Array<float> step_cast(const Array<float>& x) { return (x.astype<double>() * 0.5 + 1.0).astype<float>(); }

Array<float> step_reduce(const Array<float>& x, const Array<float>& c) {  // a reduction of the last reduction
  return transpose(broadcast_to(mean(x, 1, true), Shape{8, 8})) * 0.5f + c;
}

void host_affine(std::vector<float>& h) {
  for (auto& v : h) v = v * 0.5f + 1.0f;
}
void host_rotate(std::vector<float>& h) { std::rotate(h.begin(), h.begin() + 1, h.end()); }
void host_transpose(std::vector<float>& h) {
  std::vector<float> t(64);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) t[std::size_t(j * 8 + i)] = h[std::size_t(i * 8 + j)] + 1.0f;
  h = t;
}
void host_cast(std::vector<float>& h) {
  for (auto& v : h) v = float(double(v) * 0.5 + 1.0);
}
void host_reduce(std::vector<float>& h, const std::vector<float>& c) {
  std::vector<double> m(8, 0.0);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) m[std::size_t(i)] += double(h[std::size_t(i * 8 + j)]) / 8;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) h[std::size_t(i * 8 + j)] = float(m[std::size_t(j)]) * 0.5f + c[std::size_t(i * 8 + j)];
}

void require_equal(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("lane " << i);
    REQUIRE(got[i] == want[i]);
  }
}

}  // namespace

TEST_CASE("deep graphs: a 10^5-deep elementwise chain in one graph is built printed and destroyed", "[deep]") {
  const BoundGuard bound(kHuge);
  auto x = from_host(lanes(64));
  reset_stats();
  for (int i = 0; i < 100000; ++i) x = step_affine(x);
  CHECK(stats().auto_evaluations == 0);
  CHECK(stats().kernels_launched == 0);
  // A view pushed through the whole chain, down to the buffer it loads.
  auto y = flip(x);
  const std::string dot = to_dot(y);
  CHECK(count_of(dot, "label=\"add") == 100000);
  CHECK(count_of(dot, "label=\"multiply") == 100000);
  x = Array<float>();
  y = Array<float>();  // the last owner: the whole chain goes here
  CHECK(stats().kernels_launched == 0);
}

TEST_CASE("deep graphs: x = x * 0.5 + 1 for 3000 steps with the bound raised is split into kernels", "[deep]") {
  // The FUSECL_MAX_FUSED_OPS=1000000000 reproducer: one body of 6000
  // operations crashed the generator; it is split into kernels of a size
  // that builds, whatever the bound allows.
  const BoundGuard bound(kHuge);
  auto h = lanes(64);
  auto x = from_host(h);
  reset_stats();
  for (int i = 0; i < 3000; ++i) {
    x = step_affine(x);
    host_affine(h);
  }
  CHECK(stats().auto_evaluations == 0);
  const std::string src = kernel_source(x);  // the last kernel's source, the parts below evaluated
  CHECK(count_of(src, " + ") < 4 * 4096);
  require_equal(x.to_host(), h);
  // 6000 scalar arguments cannot fit one kernel (1 KiB of arguments on
  // PoCL): a few dozen kernels, not one per level.
  INFO("kernels: " << stats().kernels_launched);
  CHECK(stats().kernels_launched >= 2);
  CHECK(stats().kernels_launched <= 200);
}

TEST_CASE("deep graphs: a 10^5-deep elementwise chain evaluates part by part under the default bound", "[deep]") {
  auto h = lanes(64);
  auto x = from_host(h);
  reset_stats();
  for (int i = 0; i < 100000; ++i) {
    x = step_affine(x);
    if (i % 7 == 0) x = x - 0.25f;  // keep the values moving off the fixed point
    host_affine(h);
    if (i % 7 == 0)
      for (auto& v : h) v = v - 0.25f;
  }
  CHECK(stats().auto_evaluations > 0);
  require_equal(x.to_host(), h);
}

TEST_CASE("deep graphs: a chain of concatenated slices evaluates and destroys at any bound", "[deep][concat]") {
  // The first reproducer (10^4 steps: every concatenation is two kernels).
  auto h = lanes(64);
  auto x = from_host(h);
  reset_stats();
  for (int i = 0; i < 10000; ++i) {
    x = step_rotate(x);
    host_rotate(h);
  }
  CHECK(stats().auto_evaluations > 0);  // the bound counts concatenations too
  require_equal(x.to_host(), h);
  {
    // The bound raised: 2000 concatenations in one evaluation.
    const BoundGuard bound(kHuge);
    auto h2 = lanes(64);
    auto y = from_host(h2);
    reset_stats();
    for (int i = 0; i < 2000; ++i) {
      y = step_rotate(y);
      host_rotate(h2);
    }
    CHECK(stats().auto_evaluations == 0);
    CHECK(count_of(kernel_source(y + 1.0f), "__kernel") == 1);  // evaluates every concatenation below
    CHECK(stats().kernels_launched == 2 * 2000);
    require_equal(y.to_host(), h2);
    // 10^5 deep, never evaluated: printed and destroyed.
    auto z = from_host(lanes(64));
    for (int i = 0; i < 100000; ++i) z = step_rotate(z);
    CHECK(count_of(to_dot(z), "label=\"concatenate") == 100000);
  }
}

TEST_CASE("deep graphs: a chain of views that copy evaluates and destroys at any bound", "[deep][views]") {
  auto h = lanes(64);
  auto x = from_host(h);
  reset_stats();
  for (int i = 0; i < 10000; ++i) {
    x = step_transpose(x);
    host_transpose(h);
  }
  CHECK(stats().auto_evaluations > 0);  // the bound counts the copies and views too
  require_equal(x.to_host(), h);
  const BoundGuard bound(kHuge);
  auto z = from_host(lanes(64));
  for (int i = 0; i < 100000; ++i) z = step_transpose(z);
  CHECK(count_of(to_dot(z), "label=\"contiguous") == 100000);
}

TEST_CASE("deep graphs: a chain of casts evaluates and destroys at any bound", "[deep][cast]") {
  auto h = lanes(64);
  auto x = from_host(h);
  for (int i = 0; i < 10000; ++i) {
    x = step_cast(x);
    if (i % 5 == 0) x = x - 0.125f;
    host_cast(h);
    if (i % 5 == 0)
      for (auto& v : h) v = v - 0.125f;
  }
  require_equal(x.to_host(), h);
  const BoundGuard bound(kHuge);
  auto z = from_host(lanes(64));
  for (int i = 0; i < 100000; ++i) z = step_cast(z);
  CHECK(count_of(to_dot(z), "label=\"astype") == 200000);
}

TEST_CASE("deep graphs: reductions of reductions evaluate and destroy at any bound", "[deep][reduce]") {
  const auto c_host = lanes(64);
  const auto c = from_host(c_host, Shape{8, 8});
  auto h = c_host;
  auto x = from_host(h, Shape{8, 8});
  reset_stats();
  for (int i = 0; i < 2000; ++i) {
    x = step_reduce(x, c);
    host_reduce(h, c_host);
  }
  CHECK(stats().auto_evaluations > 0);  // the bound counts the reductions too
  const auto got = x.to_host();
  for (std::size_t i = 0; i < 64; ++i) {
    INFO("lane " << i);
    REQUIRE(got[i] == Approx(h[i]).margin(1e-4));
  }
  const BoundGuard bound(kHuge);
  auto z = from_host(c_host, Shape{8, 8});
  for (int i = 0; i < 100000; ++i) z = step_reduce(z, c);
  CHECK(count_of(to_dot(z), "label=\"mean") == 100000);
}

TEST_CASE("deep graphs: a never-evaluated chain of 10^6 nodes is destroyed without recursion", "[deep]") {
  const BoundGuard bound(kHuge);
  const auto y = from_host(lanes(16));
  auto x = y;
  reset_stats();
  for (int i = 0; i < 1000000; ++i) x = x + y;
  CHECK(stats().auto_evaluations == 0);
  x = Array<float>();
  CHECK(stats().kernels_launched == 0);
  CHECK(y.to_host() == lanes(16));
}

TEST_CASE("deep graphs: a body past the instruction cap is split whatever the bound", "[deep]") {
  // No scalar arguments: only the cap on instructions splits this chain of
  // 10^4 operations (it used to fail with an internal error past 32000).
  const BoundGuard bound(kHuge);
  auto h = lanes(64);
  const auto y = from_host(lanes(64));
  auto x = from_host(h);
  reset_stats();
  for (int i = 0; i < 10000; ++i) x = i % 2 ? -x : fmin(x, y);
  for (int i = 0; i < 10000; ++i)
    for (std::size_t k = 0; k < 64; ++k) h[k] = i % 2 ? -h[k] : std::fmin(h[k], lanes(64)[k]);
  require_equal(x.to_host(), h);
  INFO("kernels: " << stats().kernels_launched);
  CHECK(stats().kernels_launched >= 10);
  CHECK(stats().kernels_launched <= 40);
}
