// Coordinates from a flat index in 32-bit arithmetic (issue 13; codegen
// KernelPlan::index32, DeviceTuning::index32, FUSECL_INDEX32): which index
// spaces fit, where the scheduler sets it and what the source then says,
// values against the host reference and bit for bit against 64-bit
// coordinates on broadcasts along middle axes, permuted views and strided
// reductions of odd shapes, and the internal error where a kernel made for
// it meets an index space of 2^31 positions or more.
#include "codegen/divider.hpp"
#include "codegen/render.hpp"
#include "runtime/context.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/each_check.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning with_index32(const Array<float>& y, bool on) {
  auto t = detail::tuning_of(*y.node()->device);
  t.index32 = on;
  return t;
}

// The kernels of a schedule whose coordinates take a division (ndim > 1).
int dividing_kernels(const detail::Schedule& s, bool index32) {
  int n = 0;
  for (const auto& st : s.steps) {
    const auto& p = st.kernel.plan;
    if (st.kind != detail::ScheduleStep::Kind::Kernel || p.ndim < 2) continue;
    ++n;
    CHECK(p.index32 == index32);
    const std::string src = codegen::render(p, codegen::kernel_name(p));
    CHECK((src.find("uint r_ = (uint)(") != std::string::npos) == index32);
    // 32-bit coordinates divide through the dimensions' dividers, 64-bit ones by them.
    CHECK((src.find("mul_hi(r_, dv") != std::string::npos) == index32);
    CHECK((src.find("r_ /= d") != std::string::npos) == !index32);
  }
  return n;
}

// y built by make() twice, run under each setting: the 32-bit run against
// the 64-bit one bit for bit, and against `want` (the host reference).
template <class Make>
void same_both_ways(Make make, const std::vector<float>& want) {
  std::vector<float> got[2];
  for (const bool on : {false, true}) {
    const Array<float> y = make();
    const detail::Schedule s = run_with(y, with_index32(y, on));
    CHECK(dividing_kernels(s, on) > 0);
    got[on] = y.to_host();
  }
  REQUIRE(got[0].size() == want.size());
  REQUIRE(got[1].size() == want.size());
  auto same = [](float a, float b) { return a == b || (a != a && b != b); };  // NaN where NaN
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (same(got[1][i], want[i]) && same(got[0][i], want[i])) continue;
    CHECK_EACH(same(got[1][i], want[i]), "element " << i << ": 32-bit " << got[1][i] << ", 64-bit " << got[0][i] << ", host " << want[i]);
    CHECK_EACH(same(got[0][i], want[i]), "element " << i << ": 32-bit " << got[1][i] << ", 64-bit " << got[0][i] << ", host " << want[i]);
    return;
  }
}

}  // namespace

TEST_CASE("index32: which index spaces fit 32-bit coordinates", "[index32]") {
  // Fewer than 2^31 positions: one computed a vector or a block past the
  // end still fits an unsigned 32-bit value.
  using detail::index_space_fits_32;
  const std::int64_t two16 = 65536, two31 = std::int64_t(1) << 31, two32 = std::int64_t(1) << 32;
  CHECK(index_space_fits_32({}));
  CHECK(index_space_fits_32({1}));
  CHECK(index_space_fits_32({two31 - 1}));
  CHECK_FALSE(index_space_fits_32({two31}));
  CHECK_FALSE(index_space_fits_32({two16, two16 / 2}));  // 2^31 exactly
  CHECK(index_space_fits_32({46339, 46341}));            // 2147395599, just under 2^31
  CHECK_FALSE(index_space_fits_32({3, 715827883}));      // 2^31 + 1
  CHECK(index_space_fits_32({3, 715827882}));            // 2^31 - 2
  CHECK_FALSE(index_space_fits_32({two32, two32, two32}));  // would overflow 64 bits
  CHECK(index_space_fits_32({two32, 0, two32}));         // empty
  CHECK_FALSE(index_space_fits_32({-1, 4}));
}

TEST_CASE("index32: dividers give n / d for every position below 2^31", "[index32]") {
  // codegen::divide computes what the kernels' expression does (divider.hpp).
  // Each divisor against the positions where a quotient changes (multiples
  // of d and their neighbours, spread up to the largest below 2^31), the
  // ends of the range and random positions.
  using codegen::divide;
  using codegen::divider_of;
  const std::int64_t two31 = std::int64_t(1) << 31;
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d <= 3000; ++d) divisors.push_back(d);
  for (int k = 12; k <= 31; ++k)
    for (std::int64_t e : {-3, -1, 0, 1, 3}) divisors.push_back((std::int64_t(1) << k) + e);
  for (std::int64_t d : {46337, 46341, 65535, 65537, 715827882, 715827883, 1000000007, 2147483647}) divisors.push_back(d);
  const std::uint64_t seed = test_seed(0x1d37);
  INFO(seed_message(seed));
  std::mt19937_64 next(seed);  // its raw output, which the standard fixes
  for (int i = 0; i < 2000; ++i) divisors.push_back(std::int64_t(next() % std::uint64_t(two31)) + 1);
  std::int64_t wrong = 0;
  for (const std::int64_t d : divisors) {
    if (d > two31) continue;
    const auto dv = divider_of(d);
    auto check = [&](std::int64_t n) {
      if (n < 0 || n >= two31) return;
      if (std::int64_t(divide(std::uint32_t(n), dv)) == n / d) return;
      if (++wrong <= 5) FAIL_CHECK(n << " / " << d << ": " << divide(std::uint32_t(n), dv) << ", not " << n / d);
    };
    const std::int64_t top = (two31 - 1) / d;  // the largest quotient
    for (std::int64_t q : {std::int64_t(0), std::int64_t(1), std::int64_t(2), top / 3, top / 2, top - 1, top, top + 1}) {
      check(q * d - 1);
      check(q * d);
      check(q * d + 1);
      check(q * d + d - 1);
    }
    check(two31 - 1);
    for (int k = 0; k < 64; ++k) check(std::int64_t(next() % std::uint64_t(two31)));
  }
  CHECK(wrong == 0);
  // Every position below 2^20 for a few divisors, exhaustively.
  for (const std::int64_t d : {3, 7, 641, 1000, 1021, 4099}) {
    const auto dv = divider_of(d);
    std::int64_t bad = 0;
    for (std::int64_t n = 0; n < (std::int64_t(1) << 20); ++n) bad += std::int64_t(divide(std::uint32_t(n), dv)) != n / d;
    INFO("d = " << d);
    CHECK(bad == 0);
  }
  // A dimension of 0 has no position: its divider is harmless.
  CHECK(divider_of(0).magic == 0);
  CHECK(divider_of(0).shift == 0);
}

TEST_CASE("index32: the divider's OpenCL expression on the device, against n / d", "[index32]") {
  // GPUs divide coordinates through emit_divide's expression; CPUs (this
  // suite's PoCL) divide, so the expression runs here in a kernel of its
  // own, its divider passed as launch.cpp passes it (a uint2 in 8 bytes).
  const std::size_t count = std::size_t(1) << 16;
  const std::string source = "__kernel void fcl_test_divide(__global const uint* n, __global uint* q, const uint2 dv) {\n"
                             "  const uint x = n[get_global_id(0)];\n"
                             "  q[get_global_id(0)] = " + codegen::emit_divide("x", "dv") + ";\n}\n";
  const std::uint64_t seed = test_seed(0x1d38);
  INFO(seed_message(seed));
  std::mt19937_64 next(seed);
  const std::int64_t two31 = std::int64_t(1) << 31;
  for (const std::int64_t d : {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(7), std::int64_t(641), std::int64_t(1021),
                               std::int64_t(4097), std::int64_t(46341), std::int64_t(65537), std::int64_t(715827883), two31 - 1, two31}) {
    INFO("d = " << d);
    // Each quotient's edges at spread multiples of d, then random positions.
    std::vector<std::uint32_t> n(count);
    const std::int64_t top = (two31 - 1) / d;
    for (std::size_t i = 0; i < count / 2; ++i) {
      const std::int64_t q = std::int64_t(next() % std::uint64_t(top + 1));
      n[i] = std::uint32_t(std::clamp<std::int64_t>(q * d + std::int64_t(i % 3) - 1, 0, two31 - 1));
    }
    for (std::size_t i = count / 2; i < count; ++i) n[i] = std::uint32_t(next() % std::uint64_t(two31));
    n[0] = 0, n[1] = std::uint32_t(two31 - 1);
    auto& rt = rt::runtime();
    auto in = rt::upload(rt, n.data(), count * sizeof(std::uint32_t));
    std::vector<std::uint32_t> q(count, 0xffffffffu);
    auto out = rt::upload(rt, q.data(), count * sizeof(std::uint32_t));
    const rt::KernelArg args[] = {rt::KernelArg::of_buffer(in.get()), rt::KernelArg::of_buffer(out.get()),
                                  rt::KernelArg::of_bits(codegen::divider_arg_bits(codegen::divider_of(d)), 8)};
    rt::launch_kernel(rt, "test: the divider's expression", [&] { return rt::KernelSource{"fcl_test_divide", source, {}}; }, args, count, 64);
    rt::download(rt, *out, 0, count * sizeof(std::uint32_t), q.data());
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i)
      if (std::int64_t(q[i]) != std::int64_t(n[i]) / d && ++wrong <= 3) FAIL_CHECK(n[i] << " / " << d << ": " << q[i]);
    CHECK(wrong == 0);
  }
}

TEST_CASE("index32: coordinates of millions of positions in 32 bits, against the host and 64-bit", "[index32]") {
  // x holds its flat position (exact in float below 2^24), m at (b, 0, k)
  // b * K + k: x - m is exact, and any coordinate wrong shows.
  for (const auto& dims : std::vector<std::vector<std::int64_t>>{{3, 4099, 1021}, {1031, 2, 4097}}) {
    const std::int64_t B = dims[0], M = dims[1], K = dims[2];
    INFO("shape (" << B << ", " << M << ", " << K << ")");
    std::vector<float> hx(std::size_t(B * M * K)), hm(std::size_t(B * K)), want(hx.size());
    for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = float(i);
    for (std::size_t i = 0; i < hm.size(); ++i) hm[i] = float(i);
    for (std::int64_t i = 0; i < B * M * K; ++i) want[std::size_t(i)] = float(i - (i / (M * K) * K + i % K));
    const auto x = from_host(hx, Shape(dims));
    const auto m = from_host(hm, Shape{B, 1, K});
    same_both_ways([&] { return x - m; }, want);
  }
}

TEST_CASE("index32: broadcasts along a middle axis, against the host and 64-bit", "[index32]") {
  // (B, M, K) - (B, 1, K): the statistics of a layer norm over the middle
  // axis, read through strides (K, 0, 1); odd extents leave vector tails.
  for (const auto& dims : std::vector<std::vector<std::int64_t>>{{3, 5, 7}, {2, 33, 17}, {5, 2, 9}, {1, 130, 3}, {4, 64, 65}}) {
    const std::int64_t B = dims[0], M = dims[1], K = dims[2];
    INFO("shape (" << B << ", " << M << ", " << K << ")");
    const std::uint64_t seed = test_seed(0x1d32);
    INFO(seed_message(seed));
    auto hx = spread_values<float>(std::size_t(B * M * K), seed);
    auto hm = spread_values<float>(std::size_t(B * K), seed + 1);
    // Edge values in some lanes of x and of the statistics.
    const float edge[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max()};
    for (std::size_t k = 0; k < std::size(edge); ++k) {
      if (3 * k + 1 < hx.size()) hx[3 * k + 1] = edge[k];
      if (2 * k < hm.size()) hm[2 * k] = edge[(k + 3) % std::size(edge)];
    }
    std::vector<float> want(hx.size());
    for (std::int64_t i = 0; i < B * M * K; ++i) {
      const std::int64_t b = i / (M * K), k = i % K;
      want[std::size_t(i)] = hx[std::size_t(i)] - hm[std::size_t(b * K + k)];
    }
    const auto x = from_host(hx, Shape(dims));
    const auto m = from_host(hm, Shape{B, 1, K});
    same_both_ways([&] { return x - m; }, want);
  }
}

TEST_CASE("index32: permuted views and 4-D broadcasts, against the host and 64-bit", "[index32]") {
  const std::uint64_t seed = test_seed(0x1d33);
  INFO(seed_message(seed));
  const std::int64_t A = 3, B = 5, C = 7, D = 2;
  const auto hx = spread_values<float>(std::size_t(A * B * C * D), seed);
  const auto hy = spread_values<float>(std::size_t(A * C * D), seed + 7);
  const auto x = from_host(hx, Shape{A, B, C, D});
  const auto y = from_host(hy, Shape{A, 1, C, D});
  // x's axes reversed: element (d, c, b, a) of the result is x[a, b, c, d],
  // times y broadcast along b (read through the same reversal).
  std::vector<float> want(hx.size());
  for (std::int64_t d = 0; d < D; ++d)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t a = 0; a < A; ++a) {
          const float xv = hx[std::size_t(((a * B + b) * C + c) * D + d)];
          const float yv = hy[std::size_t((a * C + c) * D + d)];
          want[std::size_t(((d * C + c) * B + b) * A + a)] = xv * yv;
        }
  same_both_ways([&] { return transpose(x * y); }, want);
}

TEST_CASE("index32: reductions over middle axes, 32-bit against 64-bit", "[index32]") {
  // Sums of spread values (multiples of 1/64 below 2^11) are exact in any
  // order: 32-bit and 64-bit kernels agree bit for bit, and with the host.
  const std::uint64_t seed = test_seed(0x1d34);
  INFO(seed_message(seed));
  const std::int64_t B = 6, M = 37, K = 11;
  const auto hx = spread_values<float>(std::size_t(B * M * K), seed);
  std::vector<float> want(std::size_t(B * K));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t k = 0; k < K; ++k) {
      double s = 0;
      for (std::int64_t r = 0; r < M; ++r) s += hx[std::size_t((b * M + r) * K + k)];
      want[std::size_t(b * K + k)] = float(s);
    }
  const auto x = from_host(hx, Shape{B, M, K});
  for (const bool on : {false, true}) {
    const Array<float> y = sum(x, 1);
    run_with(y, with_index32(y, on));
    const auto got = y.to_host();
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      REQUIRE_EACH(got[i] == want[i], "index32 " << on << ", output " << i);
    }
  }
}

TEST_CASE("index32: on by default, off with the setting, and never on 2^31 positions or more", "[index32]") {
  const auto x = from_host(spread_values<float>(2 * 3 * 5, 0x1d35), {2, 3, 5});
  const auto m = from_host(spread_values<float>(2 * 5, 0x1d36), {2, 1, 5});
  auto& dev = *x.node()->device;
  CHECK(detail::tuning_of(dev).index32);
  {
    const auto y = x - m;
    const detail::Schedule s = schedule_with(y, with_index32(y, true));
    REQUIRE(s.kernel_count() == 1);
    CHECK(s.steps[0].kernel.plan.index32);
    CHECK_FALSE(schedule_with(y, with_index32(y, false)).steps[0].kernel.plan.index32);
    // Contiguous kernels compute no coordinates: nothing to set.
    const auto z = x * 2.0f;
    CHECK_FALSE(schedule_with(z, with_index32(z, true)).steps[0].kernel.plan.index32);
  }
  // A kernel made for 32-bit coordinates never runs on a larger index space
  // (an internal error, which no kept plan reaches: shapes are in its key).
  {
    const auto y = x - m;
    const detail::GraphLock lock{y.node().get()};
    detail::Schedule sc = detail::make_schedule({y.node()}, with_index32(y, true));
    REQUIRE(sc.steps[0].kernel.plan.index32);
    sc.steps[0].kernel.args.dims = {2, std::int64_t(1) << 30, 5};
    CHECK_THROWS_WITH(detail::run_schedule(dev, sc), Catch::Contains("coordinates in 32 bits"));
  }
}
