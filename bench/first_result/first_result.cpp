// Time to first result in a fresh process: from the start of main — device
// discovery, context, upload, kernel build or cache load, launch, download —
// to the answer on the host. Run it twice with one FUSECL_CACHE_DIR to see the
// disk cache (bench/first_result/run.sh does that under each driver setting).
// Prints one JSON object.
#include <fusecl/fusecl.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) try {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 1 << 20;
  std::vector<float> hx(n, 0.5f), hy(n, 1.5f);
  auto x = fusecl::from_host(hx);
  auto y = fusecl::from_host(hy);
  const auto t_ready = std::chrono::steady_clock::now();
  auto z = fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f;
  const float first = z.to_host()[0];
  const auto t1 = std::chrono::steady_clock::now();
  const auto s = fusecl::stats();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("{\"device\": \"%s\", \"driver\": \"%s\", \"elements\": %zu, \"total_ms\": %.2f, \"setup_ms\": %.2f, "
              "\"evaluate_ms\": %.2f, \"programs_built\": %llu, \"programs_loaded\": %llu, \"value\": %.6f}\n",
              fusecl::device().name.c_str(), fusecl::device().driver_version.c_str(), n, ms(t0, t1), ms(t0, t_ready),
              ms(t_ready, t1), (unsigned long long)s.programs_built, (unsigned long long)s.programs_loaded, first);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "first_result: %s\n", e.what());
  return 1;
}
