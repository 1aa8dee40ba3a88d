// The process-wide OpenCL state: one device, its context, one in-order queue
// and a buffer pool, created once on first use and kept for the whole process.
#pragma once

#include "runtime/buffer_pool.hpp"
#include "runtime/cache_settings.hpp"
#include "runtime/device_discovery.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace fusecl::rt {

struct Runtime {
  DeviceHandle dev;
  std::string choice_reason;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  std::unique_ptr<BufferPool> pool;
  // Split reductions' scratch (src/launch.cpp): the partial results, and the
  // per-output counters of kernels whose last group finishes. Held here, not
  // in statics of the launcher, whose destructors would release them after
  // the driver's own teardown at exit (Oclgrind then corrupts its heap).
  std::shared_ptr<DeviceBuffer> reduce_partials;
  std::shared_ptr<DeviceBuffer> reduce_counters;  // zero between kernels
};

/// The runtime, created on first call from FUSECL_DEVICE. Never destroyed, so
/// the OpenCL objects it owns (context, queue, pooled and scratch buffers;
/// kernel_cache.cpp's kernels likewise) are never released at exit: releasing
/// them from static destructors races the ICD's own teardown on several
/// drivers. No OpenCL object may be held by a static with a destructor.
Runtime& runtime();

/// Copies host memory into a new device buffer (blocking: the caller's memory
/// may be reused as soon as this returns). Counts one upload.
std::shared_ptr<DeviceBuffer> upload(const void* data, std::size_t bytes);

/// Copies `bytes` from `buf` at byte `offset` into host memory, blocking. Counts one download.
void download(const DeviceBuffer& buf, std::size_t offset, std::size_t bytes, void* dst);

/// Blocks until the queue is empty.
void finish();

/// How many bytes of unused buffers the pool keeps: a quarter of the device's
/// global memory, or FUSECL_POOL_MAX_BYTES (`env_value`, null or empty when
/// unset; a size as FUSECL_CACHE_MAX_BYTES takes it: 268435456, 512M, 2G) if
/// that is smaller. A malformed value is reported to `sink` and the quarter used.
std::uint64_t pool_cache_cap(std::uint64_t global_mem_bytes, const char* env_value,
                             const DiagnosticSink& sink = write_to_stderr);

}  // namespace fusecl::rt
