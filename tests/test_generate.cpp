// Generated arrays: zeros/ones/full, arange, linspace, eye and the Philox
// random numbers, computed inside the kernels that read them (never
// uploaded), alone, inside expressions and views, and under reductions.
//
// Uniform random numbers are compared BITWISE with the host functions of
// codegen/philox.hpp (both sides compute one exact mapping from (flat index,
// seed)); normal ones within philox.hpp's normal_tolerance_ulps.
#include "codegen/philox.hpp"
#include "src/launch.hpp"
#include "support/device_compare.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <array>
#include <bit>
#include <numbers>
#include <string>

using namespace fusecl;
using namespace fusecl::test;
using fusecl::codegen::normal_f32;
using fusecl::codegen::normal_f64;
using fusecl::codegen::normal_tolerance_ulps;
using fusecl::codegen::uniform_f32;
using fusecl::codegen::uniform_f64;

namespace {

// a * b + c rounded twice, as the device computes it (FP_CONTRACT OFF): the
// volatile keeps the host compiler from contracting it into an fma.
template <class T>
T mul_add(T a, T b, T c) {
  volatile T p = a * b;
  return p + c;
}


}  // namespace

TEST_CASE("zeros ones and full are generated on the device without an upload", "[generate]") {
  reset_stats();
  CHECK(zeros<float>(Shape{3, 4}).to_host() == std::vector<float>(12, 0.0f));
  CHECK(ones<double>(Shape{5}).to_host() == std::vector<double>(5, 1.0));
  CHECK(full<std::int32_t>(Shape{2, 2, 2}, -7).to_host() == std::vector<std::int32_t>(8, -7));
  CHECK(full<std::uint8_t>(Shape{3}, 255).to_host() == std::vector<std::uint8_t>(3, 255));
  CHECK(full<bool>(Shape{4}, true).to_host() == std::vector<bool>(4, true));
  CHECK(full<float>(Shape{}, 2.5f).to_host() == std::vector<float>{2.5f});  // 0-d
  CHECK(zeros<float>(Shape{0, 3}).to_host().empty());
  CHECK(stats().uploads == 0);
  CHECK(zeros<float>(Shape{3, 4}).shape() == Shape{3, 4});
  SECTION("the value is a kernel argument: other values reuse the kernel") {
    (void)full<float>(Shape{10}, 1.0f).to_host();
    reset_stats();
    CHECK(full<float>(Shape{1000}, -3.25f).to_host() == std::vector<float>(1000, -3.25f));
    CHECK(stats().programs_built == 0);
    CHECK(stats().uploads == 0);
  }
  SECTION("inside an expression: still no upload, one kernel") {
    const auto x = from_host(std::vector<float>{1, 2, 3, 4}, {2, 2});
    reset_stats();
    CHECK((x * 2.0f + ones<float>(Shape{2, 2})).to_host() == std::vector<float>{3, 5, 7, 9});
    CHECK(stats().uploads == 0);
    CHECK(stats().kernels_launched == 1);
  }
}

TEST_CASE("arange with integer and float types and negative and empty ranges", "[generate][arange]") {
  reset_stats();
  CHECK(arange<std::int32_t>(5).to_host() == std::vector<std::int32_t>{0, 1, 2, 3, 4});
  CHECK(arange<std::int32_t>(-5, 5, 2).to_host() == std::vector<std::int32_t>{-5, -3, -1, 1, 3});
  CHECK(arange<std::int32_t>(10, 0, -3).to_host() == std::vector<std::int32_t>{10, 7, 4, 1});
  CHECK(arange<std::int64_t>(1e12, 1e12 + 10, 4).to_host() == std::vector<std::int64_t>{1'000'000'000'000, 1'000'000'000'004, 1'000'000'000'008});
  CHECK(arange<std::uint8_t>(250, 256).to_host() == std::vector<std::uint8_t>{250, 251, 252, 253, 254, 255});
  // Empty: stop on the wrong side of start, or equal to it.
  CHECK(arange<std::int32_t>(5, 5).shape() == Shape{0});
  CHECK(arange<std::int32_t>(5, 0).to_host().empty());
  CHECK(arange<std::int32_t>(0, 5, -1).to_host().empty());
  CHECK(arange<float>(0.0).size() == 0);
  // NumPy's length: ceil((stop - start) / step).
  CHECK(arange<float>(0, 1, 0.3).size() == 4);
  CHECK(arange<double>(1, -1, -0.25).size() == 8);
  CHECK(arange<float>(0.5).to_host() == std::vector<float>{0.0f});
  CHECK(stats().uploads == 0);
  CHECK_THROWS_AS(arange<float>(0, 1, 0), Error);
  CHECK_THROWS_AS(arange<float>(0, 1, INFINITY), Error);

  SECTION("float values are start + i * step") {
    // float64 computes exactly that (two roundings, as NumPy's fill does for
    // these ranges): equal. float32 rounds start and step to float first: the
    // product and the sum round once each, step's rounding is relative u, so
    // the error is below 3u (|start| + |i step|) = 1.5 FLT_EPSILON (...).
    const auto d = arange<double>(1, -1, -0.25).to_host();
    for (std::size_t i = 0; i < d.size(); ++i) CHECK(d[i] == mul_add(double(i), -0.25, 1.0));
    const double start = -3.7, step = 0.1;
    const auto f = arange<float>(start, 5, step).to_host();
    REQUIRE(f.size() == 87);  // ceil(86.99999999999999)
    for (std::size_t i = 0; i < f.size(); ++i) {
      const double want = start + double(i) * step;
      REQUIRE_EACH(std::fabs(double(f[i]) - want) <= 1.5 * FLT_EPSILON * (std::fabs(start) + std::fabs(double(i) * step)), "element " << i << ": got " << f[i] << ", want " << want);
    }
  }
}

TEST_CASE("linspace with and without the endpoint and with 0 and 1 samples", "[generate][linspace]") {
  reset_stats();
  SECTION("float64 is NumPy's start + i * step with the last element exactly stop") {
    for (const bool endpoint : {true, false}) {
      for (const std::int64_t num : {2, 5, 7, 50}) {
        const double start = -1.3, stop = 2.9;
        INFO("linspace(" << start << ", " << stop << ", " << num << ", endpoint " << endpoint << ")");
        const auto v = linspace<double>(start, stop, num, endpoint).to_host();
        REQUIRE(v.size() == std::size_t(num));
        const double step = (stop - start) / double(endpoint ? num - 1 : num);
        for (std::int64_t i = 0; i < num; ++i) {
          const double want = (endpoint && i == num - 1) ? stop : mul_add(double(i), step, start);
          CHECK(v[std::size_t(i)] == want);
        }
      }
    }
  }
  SECTION("float32 within 1.5 FLT_EPSILON of the exact value, ends exact") {
    const auto v = linspace<float>(0, 1, 11).to_host();
    REQUIRE(v.size() == 11);
    CHECK(v.front() == 0.0f);
    CHECK(v.back() == 1.0f);
    for (std::size_t i = 0; i < v.size(); ++i) CHECK(std::fabs(double(v[i]) - double(i) / 10) <= 1.5 * FLT_EPSILON * (double(i) / 10));
    const auto w = linspace<float>(10, -10, 4, false).to_host();  // 10, 5, 0, -5
    CHECK(w == std::vector<float>{10, 5, 0, -5});
  }
  SECTION("zero and one samples") {
    CHECK(linspace<float>(2, 3, 0).to_host().empty());
    CHECK(linspace<float>(2, 3, 0).shape() == Shape{0});
    CHECK(linspace<float>(2, 3, 1).to_host() == std::vector<float>{2.0f});
    CHECK(linspace<double>(2, 3, 1, false).to_host() == std::vector<double>{2.0});
    CHECK(linspace<double>(5, 5, 3).to_host() == std::vector<double>{5, 5, 5});
    CHECK_THROWS_AS(linspace<float>(0, 1, -1), Error);
  }
  CHECK(stats().uploads == 0);
}

TEST_CASE("eye with diagonal offsets and non-square shapes", "[generate][eye]") {
  auto ref = [](std::int64_t r, std::int64_t c, std::int64_t k) {
    return h_generate<float>({r, c}, [&](const Dims& i) { return i[1] - i[0] == k ? 1.0f : 0.0f; });
  };
  reset_stats();
  for (const auto& [r, c, k] : std::vector<std::array<std::int64_t, 3>>{
           {4, 4, 0}, {3, 5, 1}, {5, 3, -2}, {3, 5, 4}, {3, 3, 7}, {3, 3, -3}, {1, 6, 5}, {6, 1, -5}}) {
    INFO("eye(" << r << ", " << c << ", k=" << k << ")");
    const auto e = eye<float>(r, c, k);
    CHECK(e.shape() == Shape{r, c});
    CHECK(first_mismatch(e.shape(), e.to_host(), ref(r, c, k)) == -1);
  }
  CHECK(eye<std::int32_t>(3).to_host() == std::vector<std::int32_t>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  CHECK(eye<float>(0).shape() == Shape{0, 0});
  CHECK(eye<float>(3, 0).to_host().empty());
  CHECK(stats().uploads == 0);
}

TEST_CASE("random uniform numbers are bitwise the host Philox values", "[generate][random]") {
  for (const std::uint64_t seed : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(0xDEADBEEFCAFEF00Dull)}) {
    INFO("seed " << seed);
    reset_stats();
    const auto f = random::uniform<float>(Shape{33, 31}, seed).to_host();
    const auto d = random::uniform<double>(Shape{1023}, seed).to_host();
    CHECK(stats().uploads == 0);
    for (std::size_t i = 0; i < f.size(); ++i) {
      INFO("float32 element " << i);
      REQUIRE(std::bit_cast<std::uint32_t>(f[i]) == std::bit_cast<std::uint32_t>(uniform_f32(i, seed)));  // flat C-order index
    }
    for (std::size_t i = 0; i < d.size(); ++i) {
      INFO("float64 element " << i);
      REQUIRE(std::bit_cast<std::uint64_t>(d[i]) == std::bit_cast<std::uint64_t>(uniform_f64(i, seed)));
    }
  }
  SECTION("the shape does not matter, only the flat index; seeds differ") {
    const auto a = random::uniform<float>(Shape{10, 10}, 7).to_host();
    CHECK(random::uniform<float>(Shape{100}, 7).to_host() == a);
    CHECK(random::uniform<float>(Shape{2, 5, 10}, 7).to_host() == a);
    CHECK(random::uniform<float>(Shape{100}, 8).to_host() != a);
    CHECK(random::uniform<float>(Shape{100}, 7 + (std::uint64_t(1) << 32)).to_host() != a);  // the seed's high word counts
  }
  SECTION("indices past 2^32 use the counter's high word") {
    // A slice of a generator computes only the elements it reads, so a huge
    // array costs nothing.
    const std::int64_t big = (std::int64_t(1) << 32) + 100;
    const std::uint64_t seed = 99;
    const auto tail = slice(random::uniform<float>(Shape{big}, seed), 0, big - 50, std::nullopt).to_host();
    REQUIRE(tail.size() == 50);
    for (std::size_t i = 0; i < tail.size(); ++i) REQUIRE(tail[i] == uniform_f32(std::uint64_t(big - 50) + i, seed));
    CHECK(tail[0] != uniform_f32(std::uint64_t(big - 50) & 0xffffffffu, seed));
  }
  SECTION("values lie in [0, 1) and look uniform") {
    // 2^20 draws: mean 1/2 and variance 1/12 within 5 standard errors (the
    // seed is fixed: this cannot flake, only fail if the generator changes).
    const std::size_t n = std::size_t(1) << 20;
    const auto u = random::uniform<float>(Shape{std::int64_t(n)}, 2024).to_host();
    double m = 0, v = 0;
    for (float x : u) {
      REQUIRE(x >= 0.0f);
      REQUIRE(x < 1.0f);
      m += x;
    }
    m /= double(n);
    for (float x : u) v += (x - m) * (x - m);
    v /= double(n);
    CHECK(std::fabs(m - 0.5) <= 5 * std::sqrt(1.0 / 12 / double(n)));
    CHECK(std::fabs(v - 1.0 / 12) <= 5 * std::sqrt(1.0 / 180 / double(n)));
  }
}

TEST_CASE("random normal numbers are within the documented ulps of the host reference", "[generate][random]") {
  const std::uint64_t seed = 0x0123456789ABCDEFull;
  const auto f = random::normal<float>(Shape{1 << 16}, seed).to_host();
  const auto d = random::normal<double>(Shape{1 << 14}, seed).to_host();
  double worst_f = 0, worst_d = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double u = ulp_distance_f32(f[i], normal_f32(i, seed));
    worst_f = std::max(worst_f, u);
    INFO("float32 element " << i << ": got " << f[i] << ", host " << normal_f32(i, seed));
    REQUIRE(u <= normal_tolerance_ulps);
  }
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double u = ulp_distance_f64(d[i], normal_f64(i, seed));
    worst_d = std::max(worst_d, u);
    INFO("float64 element " << i << ": got " << d[i] << ", host " << normal_f64(i, seed));
    REQUIRE(u <= normal_tolerance_ulps);
  }
  INFO("worst float32 " << worst_f << " ulp, float64 " << worst_d << " ulp");
  SUCCEED();
  SECTION("moments of 2^20 draws: mean 0, variance 1 within 5 standard errors") {
    const std::size_t n = std::size_t(1) << 20;
    const auto z = random::normal<float>(Shape{std::int64_t(n)}, 77).to_host();
    double m = 0, v = 0;
    for (float x : z) m += x;
    m /= double(n);
    for (float x : z) v += (x - m) * (x - m);
    v /= double(n);
    CHECK(std::fabs(m) <= 5 / std::sqrt(double(n)));
    CHECK(std::fabs(v - 1) <= 5 * std::sqrt(2 / double(n)));
  }
}

TEST_CASE("Monte Carlo pi over 2^24 samples is one kernel with no upload and one download", "[generate][random]") {
  const std::int64_t n = std::int64_t(1) << 24;
  const std::uint64_t s1 = 2026, s2 = 2027;
  reset_stats();
  const auto u = random::uniform<float>(Shape{n}, s1);
  const auto v = random::uniform<float>(Shape{n}, s2);
  const float inside = mean(((u * u + v * v) <= 1.0f).astype<float>()).to_host()[0];
  // A mean of 2^24 values is split over work-groups; where the device's
  // OpenCL C lacks device-scope acq_rel atomics (NVIDIA's 1.2, for one) a
  // second, small kernel combines the groups' partials (README: split reductions).
  const std::uint64_t finish = detail::device_tuning().split_finish == codegen::SplitFinish::SecondKernel ? 1 : 0;
  CHECK(stats().kernels_launched == 1 + finish);
  CHECK(stats().uploads == 0);
  CHECK(stats().downloads == 1);
  CHECK(stats().bytes_downloaded == sizeof(float));
  const double pi = 4.0 * double(inside);
  // 5 standard errors of 4 * a Bernoulli(pi/4) mean.
  CHECK(std::fabs(pi - std::numbers::pi) <= 5 * 4 * std::sqrt(std::numbers::pi / 4 * (1 - std::numbers::pi / 4) / double(n)));
  // Exactly the host count: the same float arithmetic on the host, and the
  // device's mean of 0/1 values is exact (every partial sum is an integer
  // below 2^24, and the division is by a power of two).
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float a = uniform_f32(std::uint64_t(i), s1), b = uniform_f32(std::uint64_t(i), s2);
    volatile float aa = a * a, bb = b * b;
    count += (aa + bb) <= 1.0f;
  }
  CHECK(double(inside) == double(count) / double(n));

  // The final * 4 on the device is a reduction's consumer: a second kernel
  // (README: a reduction's consumer runs after it). Fewer samples, same kernels.
  const auto us = random::uniform<float>(Shape{1 << 16}, s1), vs = random::uniform<float>(Shape{1 << 16}, s2);
  const auto frac = mean(((us * us + vs * vs) <= 1.0f).astype<float>());
  reset_stats();
  const float pi4 = (frac * 4.0f).to_host()[0];
  CHECK(stats().kernels_launched == 2 + finish);
  CHECK(stats().uploads == 0);
  CHECK(pi4 == 4.0f * frac.to_host()[0]);
}

TEST_CASE("generators inside views and reductions", "[generate][views]") {
  reset_stats();
  SECTION("transpose of eye") {
    const auto t = transpose(eye<float>(3, 5, 1));
    const auto want = h_transpose(h_generate<float>({3, 5}, [](const Dims& i) { return i[1] - i[0] == 1 ? 1.0f : 0.0f; }));
    CHECK(first_mismatch(t.shape(), t.to_host(), want) == -1);
  }
  SECTION("slices, flips and reshapes of arange") {
    CHECK(slice(arange<std::int32_t>(20), 0, 3, 17, 4).to_host() == std::vector<std::int32_t>{3, 7, 11, 15});
    CHECK(flip(arange<std::int32_t>(5)).to_host() == std::vector<std::int32_t>{4, 3, 2, 1, 0});
    const auto m = reshape(arange<std::int32_t>(12), {3, 4});
    CHECK(m.to_host() == arange<std::int32_t>(12).to_host());
    CHECK(transpose(m).to_host() == std::vector<std::int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
    CHECK(slice(m, {range(std::nullopt, std::nullopt, -2), range(1, 3)}).to_host() == std::vector<std::int32_t>{9, 10, 1, 2});
    CHECK(broadcast_to(arange<std::int32_t>(3), Shape{2, 3}).to_host() == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2});
  }
  SECTION("a transposed slice of uniform numbers") {
    const std::uint64_t seed = 5;
    const auto r = transpose(slice(random::uniform<float>(Shape{6, 8}, seed), {range(1, 5), range(std::nullopt, std::nullopt, 3)}));
    const auto h = h_transpose(h_slice(h_generate<float>({6, 8}, [&](const Dims& i) { return uniform_f32(std::uint64_t(i[0] * 8 + i[1]), seed); }),
                                       {Slice{1, 5, 1}, Slice{{}, {}, 3}}));
    CHECK(first_mismatch(r.shape(), r.to_host(), h) == -1);
  }
  SECTION("an outer product of two aranges, reduced") {
    // (a[:, None] * b[None, :]).sum() = sum(a) * sum(b), all exact in int64.
    const auto a = arange<std::int64_t>(1, 101), b = arange<std::int64_t>(-50, 50, 3);
    const auto outer = expand_dims(a, 1) * expand_dims(b, 0);
    std::int64_t sb = 0;
    for (std::int64_t x = -50; x < 50; x += 3) sb += x;
    CHECK(sum(outer).to_host()[0] == 5050 * sb);
  }
  CHECK(stats().uploads == 0);
  SECTION("the generated values are not in the kernel source") {
    const std::string src = kernel_source(arange<float>(3.5, 100, 0.25) * 2.0f);
    CHECK_FALSE(contains(src, "3.5"));
    CHECK_FALSE(contains(src, "0.25"));
  }
}
