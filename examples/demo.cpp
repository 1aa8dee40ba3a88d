// What fusecl does, on the default device: a chained expression written like
// NumPy becomes one generated OpenCL kernel; its inputs are uploaded once and
// its result downloaded once, and the answer matches the host.
#include <fusecl/fusecl.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main(int argc, char** argv) try {
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : std::size_t(1) << 22;
  const auto& dev = fusecl::device();
  std::printf("device: %s (%s) — %s\n", dev.name.c_str(), dev.platform_name.c_str(), fusecl::device_choice_reason().c_str());

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = dist(rng);
    hy[i] = dist(rng);
  }

  fusecl::reset_stats();
  auto t0 = std::chrono::steady_clock::now();
  auto x = fusecl::from_host(hx);
  auto y = fusecl::from_host(hy);
  auto z = fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f;  // lazy: nothing runs yet
  std::printf("\nexpression: sqrt(x*x + y*y) * sin(x) + exp(-y) * 0.5f over %zu floats\n", n);
  std::printf("\ngenerated OpenCL C:\n%s\n", fusecl::kernel_source(z).c_str());
  std::vector<float> out = z.to_host();  // uploads were done by from_host; one kernel, one download
  auto t1 = std::chrono::steady_clock::now();

  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double xd = hx[i], yd = hy[i];
    const double want = std::sqrt(xd * xd + yd * yd) * std::sin(xd) + std::exp(-yd) * 0.5;
    worst = std::max(worst, std::abs(out[i] - want) / std::max(1.0, std::abs(want)));
  }
  const auto s = fusecl::stats();
  std::printf("checked against the host (double precision): worst relative error %.3g — %s\n", worst,
              worst < 1e-5 ? "OK" : "MISMATCH");
  std::printf("uploads %llu, kernels %llu, downloads %llu; programs built %llu, loaded from disk cache %llu\n",
              (unsigned long long)s.uploads, (unsigned long long)s.kernels_launched, (unsigned long long)s.downloads,
              (unsigned long long)s.programs_built, (unsigned long long)s.programs_loaded);
  std::printf("time to first result (upload, build or load, run, download): %.1f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count());
  return worst < 1e-5 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "demo failed: %s\n", e.what());
  return 1;
}
