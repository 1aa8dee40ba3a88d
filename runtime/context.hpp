// One opened device: its context, one in-order queue, a buffer pool, the
// kernels built for it and the split reductions' scratch (runtime.hpp is the
// interface src/ uses; this is the OpenCL side of it).
#pragma once

#include "runtime/buffer_pool.hpp"
#include "runtime/cache_settings.hpp"
#include "runtime/device_discovery.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/runtime.hpp"
#include "runtime/transfer.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fusecl::rt {

struct Runtime {
  Runtime() = default;
  /// Releases the kernels, the queue and the context (the pool releases its
  /// buffers). The default runtime is never destroyed (default_runtime()).
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  DeviceHandle dev;
  std::string choice_reason;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  std::unique_ptr<BufferPool> pool;
  // Built kernels by structure signature (kernel_cache.cpp). The mutex makes
  // lookups and builds atomic, so one signature is built once however many
  // threads ask at once.
  std::unordered_map<std::string, BuiltKernel> kernels;
  std::mutex kernels_mutex;
  // Split reductions' scratch: the partial results, and the per-output
  // counters of kernels whose last group finishes (zero between kernels).
  std::shared_ptr<DeviceBuffer> reduce_partials;
  std::shared_ptr<DeviceBuffer> reduce_counters;
  // Pinned staging for large transfers (transfer.hpp), made on first use.
  // Transfers run outside the device's lock; this mutex gives the buffers to
  // one transfer at a time (the bus is one anyway).
  std::unique_ptr<Staging> staging;
  std::mutex staging_mutex;
  // Streamed evaluations' queues (transfer.hpp), made on first use.
  std::unique_ptr<StreamQueues> streams;
  std::mutex streams_mutex;
};

/// The default runtime (default_runtime()), for tests and tools that work at
/// the OpenCL level.
Runtime& runtime();

/// How many bytes of unused buffers the pool keeps: a quarter of the device's
/// global memory, or FUSECL_POOL_MAX_BYTES (`env_value`, null or empty when
/// unset; a size as FUSECL_CACHE_MAX_BYTES takes it: 268435456, 512M, 2G) if
/// that is smaller. A malformed value is reported to `sink` and the quarter used.
std::uint64_t pool_cache_cap(std::uint64_t global_mem_bytes, const char* env_value,
                             const DiagnosticSink& sink = write_to_stderr);

/// The most device memory fusecl's buffers may hold on a device (in use and
/// cached): FUSECL_DEVICE_MEMORY_LIMIT (`env_value`, a size as above; a
/// typical laptop card's 4G, say), at most the device's global memory, which
/// is also the default. A malformed or zero value is reported to `sink`.
std::uint64_t device_memory_limit(std::uint64_t global_mem_bytes, const char* env_value,
                                  const DiagnosticSink& sink = write_to_stderr);

}  // namespace fusecl::rt
