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

namespace fusecl::rt {

/// The built kernel for `signature` on `rt`. `render` is called only on a
/// miss; concurrent first requests for one signature build it once. The
/// kernel lives as long as `rt`; callers set its arguments and enqueue it
/// while holding the device's lock (clSetKernelArg is not thread-safe).
cl_kernel get_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render);

/// Drops every kernel `rt` holds in memory (tests use this to force disk lookups).
void clear_memory_cache(Runtime& rt);

}  // namespace fusecl::rt
