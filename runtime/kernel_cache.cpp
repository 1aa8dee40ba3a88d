#include "runtime/kernel_cache.hpp"

#include "runtime/program_build.hpp"
#include "runtime/stats_counters.hpp"

#include <unordered_map>

namespace fusecl::rt {

namespace {

// Never destroyed, like the runtime itself: releasing kernels from a static
// destructor races the ICD's own teardown on several drivers.
std::unordered_map<std::string, cl_kernel>& kernels() {
  static auto* map = new std::unordered_map<std::string, cl_kernel>();
  return *map;
}

}  // namespace

cl_kernel get_kernel(const std::string& signature, const std::function<KernelSource()>& render) {
  auto& map = kernels();
  if (auto it = map.find(signature); it != map.end()) {
    ++counters().memory_cache_hits;
    return it->second;
  }
  const KernelSource ks = render();
  cl_program program = build_program(ks);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, ks.name.c_str(), &err);
  clReleaseProgram(program);  // a kernel keeps its program alive by itself
  check(err, ("clCreateKernel(" + ks.name + ")").c_str());
  map.emplace(signature, kernel);
  return kernel;
}

void clear_memory_cache() {
  auto& map = kernels();
  for (auto& [signature, kernel] : map) clReleaseKernel(kernel);
  map.clear();
}

}  // namespace fusecl::rt
