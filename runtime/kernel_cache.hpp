// The first level of the kernel cache: built kernels in memory, per runtime
// (each context needs its own), keyed by the structure signature the
// scheduler computes (compact bytes that determine the generated source
// exactly). A hit does no rendering, no source hashing and no disk lookup. A
// miss renders the source and goes to build_program(), which consults the
// disk cache (shared by all devices, keyed by source and device).
#pragma once

#include "runtime/cl.hpp"
#include "runtime/runtime.hpp"

#include <functional>
#include <string>
#include <vector>

namespace fusecl::rt {

/// A built kernel, with the scalar arguments launch_kernel last set on it:
/// a kernel launched again with the same scalars (a replayed plan) sets only
/// its buffers. (Buffers are always set: a released cl_mem's handle may come
/// back for another buffer, which the driver may resolve differently.)
struct BuiltKernel {
  cl_kernel kernel = nullptr;
  std::vector<KernelArg> set;  // by argument index; size 0: not known to be set
};

/// The built kernel for `signature` on `rt`, for launch_kernel, which keeps
/// its `set` (under the device's lock, as the arguments themselves).
BuiltKernel& built_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render);

/// The built kernel for `signature` on `rt`. `render` is called only on a
/// miss; concurrent first requests for one signature build it once. The
/// kernel lives as long as `rt`; callers set its arguments and enqueue it
/// while holding the device's lock (clSetKernelArg is not thread-safe). Forgets
/// the arguments launch_kernel set: the caller sets its own.
cl_kernel get_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render);

/// Drops every kernel `rt` holds in memory (tests use this to force disk lookups).
void clear_memory_cache(Runtime& rt);

}  // namespace fusecl::rt
