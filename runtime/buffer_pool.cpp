#include "runtime/buffer_pool.hpp"

#include "fusecl/error.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/stats_counters.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <new>

namespace fusecl::rt {

namespace {

// The codes with which drivers say "not enough memory right now"; releasing
// our cached buffers can cure them, unlike any other failure.
bool out_of_memory(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY;
}

// Runs where nothing can be thrown (deleters, destructors). clReleaseMemObject
// fails only for an invalid object or when the host is out of memory; the
// handle is unusable afterwards either way, so there is nothing to recover.
void release_quietly(cl_mem mem) noexcept {
  if (mem) static_cast<void>(clReleaseMemObject(mem));
}

// What every pool holds on its device, for Stats::peak_device_bytes. A
// function-local static of a trivially destructible type: buffers released
// during static destruction may still count down.
std::atomic<std::uint64_t>& held_bytes() {
  static std::atomic<std::uint64_t> held{0};
  return held;
}

void count_released(cl_mem mem, std::size_t capacity) noexcept {
  release_quietly(mem);
  held_bytes().fetch_sub(capacity);
}

void count_created(std::size_t capacity) {
  const std::uint64_t now = held_bytes().fetch_add(capacity) + capacity;
  std::atomic<std::uint64_t>& peak = counters().peak_device_bytes;
  std::uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

}  // namespace

std::uint64_t device_bytes_held() { return held_bytes().load(); }

BufferPool::BufferPool(cl_context ctx, std::uint64_t max_cached_bytes, std::uint64_t max_alloc_bytes,
                       std::uint64_t limit_bytes)
    : ctx_(ctx),
      max_cached_(std::min(max_cached_bytes, limit_bytes)),
      max_alloc_(max_alloc_bytes),
      limit_(limit_bytes),
      alive_(std::make_shared<bool>(true)) {
  // Buffers handed out may outlive the pool (see alive_); holding the context
  // keeps every buffer's context valid at least as long as the pool exists.
  check(clRetainContext(ctx_), "clRetainContext");
}

BufferPool::~BufferPool() {
  *alive_ = false;
  try {
    trim();
  } catch (const Error&) {
    // Destructors must not throw; the cached handles are gone either way.
  }
  static_cast<void>(clReleaseContext(ctx_));  // same reasoning as release_quietly
}

std::size_t BufferPool::size_class(std::size_t bytes) {
  constexpr std::size_t min_class = 256;
  constexpr std::size_t power_of_two_limit = std::size_t(1) << 20;
  if (bytes == 0) return 0;
  if (bytes <= min_class) return min_class;
  // Small buffers are cheap, so few classes (more reuse) beat tight fitting.
  if (bytes <= power_of_two_limit) return std::bit_ceil(bytes);
  const std::size_t step = std::bit_floor(bytes) / 8;
  const std::size_t remainder = bytes % step;
  if (remainder == 0) return bytes;
  // Only a request within one step of SIZE_MAX gets here; no device can
  // allocate it, and rounding up would wrap around to a tiny size.
  if (bytes > std::numeric_limits<std::size_t>::max() - (step - remainder)) return bytes;
  return bytes + (step - remainder);
}

cl_mem BufferPool::create(std::size_t capacity, std::size_t bytes) {
  // The budget first: what the pool holds (in use and cached) stays within
  // limit_, so the driver is never asked for more than the user allows.
  if (in_use_ + cached_ + capacity > limit_) trim_locked();
  if (in_use_ + capacity > limit_)
    throw Error("Cannot allocate " + exact_bytes(bytes) + " (size class " + exact_bytes(capacity) +
                ") on the OpenCL device: arrays and intermediate results still in use hold " + exact_bytes(in_use_) +
                " there, and fusecl's device memory limit is " + exact_bytes(limit_) +
                " (FUSECL_DEVICE_MEMORY_LIMIT, by default the device's global memory). Release arrays you no "
                "longer need, work on smaller pieces, or raise FUSECL_DEVICE_MEMORY_LIMIT.");
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, capacity, nullptr, &err);
  if (out_of_memory(err)) {
    // Cached buffers are only an optimization; they may be what fills the device.
    trim_locked();
    mem = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, capacity, nullptr, &err);
  }
  if (out_of_memory(err))
    throw Error("Could not allocate " + exact_bytes(bytes) + " on the OpenCL device (size class " +
                exact_bytes(capacity) + "): clCreateBuffer failed with " + cl_error_name(err) + " (" +
                std::to_string(err) + ") even after releasing every cached buffer. Buffers still in use hold " +
                exact_bytes(in_use_) + "; the device's largest single allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is " +
                exact_bytes(max_alloc_) + ".");
  check(err, "clCreateBuffer");
  ++allocations_;
  count_created(capacity);
  return mem;
}

std::shared_ptr<DeviceBuffer> BufferPool::allocate(std::size_t bytes) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>();
  if (bytes > max_alloc_)
    throw Error("Cannot allocate " + exact_bytes(bytes) +
                " on the OpenCL device: its largest single allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is " +
                exact_bytes(max_alloc_) + ". Use smaller arrays, or choose a device that allows larger " +
                "buffers with FUSECL_DEVICE (fusecl-info lists them).");
  // Clamping keeps requests just under the maximum allocatable; it is still one
  // key per request size, so reuse works for them like for any other class.
  const std::size_t capacity = std::size_t(std::min<std::uint64_t>(size_class(bytes), max_alloc_));

  // Allocated before the cl_mem so that a bad_alloc here cannot leak one.
  auto buffer = std::make_unique<DeviceBuffer>();
  const std::lock_guard<std::mutex> lock(mutex_);
  buffer->bytes = bytes;
  buffer->capacity = capacity;
  if (auto cached = free_.find(capacity); cached != free_.end()) {
    buffer->mem = cached->second;
    free_.erase(cached);
    cached_ -= capacity;
  } else {
    buffer->mem = create(capacity, bytes);
  }
  in_use_ += capacity;
  // If the control block cannot be allocated, shared_ptr calls the deleter,
  // which returns the buffer to the pool: still no leak.
  return std::shared_ptr<DeviceBuffer>(buffer.release(), [this, alive = alive_](DeviceBuffer* b) noexcept {
    if (*alive) {
      give_back(b);
    } else {
      count_released(b->mem, b->capacity);
      delete b;
    }
  });
}

void BufferPool::give_back(DeviceBuffer* b) noexcept {
  const std::unique_ptr<DeviceBuffer> owned(b);
  const std::lock_guard<std::mutex> lock(mutex_);
  in_use_ -= b->capacity;
  if (cached_ + b->capacity <= max_cached_) {
    try {
      free_.emplace(b->capacity, b->mem);
      cached_ += b->capacity;
      return;
    } catch (const std::bad_alloc&) {
      // No room to remember it: release it instead, below.
    }
  }
  count_released(b->mem, b->capacity);
}

void BufferPool::trim() {
  const std::lock_guard<std::mutex> lock(mutex_);
  trim_locked();
}

void BufferPool::trim_locked() {
  cl_int first_error = CL_SUCCESS;
  for (const auto& [capacity, mem] : free_) {
    const cl_int err = clReleaseMemObject(mem);
    held_bytes().fetch_sub(capacity);
    if (first_error == CL_SUCCESS) first_error = err;
  }
  // Cleared before reporting: a handle whose release failed is not usable.
  free_.clear();
  cached_ = 0;
  check(first_error, "clReleaseMemObject");
}

}  // namespace fusecl::rt
