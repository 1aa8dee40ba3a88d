// Monte Carlo estimate of pi: random points in the unit square, the fraction
// inside the quarter circle times 4. The random numbers are generated inside
// the kernel that counts them, so the whole estimate is one kernel, no upload
// and one 4-byte download.
#include <fusecl/fusecl.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) try {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 100'000'000;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2026;

  fusecl::reset_stats();
  const auto t0 = std::chrono::steady_clock::now();
  auto u = fusecl::random::uniform<float>({n}, seed);
  auto v = fusecl::random::uniform<float>({n}, seed + 1);
  // The fraction inside is one fused reduction; the final * 4 is one host multiply
  // (on the device it would be a second kernel: a reduction's consumer runs after it).
  auto inside = fusecl::mean((u * u + v * v <= 1.0f).astype<float>());
  const float estimate = 4.0f * inside.to_host()[0];
  const auto t1 = std::chrono::steady_clock::now();

  const auto s = fusecl::stats();
  std::printf("pi ~ %.6f from %lld samples on %s (%.1f ms, including any kernel build)\n", estimate, (long long)n,
              fusecl::device().name.c_str(), std::chrono::duration<double, std::milli>(t1 - t0).count());
  std::printf("uploads %llu, kernels %llu, downloads %llu (%llu bytes)\n", (unsigned long long)s.uploads,
              (unsigned long long)s.kernels_launched, (unsigned long long)s.downloads,
              (unsigned long long)s.bytes_downloaded);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "monte_carlo_pi failed: %s\n", e.what());
  return 1;
}
