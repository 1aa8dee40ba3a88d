// The first level of the kernel cache: built kernels in memory, keyed by the
// structure signature the scheduler computes (compact bytes that determine the
// generated source exactly). A hit does no rendering, no source hashing and no
// disk lookup. A miss renders the source and goes to build_program(), which
// consults the disk cache.
#pragma once

#include "runtime/cl.hpp"

#include <functional>
#include <string>

namespace fusecl::rt {

/// What the code generator hands to the runtime.
struct KernelSource {
  std::string name;     // the __kernel function's name
  std::string source;   // complete OpenCL C program
  std::string options;  // clBuildProgram options
};

/// The built kernel for `signature` on the runtime's device. `render` is called
/// only on a miss. The kernel stays alive for the whole process; callers set
/// its arguments and enqueue it immediately (fusecl is single-threaded).
cl_kernel get_kernel(const std::string& signature, const std::function<KernelSource()>& render);

/// Drops every kernel held in memory (tests use this to force disk lookups).
void clear_memory_cache();

}  // namespace fusecl::rt
