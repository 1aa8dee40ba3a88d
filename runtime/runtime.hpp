// The runtime as the graph side (src/) sees it. OpenCL stays behind this
// header: no OpenCL type appears here, so a second backend (Vulkan, Metal,
// CUDA) is a second implementation of these functions, not edits across src/.
//
// A Runtime is one opened device: its own context, in-order queue, buffer
// pool, built kernels and reduction scratch. It is not thread-safe by itself
// except where a function says so; src/ serializes the use of one Runtime
// with its device's lock (src/device_state.hpp).
#pragma once

#include "fusecl/device.hpp"
#include "fusecl/error.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace fusecl::rt {

struct Runtime;       // runtime/context.hpp
struct DeviceBuffer;  // runtime/buffer_pool.hpp

/// What the code generator hands to the runtime.
struct KernelSource {
  std::string name;     // the __kernel function's name
  std::string source;   // complete program text
  std::string options;  // build options
};

/// A new runtime on the device `spec` picks (FUSECL_DEVICE's syntax: "gpu",
/// "1:0", "pocl", ...); `origin` says where the spec came from in messages
/// ("FUSECL_DEVICE" or "open_device"). Each call makes a new context.
std::shared_ptr<Runtime> open_runtime(std::string_view spec, std::string_view origin);

/// The process's default runtime, from FUSECL_DEVICE, created on first call.
/// Never destroyed, so the OpenCL objects it owns are never released at exit:
/// releasing them from static destructors races the ICD's own teardown on
/// several drivers.
const std::shared_ptr<Runtime>& default_runtime();

const DeviceInfo& info(const Runtime& rt);
/// Why this device ("FUSECL_DEVICE=gpu: first GPU", ...).
const std::string& choice_reason(const Runtime& rt);
/// The -cl-std option under which the device's OpenCL C has acq_rel atomics
/// at device scope ("-cl-std=CL2.0"); empty where it has none.
const std::string& c11_atomics_std(const Runtime& rt);

/// A buffer of at least `bytes` from the runtime's pool (thread-safe).
std::shared_ptr<DeviceBuffer> allocate(Runtime& rt, std::size_t bytes);
/// A buffer for a kernel's output: allocate's, which with
/// FUSECL_POISON_OUTPUTS=1 is first filled with 0xFF bytes (NaN in floats,
/// -1 in integers, true in bools), so that a kernel that leaves part of an
/// output unwritten is seen, not hidden by what a pooled buffer held (the
/// tests run with it).
std::shared_ptr<DeviceBuffer> allocate_output(Runtime& rt, std::size_t bytes);
/// The device memory fusecl may hold on the runtime's device (the limit,
/// FUSECL_DEVICE_MEMORY_LIMIT or the device's memory) and what its buffers in
/// use hold now (cached ones are released when a request needs the room).
struct MemoryBudget {
  std::uint64_t limit = 0, in_use = 0;
};
MemoryBudget memory_budget(const Runtime& rt);

/// The bytes a buffer was asked for.
std::size_t bytes_of(const DeviceBuffer& buf);

/// Copies host memory into a new device buffer (blocking: the caller's memory
/// may be reused as soon as this returns). Counts one upload.
std::shared_ptr<DeviceBuffer> upload(Runtime& rt, const void* data, std::size_t bytes);

/// Copies `bytes` from `buf` at byte `offset` into host memory, after every
/// kernel enqueued before it (the queue is in order). Blocking; thread-safe
/// (OpenCL queues are). Counts one download.
void download(Runtime& rt, const DeviceBuffer& buf, std::size_t offset, std::size_t bytes, void* dst);

/// A buffer the device reads in place from host memory (CL_MEM_USE_HOST_PTR),
/// where that copies nothing: on devices sharing the host's memory, when
/// transfers may map (FUSECL_TRANSFERS unset, `auto` or `mapped`). Vector
/// loads assume an aligned buffer, so the buffer starts at `data` rounded
/// down to 128 bytes (in the same page: nothing unmapped is reached), and
/// `*pad` receives how many bytes before `data` it starts. Null otherwise:
/// the caller uploads instead. Counts one upload of `bytes` (what the
/// kernels read from the host), so counts agree across devices. The caller
/// keeps `data` alive and unchanged until the work reading it is done.
std::shared_ptr<DeviceBuffer> wrap_host(Runtime& rt, const void* data, std::size_t bytes, std::size_t* pad);

/// A buffer kernels write straight into host memory (CL_MEM_USE_HOST_PTR),
/// on the same terms as wrap_host but with `data` itself aligned to 128
/// bytes (a kernel's output starts at its buffer's start); null otherwise.
/// The values are in `data` once host_sync has returned.
std::shared_ptr<DeviceBuffer> wrap_host_out(Runtime& rt, void* data, std::size_t bytes);
/// Waits for the work writing `buf` (from wrap_host_out) and makes its
/// values visible in the host memory it wraps. Counts one download.
void host_sync(Runtime& rt, const DeviceBuffer& buf);

/// Enqueues a copy of `bytes` from `src` at `src_offset` to `dst` at
/// `dst_offset` on the device (ordered by the in-order queue; returns at once).
void copy_buffer(Runtime& rt, const DeviceBuffer& src, std::size_t src_offset, const DeviceBuffer& dst,
                 std::size_t dst_offset, std::size_t bytes);

/// Streamed evaluations (host views) on devices with memory of their own move
/// chunks on two queues of their own, overlapping uploads, kernels and
/// downloads: true where transfers are staged (FUSECL_TRANSFERS `auto` on such
/// a device, or `staged` on any, which tests use to run this path on PoCL).
bool streams_overlap(const Runtime& rt);
struct EventHandle;  // runtime/transfer.hpp
/// A point in a queue's work that other work can wait for.
using Event = std::shared_ptr<EventHandle>;
/// Copies host memory into a new device buffer on the upload queue; the
/// caller's memory is free when this returns. Counts one upload.
std::shared_ptr<DeviceBuffer> stream_upload(Runtime& rt, const void* data, std::size_t bytes);
/// Later uploads on the upload queue wait for the work enqueued on the
/// runtime's queue so far: buffers the pool hands out again may still be
/// read by that work (the pool takes buffers back when their last array goes,
/// which the runtime's in-order queue alone makes safe).
void stream_uploads_after_kernels(Runtime& rt);
/// An event done when every stream upload so far is.
Event stream_uploads_done(Runtime& rt);
/// Work enqueued on the runtime's queue from now on waits for `e`.
void kernels_wait(Runtime& rt, const Event& e);
/// An event done when everything enqueued on the runtime's queue so far is (flushed, so it will be).
Event mark(Runtime& rt);
/// Copies `bytes` of `buf` into `dst` on the download queue once `after` is
/// done; complete when this returns. Thread-safe against the other stream
/// functions (its own queue and staging). Counts one download.
void stream_download(Runtime& rt, const DeviceBuffer& buf, std::size_t bytes, void* dst, const Event& after);
/// Blocks until `e` is done.
void wait(const Event& e);

/// Blocks until the runtime's queue is empty (thread-safe).
void finish(Runtime& rt);

/// A kernel argument: a buffer (null for a zero-byte one) or a value of 1 to 8 bytes.
struct KernelArg {
  const DeviceBuffer* buffer = nullptr;
  std::uint64_t bits = 0;
  std::uint8_t size = 0;  // 0: a buffer

  static KernelArg of_buffer(const DeviceBuffer* b) { return {b, 0, 0}; }
  static KernelArg of_bits(std::uint64_t bits, int size) { return {nullptr, bits, std::uint8_t(size)}; }
};

/// A kernel the driver would not build from its source: fusecl::Error with
/// the build log and the numbered source (program_build.cpp), whose caller
/// may try another form of the kernel (src/launch.cpp: a row kernel's warp
/// shuffles).
class BuildError : public Error {
 public:
  using Error::Error;
};

/// Enqueues the kernel `signature` names with `args` over `global` work-items
/// in groups of `local`. The kernel is built on the first use of its
/// signature on this runtime (`render` is called only then, and the disk
/// cache consulted); later uses take it from memory. Counts one kernel.
/// Throws BuildError where the driver will not build it.
void launch_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render,
                   std::span<const KernelArg> args, std::size_t global, std::size_t local);

/// A launch over 1 to 3 dimensions: `global` work-items in groups of `local`.
struct NDRange {
  unsigned dims = 1;
  std::size_t global[3] = {1, 1, 1};
  std::size_t local[3] = {1, 1, 1};
};
/// As above, over `range`.
void launch_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render,
                   std::span<const KernelArg> args, const NDRange& range);

/// Scratch of split reductions: partial results of at least `bytes`, shared by
/// every kernel of this runtime (the in-order queue runs one at a time).
std::shared_ptr<DeviceBuffer> reduce_partials(Runtime& rt, std::size_t bytes);
/// Per-output counters of split reductions that their last group finishes:
/// zero when first made, and each kernel's last groups reset those they used.
std::shared_ptr<DeviceBuffer> reduce_counters(Runtime& rt, std::int64_t outputs);

}  // namespace fusecl::rt
