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
};

/// The runtime, created on first call from FUSECL_DEVICE. Never destroyed:
/// releasing OpenCL objects from static destructors races the ICD's own
/// teardown on several drivers.
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
