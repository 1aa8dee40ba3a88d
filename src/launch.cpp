#include "src/launch.hpp"

#include "codegen/render.hpp"
#include "fusecl/error.hpp"
#include "runtime/context.hpp"
#include "runtime/stats_counters.hpp"

#include <algorithm>
#include <cstdlib>

namespace fusecl::detail {

std::string build_options() {
  const auto& info = rt::runtime().dev.info;
  std::string o = "-cl-std=CL1.2";
  // IEEE-exact division and square root in float32, as NumPy has them.
  if (info.correctly_rounded_sqrt) o += " -cl-fp32-correctly-rounded-divide-sqrt";
  if (const char* extra = std::getenv("FUSECL_BUILD_OPTIONS"); extra && *extra) o += std::string(" ") + extra;
  return o;
}

int vector_bytes() {
  static const int bytes = [] {
    if (const char* v = std::getenv("FUSECL_VECTOR_BYTES"); v && *v) return std::clamp(std::atoi(v), 1, 128);
    // CPUs (PoCL) gain most from explicit wide vectors (one AVX-512 register,
    // or two AVX2 ones); GPUs want 16-byte loads per work-item.
    return rt::runtime().dev.info.type == "CPU" ? 64 : 16;
  }();
  return bytes;
}

rt::KernelSource kernel_source(const codegen::KernelPlan& plan) {
  const std::string name = codegen::kernel_name(plan);
  return {name, codegen::render(plan, name), build_options()};
}

namespace {

void set_arg(cl_kernel k, cl_uint i, std::size_t size, const void* v) { rt::check(clSetKernelArg(k, i, size, v), "clSetKernelArg"); }

void set_mem(cl_kernel k, cl_uint i, const std::shared_ptr<rt::DeviceBuffer>& b) {
  cl_mem m = b ? b->mem : nullptr;
  set_arg(k, i, sizeof(cl_mem), &m);
}

void set_bits(cl_kernel k, cl_uint i, DType t, std::uint64_t bits) { set_arg(k, i, std::size_t(size_of(t)), &bits); }

void set_long(cl_kernel k, cl_uint i, std::int64_t v) {
  cl_long l = v;
  set_arg(k, i, sizeof l, &l);
}

}  // namespace

void launch(const ScheduledKernel& sk, const std::vector<std::shared_ptr<rt::DeviceBuffer>>& outputs) {
  const auto& plan = sk.plan;
  const auto& a = sk.args;
  if (a.count == 0) return;  // nothing to compute; outputs are empty
  auto& rt = rt::runtime();
  if (plan.uses_fp64() && !rt.dev.info.fp64)
    throw Error("float64 needs the cl_khr_fp64 extension, which device '" + rt.dev.info.name +
                "' does not have; use float32 arrays or choose another device with FUSECL_DEVICE");

  cl_kernel k = rt::get_kernel(codegen::signature(plan), [&] { return kernel_source(plan); });
  const auto ps = codegen::params(plan);
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto& p = ps[i];
    const cl_uint ai = cl_uint(i);
    const auto idx = std::size_t(p.index);
    switch (p.role) {
      case codegen::ParamRole::Output: set_mem(k, ai, outputs.at(idx)); break;
      case codegen::ParamRole::Input: set_mem(k, ai, a.inputs.at(idx)); break;
      case codegen::ParamRole::Scalar: set_bits(k, ai, plan.scalar_dtypes[idx], a.scalars[idx]); break;
      case codegen::ParamRole::Count: set_long(k, ai, a.count); break;
      case codegen::ParamRole::ReduceCount: set_long(k, ai, a.reduce_count); break;
      case codegen::ParamRole::Dim: set_long(k, ai, a.dims.at(idx)); break;
      case codegen::ParamRole::Offset: set_long(k, ai, a.offsets.at(idx)); break;
      case codegen::ParamRole::Stride: set_long(k, ai, a.strides.at(idx).at(std::size_t(p.sub))); break;
      case codegen::ParamRole::GenParam: {
        const auto& in = plan.instrs[idx];
        set_bits(k, ai, codegen::gen_param_dtype(in.gen, in.dtype, p.sub), a.gen_params[idx][std::size_t(p.sub)]);
        break;
      }
      case codegen::ParamRole::Scratch: throw Error("internal: scratch argument outside a reduction");
    }
  }
  const std::size_t local = std::min<std::size_t>(256, rt.dev.info.max_work_group_size);
  const std::size_t work = std::size_t((a.count + plan.width - 1) / plan.width);
  const std::size_t global = (work + local - 1) / local * local;
  rt::check(clEnqueueNDRangeKernel(rt.queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  rt::counters().kernels_launched++;
}

}  // namespace fusecl::detail
