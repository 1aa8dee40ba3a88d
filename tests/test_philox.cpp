// The host Philox4x32-10 against the published known answers, the
// (index, seed) -> number mapping of codegen/philox.hpp, and the distribution
// of what comes out. Every sample uses a fixed seed, so these checks are
// deterministic: a statistical bound here can only fail if the code changes.
#include "codegen/philox.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

using namespace fusecl::codegen;
using Block = std::array<std::uint32_t, 4>;

namespace {
constexpr std::uint64_t kSeed = 0x0123456789ABCDEFull;
constexpr std::uint64_t kSamples = 1'000'000;
}  // namespace

TEST_CASE("philox4x32_10 reproduces Random123's known-answer vectors", "[philox]") {
  // Random123 tests/kat_vectors, the three "philox4x32 10" lines:
  // counter[4] key[2] -> output[4].
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) == Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("philox_block puts the index in the counter and the seed in the key", "[philox]") {
  const std::uint64_t i = 0x89ABCDEF01234567ull;
  const std::uint64_t s = 0xFEDCBA9876543210ull;
  CHECK(philox_block(i, s) == philox4x32_10({0x01234567, 0x89ABCDEF, 0, 0}, {0x76543210, 0xFEDCBA98}));
  // Both halves of both 64-bit inputs matter.
  CHECK(philox_block(1, 7) != philox_block(1 + (1ull << 32), 7));
  CHECK(philox_block(1, 7) != philox_block(1, 7 + (1ull << 32)));
}

TEST_CASE("uniform draws are the documented exact functions of the block", "[philox]") {
  for (std::uint64_t i : {0ull, 1ull, 2ull, 3ull, 4ull, 1000ull, 0xFFFFFFFFull, 0x100000000ull, ~0ull}) {
    const Block w = philox_block(i, kSeed);
    CAPTURE(i);
    CHECK(uniform_f32(i, kSeed) == static_cast<float>(w[0] >> 8) * 0x1.0p-24f);
    const std::uint64_t bits = ((std::uint64_t{w[0]} << 32) | w[1]) >> 11;
    CHECK(uniform_f64(i, kSeed) == static_cast<double>(bits) * 0x1.0p-53);
  }
}

TEST_CASE("uniform draws lie in 0 <= u < 1 on the 2^-24 / 2^-53 grid", "[philox]") {
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    const float f = uniform_f32(i, kSeed);
    const double d = uniform_f64(i, kSeed);
    REQUIRE(f >= 0.0f);
    REQUIRE(f < 1.0f);
    REQUIRE(d >= 0.0);
    REQUIRE(d < 1.0);
    REQUIRE(std::ldexp(f, 24) == std::floor(std::ldexp(f, 24)));
    REQUIRE(std::ldexp(d, 53) == std::floor(std::ldexp(d, 53)));
  }
}

TEST_CASE("uniform float32 passes mean, variance and chi-square checks", "[philox]") {
  constexpr int bins = 100;
  std::vector<std::uint64_t> count(bins, 0);
  double sum = 0, sum_sq = 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    const double u = uniform_f32(i, kSeed);
    sum += u;
    sum_sq += u * u;
    ++count[static_cast<int>(u * bins)];
  }
  const double n = kSamples;
  const double mean = sum / n, var = sum_sq / n - mean * mean;
  // Standard errors: sqrt(1/12 / n) = 2.9e-4 for the mean; about 7.5e-5 for
  // the variance. The bounds are over five standard errors.
  CHECK(std::abs(mean - 0.5) < 1.5e-3);
  CHECK(std::abs(var - 1.0 / 12.0) < 4e-4);
  double chi2 = 0;
  const double expected = n / bins;
  for (std::uint64_t c : count) chi2 += (c - expected) * (c - expected) / expected;
  // 99 degrees of freedom: mean 99, standard deviation 14.
  CHECK(chi2 < 99 + 6 * 14);
  CHECK(chi2 > 99 - 5 * 14);
}

TEST_CASE("uniform float64 has the right mean and variance", "[philox]") {
  double sum = 0, sum_sq = 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    const double u = uniform_f64(i, kSeed ^ 0x55);
    sum += u;
    sum_sq += u * u;
  }
  const double mean = sum / kSamples, var = sum_sq / kSamples - mean * mean;
  CHECK(std::abs(mean - 0.5) < 1.5e-3);
  CHECK(std::abs(var - 1.0 / 12.0) < 4e-4);
}

namespace {
struct Moments {
  double mean = 0, var = 0, within_one_sigma = 0, max_abs = 0;
};

template <class F>
Moments normal_moments(F draw) {
  double sum = 0, sum_sq = 0, within = 0, max_abs = 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    const double z = draw(i);
    sum += z;
    sum_sq += z * z;
    within += std::abs(z) < 1.0;
    max_abs = std::max(max_abs, std::abs(z));
  }
  const double n = kSamples;
  return {sum / n, sum_sq / n - (sum / n) * (sum / n), within / n, max_abs};
}
}  // namespace

TEST_CASE("normal draws have mean 0, variance 1 and Gaussian mass within one sigma", "[philox]") {
  // Standard errors over 1e6 samples: 1e-3 (mean), 1.4e-3 (variance),
  // 4.7e-4 (P(|z| < 1) = 0.682689).
  const Moments f = normal_moments([](std::uint64_t i) { return double(normal_f32(i, kSeed)); });
  CHECK(std::abs(f.mean) < 5e-3);
  CHECK(std::abs(f.var - 1.0) < 7e-3);
  CHECK(std::abs(f.within_one_sigma - 0.682689) < 2.5e-3);
  CHECK(f.max_abs <= std::sqrt(2.0 * 24.0 * std::numbers::ln2));  // u1 >= 2^-24

  const Moments d = normal_moments([](std::uint64_t i) { return normal_f64(i, kSeed + 1); });
  CHECK(std::abs(d.mean) < 5e-3);
  CHECK(std::abs(d.var - 1.0) < 7e-3);
  CHECK(std::abs(d.within_one_sigma - 0.682689) < 2.5e-3);
}

TEST_CASE("normal draws follow the documented Box-Muller mapping", "[philox]") {
  // Away from the zeros of the cosine a plain double evaluation of the
  // documented formula agrees to within one float ulp; this pins which words
  // feed u1 and u2 and the (0, 1] shift of u1.
  int compared = 0;
  for (std::uint64_t i = 0; i < 10'000; ++i) {
    const Block w = philox_block(i, kSeed);
    const double u1 = ((w[0] >> 8) + 1.0) * 0x1.0p-24;
    const double u2 = (w[1] >> 8) * 0x1.0p-24;
    const double c = std::cos(2.0 * std::numbers::pi * u2);
    if (std::abs(c) < 0.01) continue;
    const double want = std::sqrt(-2.0 * std::log(u1)) * c;
    const float got = normal_f32(i, kSeed);
    CAPTURE(i, want, got);
    REQUIRE(std::abs(got - want) <= std::abs(want) * 0x1.0p-23 + 1e-30);
    ++compared;
  }
  CHECK(compared > 9'000);
}

TEST_CASE("the same seed gives the same numbers, different seeds differ", "[philox]") {
  CHECK(uniform_f32(12345, 99) == uniform_f32(12345, 99));
  CHECK(normal_f64(12345, 99) == normal_f64(12345, 99));
  int equal = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) equal += uniform_f64(i, 1) == uniform_f64(i, 2);
  CHECK(equal == 0);
}

TEST_CASE("the OpenCL source defines the documented functions", "[philox]") {
  const std::string src(philox_opencl_source());
  for (const char* name : {"uint4 fusecl_philox(uint4 ctr, uint2 key)", "float fusecl_uniform_f(ulong i, ulong seed)",
                           "float fusecl_normal_f(ulong i, ulong seed)", "double fusecl_uniform_d(ulong i, ulong seed)",
                           "double fusecl_normal_d(ulong i, ulong seed)"}) {
    CAPTURE(name);
    CHECK(src.find(name) != std::string::npos);
  }
  // Everything double sits behind FUSECL_FP64, so the text builds on devices
  // without cl_khr_fp64; the text enables no extension itself.
  const auto guard = src.find("#ifdef FUSECL_FP64");
  REQUIRE(guard != std::string::npos);
  CHECK(src.find("double") > guard);
  CHECK(src.find("#pragma") == std::string::npos);
}
