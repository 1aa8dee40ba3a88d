#include "bench/copy_bandwidth.hpp"

#include "bench/measure.hpp"
#include "runtime/context.hpp"

#include <fusecl/error.hpp>
#include <fusecl/stats.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace fusecl_bench {

namespace {

constexpr const char* kCopySource = R"CLC(
__kernel void fusecl_bench_copy(__global const float4* restrict in, __global float4* restrict out) {
  const size_t i = get_global_id(0);
  out[i] = in[i];
}
)CLC";

// The copy kernel, built once on fusecl's device.
class CopyKernel {
 public:
  CopyKernel() {
    auto& rt = fusecl::rt::runtime();
    cl_int err = CL_SUCCESS;
    const char* source = kCopySource;
    program_ = clCreateProgramWithSource(rt.ctx, 1, &source, nullptr, &err);
    fusecl::rt::check(err, "clCreateProgramWithSource (copy kernel)");
    err = clBuildProgram(program_, 1, &rt.dev.device, "-cl-std=CL1.2", nullptr, nullptr);
    if (err != CL_SUCCESS) throw fusecl::Error("building the copy kernel failed: " + fusecl::rt::cl_error_name(err) + "\n" + build_log());
    kernel_ = clCreateKernel(program_, "fusecl_bench_copy", &err);
    fusecl::rt::check(err, "clCreateKernel (copy kernel)");
  }
  CopyKernel(const CopyKernel&) = delete;
  CopyKernel& operator=(const CopyKernel&) = delete;
  // Kept for the whole run (see kernel()): never released, like fusecl's runtime.

  // Queues one copy of `floats` floats (a multiple of 4) from `in` to `out`.
  void enqueue(cl_mem in, cl_mem out, std::size_t floats) const {
    fusecl::rt::check(clSetKernelArg(kernel_, 0, sizeof(cl_mem), &in), "clSetKernelArg");
    fusecl::rt::check(clSetKernelArg(kernel_, 1, sizeof(cl_mem), &out), "clSetKernelArg");
    const std::size_t global = floats / 4;
    // No work-group size: the driver's choice is what a hand-written kernel gets.
    fusecl::rt::check(clEnqueueNDRangeKernel(fusecl::rt::runtime().queue, kernel_, 1, nullptr, &global, nullptr, 0,
                                             nullptr, nullptr),
                      "clEnqueueNDRangeKernel (copy kernel)");
  }

 private:
  std::string build_log() const {
    const cl_device_id dev = fusecl::rt::runtime().dev.device;
    std::size_t size = 0;
    if (clGetProgramBuildInfo(program_, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return "";
    std::string log(size, '\0');
    if (clGetProgramBuildInfo(program_, dev, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return "";
    return log;
  }

  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
};

const CopyKernel& kernel() {
  static const CopyKernel* const k = new CopyKernel();
  return *k;
}

// Two device buffers of `floats` floats, with every page of both written
// once (a CPU device maps untouched pages lazily, and reading them would be
// unrealistically fast), released on scope exit.
class BufferPair {
 public:
  explicit BufferPair(std::size_t floats) : bytes_(floats * sizeof(float)) {
    auto& rt = fusecl::rt::runtime();
    cl_int err = CL_SUCCESS;
    in_ = clCreateBuffer(rt.ctx, CL_MEM_READ_WRITE, bytes_, nullptr, &err);
    fusecl::rt::check(err, "clCreateBuffer (copy benchmark)");
    out_ = clCreateBuffer(rt.ctx, CL_MEM_READ_WRITE, bytes_, nullptr, &err);
    if (err != CL_SUCCESS) {
      static_cast<void>(clReleaseMemObject(in_));
      fusecl::rt::check(err, "clCreateBuffer (copy benchmark)");
    }
    const cl_float one = 1.0f;
    for (cl_mem m : {in_, out_})
      fusecl::rt::check(clEnqueueFillBuffer(rt.queue, m, &one, sizeof one, 0, bytes_, 0, nullptr, nullptr),
                        "clEnqueueFillBuffer (copy benchmark)");
    fusecl::rt::finish(fusecl::rt::runtime());
  }
  ~BufferPair() {
    fusecl::rt::finish(fusecl::rt::runtime());  // no copy may still be using them
    static_cast<void>(clReleaseMemObject(in_));
    static_cast<void>(clReleaseMemObject(out_));
  }
  BufferPair(const BufferPair&) = delete;
  BufferPair& operator=(const BufferPair&) = delete;

  cl_mem in() const { return in_; }
  cl_mem out() const { return out_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
  cl_mem in_ = nullptr, out_ = nullptr;
};

std::optional<double>& measured() {
  static std::optional<double> bw;
  return bw;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int copy_reference_log2(const Options& options) {
  int log2 = std::max(options.max_log2, 24);
  const std::uint64_t max_alloc = fusecl::rt::runtime().dev.info.max_alloc_bytes;
  while (log2 > options.max_log2 && (std::uint64_t(sizeof(float)) << log2) > max_alloc) --log2;
  return log2;
}

double measure_copy_bandwidth(int log2) {
  const std::size_t floats = std::size_t(1) << log2;
  const CopyKernel& k = kernel();
  BufferPair buf(floats);

  // Warm-up (first launches compile or map lazily on some drivers), then find
  // how many back-to-back copies fill about 20 ms, so that the launch cost
  // and the clock's resolution do not count.
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) k.enqueue(buf.in(), buf.out(), floats);
  fusecl::rt::finish(fusecl::rt::runtime());
  const double one = std::max(seconds_since(t0) / 2, 1e-6);
  const int batch = int(std::clamp(0.02 / one, 1.0, 1000.0));

  // The best of several batches: on a shared machine the slow ones measure
  // the neighbours, and the best is closest to what the device can do.
  double best = 0;
  for (int sample = 0; sample < 7; ++sample) {
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) k.enqueue(buf.in(), buf.out(), floats);
    fusecl::rt::finish(fusecl::rt::runtime());
    best = std::max(best, 2.0 * double(buf.bytes()) * batch / seconds_since(t0));
  }
  measured() = best;
  return best;
}

double copy_bandwidth() {
  if (!measured()) throw fusecl::Error("fusecl-bench: copy_bandwidth() used before measure_copy_bandwidth()");
  return *measured();
}

void register_copy_benchmarks(const Options& options) {
  for (int log2 : options.log2_sizes()) {
    register_benchmark(benchmark_name("copy", "opencl_kernel", log2), [log2](benchmark::State& state) {
      const std::size_t floats = std::size_t(1) << log2;
      const CopyKernel& k = kernel();
      BufferPair buf(floats);
      k.enqueue(buf.in(), buf.out(), floats);
      fusecl::rt::finish(fusecl::rt::runtime());
      const fusecl::Stats before = fusecl::stats();
      for (auto _ : state) {
        k.enqueue(buf.in(), buf.out(), floats);
        fusecl::rt::finish(fusecl::rt::runtime());
      }
      report_counters(state, before, std::int64_t(floats), 2.0 * double(buf.bytes()), 1);
    });
  }
}

}  // namespace fusecl_bench
