#include "runtime/kernel_cache.hpp"

#include "runtime/context.hpp"
#include "runtime/program_build.hpp"
#include "runtime/stats_counters.hpp"

namespace fusecl::rt {

BuiltKernel& built_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render) {
  // Held through a build: a second thread asking for the same kernel waits
  // for it instead of building it again.
  const std::lock_guard<std::mutex> lock(rt.kernels_mutex);
  if (auto it = rt.kernels.find(signature); it != rt.kernels.end()) {
    ++counters().memory_cache_hits;
    return it->second;
  }
  const KernelSource ks = render();
  cl_program program = build_program(rt, ks);
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, ks.name.c_str(), &err);
  clReleaseProgram(program);  // a kernel keeps its program alive by itself
  check(err, ("clCreateKernel(" + ks.name + ")").c_str());
  return rt.kernels.emplace(signature, BuiltKernel{kernel, {}}).first->second;
}

cl_kernel get_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render) {
  BuiltKernel& b = built_kernel(rt, signature, render);
  b.set.clear();
  return b.kernel;
}

void clear_memory_cache(Runtime& rt) {
  const std::lock_guard<std::mutex> lock(rt.kernels_mutex);
  for (auto& [signature, built] : rt.kernels) clReleaseKernel(built.kernel);
  rt.kernels.clear();
}

}  // namespace fusecl::rt
