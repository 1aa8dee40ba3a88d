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
/// The bytes a buffer was asked for.
std::size_t bytes_of(const DeviceBuffer& buf);

/// Copies host memory into a new device buffer (blocking: the caller's memory
/// may be reused as soon as this returns). Counts one upload.
std::shared_ptr<DeviceBuffer> upload(Runtime& rt, const void* data, std::size_t bytes);

/// Copies `bytes` from `buf` at byte `offset` into host memory, after every
/// kernel enqueued before it (the queue is in order). Blocking; thread-safe
/// (OpenCL queues are). Counts one download.
void download(Runtime& rt, const DeviceBuffer& buf, std::size_t offset, std::size_t bytes, void* dst);

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

/// Enqueues the kernel `signature` names with `args` over `global` work-items
/// in groups of `local`. The kernel is built on the first use of its
/// signature on this runtime (`render` is called only then, and the disk
/// cache consulted); later uses take it from memory. Counts one kernel.
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
