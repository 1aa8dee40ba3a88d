// The server pattern: one device opened once, a pool of worker threads each
// answering "requests" with a fused expression. The context and the kernels
// are built once and shared; each request costs one upload, one kernel per
// expression and one download. Reports requests per second and how many
// kernels were built: one per kernel shape, however many threads ask at once.
//
//   server_threads [threads=8] [requests per thread=500] [elements=65536]
#include <fusecl/fusecl.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// A request: score a batch of features, and say how many passed a threshold.
struct Answer {
  std::vector<float> scores;
  double passed = 0;
};

Answer answer(const std::vector<float>& features, float weight, float bias) {
  auto x = fusecl::from_host(features);                          // one upload
  auto score = fusecl::tanh(x * weight + bias) * 0.5f + 0.5f;    // lazy: one fused kernel ...
  auto passed = fusecl::sum((score > 0.75f).astype<double>());  // ... and a reduction fused with it
  fusecl::eval(score, passed);
  return {score.to_host(), passed.to_host()[0]};
}

bool check(const std::vector<float>& features, float weight, float bias, const Answer& a) {
  double passed = 0;
  for (std::size_t i = 0; i < features.size(); ++i) {
    const float want = std::tanh(features[i] * weight + bias) * 0.5f + 0.5f;
    if (std::fabs(a.scores[i] - want) > 4e-6f) return false;  // tanh: a few ulp on any device
    passed += a.scores[i] > 0.75f;
  }
  return passed == a.passed;
}

}  // namespace

int main(int argc, char** argv) try {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  const int per_thread = argc > 2 ? std::atoi(argv[2]) : 500;
  const std::size_t n = argc > 3 ? std::size_t(std::atoll(argv[3])) : 65536;
  if (threads < 1 || per_thread < 1 || n < 1) {
    std::fprintf(stderr, "usage: server_threads [threads >= 1] [requests per thread >= 1] [elements >= 1]\n");
    return 2;
  }

  // Opened once for the whole server; every worker uses the same handle.
  const fusecl::Device gpu = fusecl::default_device();
  std::printf("device: %s (%s)\n", gpu.str().c_str(), gpu.choice_reason().c_str());
  std::printf("%d worker threads x %d requests of %zu floats\n", threads, per_thread, n);

  fusecl::reset_stats();
  std::atomic<int> wrong{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const fusecl::DeviceScope scope(gpu);  // arrays this thread makes live on gpu
      std::vector<float> features(n);
      for (int r = 0; r < per_thread; ++r) {
        for (std::size_t i = 0; i < n; ++i) features[i] = float((i * 31 + std::size_t(r) + std::size_t(t) * 7) % 200) * 0.02f - 2.0f;
        const float weight = 1.0f + float(r % 4), bias = float(t % 3) * 0.25f;  // kernel arguments, not new kernels
        const Answer a = answer(features, weight, bias);
        if (r % 50 == 0 && !check(features, weight, bias, a)) ++wrong;  // spot checks against the host
      }
    });
  for (auto& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const fusecl::Stats s = fusecl::stats();
  // How many kernel shapes one request has on this device (a reduction may
  // take one kernel or two): one request on a fresh context of the same
  // device, whose kernels all have to be built or loaded.
  std::uint64_t shapes = 0;
  {
    const fusecl::Device fresh = fusecl::open_device(gpu.info().id());
    const fusecl::DeviceScope scope(fresh);
    const auto before = fusecl::stats();
    answer(std::vector<float>(n, 0.5f), 1.0f, 0.0f);
    const auto after = fusecl::stats();
    shapes = after.programs_built + after.programs_loaded - before.programs_built - before.programs_loaded;
  }
  const int requests = threads * per_thread;
  std::printf("%d requests in %.3f s: %.0f requests/s (%.1f us each)\n", requests, seconds, requests / seconds,
              1e6 * seconds / requests);
  const std::uint64_t built = s.programs_built + s.programs_loaded;
  std::printf("kernels built: %llu (compiled %llu, loaded from the disk cache %llu) for %llu kernel shapes; "
              "launched %llu; taken from memory %llu times\n",
              static_cast<unsigned long long>(built), static_cast<unsigned long long>(s.programs_built),
              static_cast<unsigned long long>(s.programs_loaded), static_cast<unsigned long long>(shapes),
              static_cast<unsigned long long>(s.kernels_launched), static_cast<unsigned long long>(s.memory_cache_hits));
  std::printf("uploads %llu, downloads %llu\n", static_cast<unsigned long long>(s.uploads),
              static_cast<unsigned long long>(s.downloads));
  if (wrong) {
    std::fprintf(stderr, "%d spot checks failed\n", wrong.load());
    return 1;
  }
  if (built != shapes) {
    std::fprintf(stderr, "expected one build per kernel shape\n");
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
