// Streams computations over host data larger than the device's memory.
//
//   FUSECL_DEVICE_MEMORY_LIMIT=512M ./out_of_core 2     # two 2 GiB inputs through a 512 MiB budget
//
// Two arrays x and y of the given size stay in this program's memory as host
// views; fusecl computes sum(x*x) and the demo chain
// sqrt(x*x + y*y) * sin(x) + exp(-y) * 0.5 chunk by chunk (upload, kernel, download), never holding more
// than a few chunks on the device, and writes the elementwise result straight
// into this program's output buffer. It prints the throughput of each, and
// compares it with moving the same bytes with from_host and to_host alone,
// the bus as fusecl drives it: streaming costs little more than the copies.
#include <fusecl/fusecl.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The best of `reps` runs of f, in seconds.
template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const double gib = argc > 1 ? std::atof(argv[1]) : 1.0;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 2;
    if (!(gib > 0) || reps < 1) {
      std::fprintf(stderr, "usage: out_of_core [GiB per input array, default 1] [repetitions, default 2]\n");
      return 2;
    }
    const std::int64_t cols = 1024;
    const std::int64_t rows = std::int64_t(gib * double(1 << 30) / 4.0) / cols;
    const std::size_t n = std::size_t(rows * cols);
    const double bytes = double(n) * 4.0;
    const fusecl::Device dev = fusecl::default_device();
    std::printf("device: %s\nhost data: x and y, %.2f GiB each (%lld x %lld floats)\n", dev.str().c_str(),
                bytes / double(1 << 30), (long long)rows, (long long)cols);

    std::vector<float> data(n), data_y(n), out(n);
    for (std::size_t i = 0; i < n; ++i) {
      data[i] = float(i % 4093) * 1e-3f - 2.0f;
      data_y[i] = float(i % 3011) * 1e-3f - 1.0f;
    }
    const auto x = fusecl::host_view(data, {rows, cols});
    const auto y = fusecl::host_view(data_y, {rows, cols});

    // The bus as fusecl drives it: 64 MiB up with from_host, down with to_host.
    const std::size_t probe = std::min<std::size_t>(n, std::size_t(16) << 20);
    std::vector<float> back(probe);
    fusecl::Array<float> dx;
    const double up = best_of(3, [&] {
      dx = fusecl::from_host(std::span<const float>(data.data(), probe), {std::int64_t(probe)});
      dev.finish();
    });
    const double down = best_of(3, [&] { dx.to_host(std::span<float>(back)); });
    dx = fusecl::Array<float>();
    const double up_rate = double(probe) * 4 / up, down_rate = double(probe) * 4 / down;
    std::printf("from_host %.2f GB/s, to_host %.2f GB/s (64 MiB)\n", up_rate / 1e9, down_rate / 1e9);

    fusecl::reset_stats();
    double total = 0;
    const double t_sum = best_of(reps, [&] { total = double(fusecl::sum(x * x).to_host()[0]); });
    const auto s1 = fusecl::stats();
    std::printf("sum(x*x) = %.6g: %.3f s, %.2f GB/s, %.0f%% of from_host's rate; %llu chunks\n", total, t_sum,
                bytes / t_sum / 1e9, 100.0 * (bytes / up_rate) / t_sum, (unsigned long long)(s1.streamed_chunks / reps));

    fusecl::reset_stats();
    const double t_map = best_of(reps, [&] {
      (fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f).to_host(std::span<float>(out));
    });
    const auto s2 = fusecl::stats();
    const double copies = 2 * bytes / up_rate + bytes / down_rate;
    std::printf("demo chain into host memory: %.3f s, %.2f GB/s in+out, %.0f%% of from_host + to_host's "
                "time for the same bytes; %llu chunks\n",
                t_map, 3 * bytes / t_map / 1e9, 100.0 * copies / t_map, (unsigned long long)(s2.streamed_chunks / reps));
    std::printf("device memory held at most: %.1f MiB (limit %s)\n", double(s2.peak_device_bytes) / double(1 << 20),
                std::getenv("FUSECL_DEVICE_MEMORY_LIMIT") ? std::getenv("FUSECL_DEVICE_MEMORY_LIMIT") : "the device's");

    // Spot checks against the host.
    for (std::size_t i = 0; i < n; i += n / 7 + 1) {
      const double xv = data[i], yv = data_y[i];
      const double want = std::sqrt(xv * xv + yv * yv) * std::sin(xv) + std::exp(-yv) * 0.5;
      if (std::abs(out[i] - want) > 1e-5 * (1 + std::abs(want))) {
        std::fprintf(stderr, "wrong value at %zu: %g, expected %g\n", i, double(out[i]), double(want));
        return 1;
      }
    }
    std::printf("checked against the host: ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "out_of_core: %s\n", e.what());
    return 1;
  }
}
