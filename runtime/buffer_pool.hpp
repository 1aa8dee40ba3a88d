// Device buffers, reused by size class so that evaluating the same expression
// in a loop does not allocate each time.
#pragma once

#include "runtime/cl.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace fusecl::rt {

class BufferPool;

/// A device allocation of at least `bytes` bytes. Returned to its pool when the
/// last shared_ptr to it goes. `mem` is null for a zero-byte buffer (OpenCL
/// cannot allocate zero bytes; nothing ever reads or writes it).
struct DeviceBuffer {
  cl_mem mem = nullptr;
  std::size_t bytes = 0;     // what was asked for
  std::size_t capacity = 0;  // the size class actually allocated
};

/// Thread-safe: buffers come back whenever the last array holding them goes,
/// which may be on any thread.
class BufferPool {
 public:
  /// Keeps at most `max_cached_bytes` of unused buffers for reuse. Requests
  /// over `max_alloc_bytes` (the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE) are
  /// refused with a clear message instead of an opaque CL_INVALID_BUFFER_SIZE.
  /// The pool never holds more than `limit_bytes` (FUSECL_DEVICE_MEMORY_LIMIT,
  /// by default the device's memory) in buffers in use and cached together:
  /// past it, cached buffers are released, then a request fails with a
  /// message naming the sizes, before the driver is ever asked.
  /// Retains `ctx` for the pool's lifetime.
  BufferPool(cl_context ctx, std::uint64_t max_cached_bytes, std::uint64_t max_alloc_bytes,
             std::uint64_t limit_bytes = ~std::uint64_t(0));
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /// A buffer of at least `bytes`; reuses a cached one of the same size class.
  /// On CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_RESOURCES / CL_OUT_OF_HOST_MEMORY
  /// it releases every cached buffer and retries once before throwing fusecl::Error.
  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes);

  /// Releases every cached (unused) buffer.
  void trim();

  /// The size class a request of `bytes` is rounded up to: a power of two up
  /// to 1 MiB (at least 256 bytes), above that a multiple of 1/8 of the largest
  /// power of two not above the request, so no more than 12.5% is wasted where
  /// waste costs real memory. 0 for 0 (zero-byte buffers allocate nothing).
  static std::size_t size_class(std::size_t bytes);

  std::uint64_t bytes_in_use() const { return in_use_; }
  std::uint64_t bytes_cached() const { return cached_; }
  std::uint64_t allocations() const { return allocations_; }  // clCreateBuffer calls so far
  std::uint64_t max_cached_bytes() const { return max_cached_; }
  std::uint64_t max_alloc_bytes() const { return max_alloc_; }
  std::uint64_t limit_bytes() const { return limit_; }

 private:
  void give_back(DeviceBuffer* b) noexcept;
  void trim_locked();
  cl_mem create(std::size_t capacity, std::size_t bytes);
  cl_context ctx_;
  std::uint64_t max_cached_, max_alloc_, limit_;
  // Atomic so that the getters may read them without the lock.
  std::atomic<std::uint64_t> in_use_{0}, cached_{0}, allocations_{0};
  std::multimap<std::size_t, cl_mem> free_;  // capacity -> buffer
  std::mutex mutex_;                          // guards the counters and free_
  std::shared_ptr<bool> alive_;               // lets buffers outliving the pool release themselves
};

/// Bytes every pool of the process holds on its device now (in use and
/// cached), and the most they held at once since the start or the last
/// reset_stats() (Stats::peak_device_bytes).
std::uint64_t device_bytes_held();

}  // namespace fusecl::rt
