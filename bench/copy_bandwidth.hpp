// The device's copy bandwidth: the roofline for the memory-bound workloads.
//
// Measured with a hand-written OpenCL kernel (out[i] = in[i] on float4), on
// fusecl's own context and queue, not with a fusecl expression: any fused
// expression (x + 0, x * 1) would measure fusecl itself against itself.
#pragma once

#include "bench/options.hpp"

namespace fusecl_bench {

/// The size the reference bandwidth is measured at: the suite's largest, but
/// at least 2^24 floats (64 MiB), so that a run limited to small sizes still
/// divides by the bandwidth of device memory rather than of a cache or of the
/// launch latency; at most what one buffer may hold.
int copy_reference_log2(const Options& options);

/// Measures the copy bandwidth at 2^log2 floats (best of several timed
/// batches, in bytes read plus bytes written per second) and keeps it as the
/// value copy_bandwidth() returns. Call once, before the benchmarks run.
double measure_copy_bandwidth(int log2);

/// The value measured by measure_copy_bandwidth; throws if it was not called.
double copy_bandwidth();

/// BM_copy/opencl_kernel/<log2>: the same kernel timed like every other
/// benchmark, at each size, to show how launch cost bounds small sizes.
void register_copy_benchmarks(const Options& options);

}  // namespace fusecl_bench
