#include "bench/bus_rate.hpp"

#include "runtime/context.hpp"

#include <fusecl/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

namespace fusecl_bench {

namespace {

std::optional<BusRates>& measured() {
  static std::optional<BusRates> r;
  return r;
}

// The best rate of `runs` timed calls of `transfer`, which moves `bytes`.
template <class F>
double best_rate(std::size_t bytes, int runs, F&& transfer) {
  transfer();  // first touch, driver set-up
  double best = 0;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    transfer();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, double(bytes) / std::max(s, 1e-9));
  }
  return best;
}

}  // namespace

BusRates measure_bus_rates(int log2) {
  namespace rt = fusecl::rt;
  auto& r = rt::runtime();
  const std::size_t bytes = sizeof(float) << log2;
  cl_int err = CL_SUCCESS;
  cl_mem dev = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  rt::check(err, "clCreateBuffer (bus rate)");
  cl_mem pinned = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
  if (err != CL_SUCCESS) static_cast<void>(clReleaseMemObject(dev));
  rt::check(err, "clCreateBuffer (bus rate, pinned)");
  BusRates out;
  try {
    void* host = clEnqueueMapBuffer(r.queue, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
    rt::check(err, "clEnqueueMapBuffer (bus rate)");
    std::memset(host, 1, bytes);
    std::vector<unsigned char> pageable(bytes, 1);
    auto write = [&](const void* src) {
      rt::check(clEnqueueWriteBuffer(r.queue, dev, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr), "clEnqueueWriteBuffer (bus rate)");
    };
    auto read = [&](void* dst) {
      rt::check(clEnqueueReadBuffer(r.queue, dev, CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr), "clEnqueueReadBuffer (bus rate)");
    };
    out.pageable_write = best_rate(bytes, 5, [&] { write(pageable.data()); });
    out.pageable_read = best_rate(bytes, 5, [&] { read(pageable.data()); });
    out.pinned_write = best_rate(bytes, 5, [&] { write(host); });
    out.pinned_read = best_rate(bytes, 5, [&] { read(host); });
    rt::check(clEnqueueUnmapMemObject(r.queue, pinned, host, 0, nullptr, nullptr), "clEnqueueUnmapMemObject (bus rate)");
    rt::finish(r);
  } catch (...) {
    static_cast<void>(clReleaseMemObject(dev));
    static_cast<void>(clReleaseMemObject(pinned));
    throw;
  }
  static_cast<void>(clReleaseMemObject(dev));
  static_cast<void>(clReleaseMemObject(pinned));
  measured() = out;
  return out;
}

const BusRates& bus_rates() {
  if (!measured()) throw fusecl::Error("fusecl-bench: bus_rates() used before measure_bus_rates()");
  return *measured();
}

}  // namespace fusecl_bench
