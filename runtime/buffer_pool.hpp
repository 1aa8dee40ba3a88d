// Device buffers, reused by size class so that evaluating the same expression
// in a loop does not allocate each time.
#pragma once

#include "runtime/cl.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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

class BufferPool {
 public:
  BufferPool(cl_context ctx, std::uint64_t max_cached_bytes);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /// A buffer of at least `bytes`; reuses a cached one of the same size class.
  /// On CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_RESOURCES / CL_OUT_OF_HOST_MEMORY
  /// it releases every cached buffer and retries once before throwing fusecl::Error.
  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes);

  /// Releases every cached (unused) buffer.
  void trim();

  /// The size class a request of `bytes` is rounded up to.
  static std::size_t size_class(std::size_t bytes);

  std::uint64_t bytes_in_use() const { return in_use_; }
  std::uint64_t bytes_cached() const { return cached_; }
  std::uint64_t allocations() const { return allocations_; }  // clCreateBuffer calls so far

 private:
  void give_back(DeviceBuffer* b);
  cl_context ctx_;
  std::uint64_t max_cached_;
  std::uint64_t in_use_ = 0, cached_ = 0, allocations_ = 0;
  std::multimap<std::size_t, cl_mem> free_;  // capacity -> buffer
  std::shared_ptr<bool> alive_;               // lets buffers outliving the pool release themselves
};

}  // namespace fusecl::rt
