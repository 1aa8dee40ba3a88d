// Turning generated OpenCL C into a program for the runtime's device, through the
// disk cache: a stored binary when there is a good one, else a compile from source
// whose binary is then stored.
#pragma once

#include "fusecl/device.hpp"
#include "runtime/cache_entry.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/runtime.hpp"

#include <string>
#include <string_view>

namespace fusecl::rt {

/// The disk-cache key of `ks` compiled for `dev`: the exact source and options, the
/// platform and device names and versions and the driver version (plus fusecl's own
/// version and the entry format, which cache_key adds).
CacheKey program_cache_key(const KernelSource& ks, const DeviceInfo& dev);

/// A built program for `ks` on `rt`'s device; the caller owns one reference.
/// Order: the disk cache's binary (clCreateProgramWithBinary + clBuildProgram with
/// ks.options), and if there is none or the driver rejects it, a build from source,
/// whose binary is then stored (replacing a rejected one). Counts disk hits and misses
/// (neither while the disk cache is off; a rejected binary is a miss), programs loaded
/// and built. A failed source build throws BuildError with the build log
/// and the whole source, numbered.
cl_program build_program(const Runtime& rt, const KernelSource& ks);

/// `source` with right-aligned line numbers ("  7 | x = ...") as build errors show it.
std::string numbered_source(std::string_view source);

}  // namespace fusecl::rt
