// The ways each workload is evaluated, and the registration of the suite.
//
//   cpp_loop      the host, single-threaded: one scalar C++ loop and one temporary array per
//                 operation (NumPy's evaluation model, not its SIMD speed: NumPy itself and
//                 numexpr are timed by bench/host_frameworks.py)
//   device_eager  fusecl with fusion off: a kernel and an intermediate buffer per operation;
//                 inputs already on the device
//   fused_device  fusecl with fusion on, inputs already on the device, results left there:
//                 building the expression, eval and fusecl::finish() are timed
//   fuse_device   fused_device through fusecl::fuse: the computation is a fused function of
//                 its inputs, planned on its first (untimed) call and replayed by each timed
//                 call without building or scheduling the graph again (as cupy.fuse and
//                 torch.compile are timed); counter replayed=0 where it cannot replay
//   fused_e2e     fusecl with fusion on, from host vectors to host vectors: uploads,
//                 kernels and downloads are timed
//   host_view     fusecl with fusion on, over host views of the host vectors, each result
//                 streamed into a host vector (to_host(span)): chunks of rows uploaded (or
//                 read in place where the device shares the host's memory), computed and
//                 written out one after another
//
// Each benchmark first runs its way once untimed (kernel builds and first-touch
// costs stay out of the timings) and, on the device, checks that result
// against cpp_loop's.
#pragma once

#include "bench/options.hpp"

#include <benchmark/benchmark.h>

#include <functional>
#include <string_view>

namespace fusecl_bench {

enum class Way { CppLoop, DeviceEager, FusedDevice, FuseDevice, FusedE2E, HostView };
inline constexpr Way kAllWays[] = {Way::CppLoop, Way::DeviceEager, Way::FusedDevice, Way::FuseDevice, Way::FusedE2E, Way::HostView};

/// "cpp_loop", "device_eager", "fused_device", "fuse_device", "fused_e2e", "host_view".
const char* way_name(Way way);

using Runner = std::function<void(benchmark::State&)>;

/// cpp_loop of the named workload at 2^log2 elements (cpp_loop.cpp).
Runner cpp_loop_runner(std::string_view workload, int log2);

/// device_eager, fused_device, fuse_device, fused_e2e or host_view of the named workload (device_ways.cpp).
Runner device_runner(std::string_view workload, Way way, int log2);

/// BM_overhead_*: evaluations per second of a small cached expression (host_overhead.cpp).
void register_overhead_benchmarks();
void register_vector_width_benchmarks(const Options& options);

/// Every benchmark of the suite, in report order: the copy baseline, then
/// each workload, size by size, its ways together (so that a case's
/// inputs are made once), then the host overhead.
void register_suite(const Options& options);

}  // namespace fusecl_bench
