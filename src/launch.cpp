#include "src/launch.hpp"

#include "codegen/render.hpp"
#include "fusecl/error.hpp"
#include "runtime/context.hpp"
#include "runtime/env_settings.hpp"
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

namespace {
// Split reductions end in their last work-group where the device's OpenCL C
// makes that well-defined (acq_rel atomics at device scope), else in a second
// kernel. FUSECL_REDUCE_TWO_KERNELS=1 forces the second kernel (a debugging
// aid: it compares the two paths on one device).
codegen::SplitFinish split_finish_default() {
  static const bool forced = rt::switch_setting("FUSECL_REDUCE_TWO_KERNELS", false);
  if (forced || rt::runtime().dev.c11_atomics_std.empty()) return codegen::SplitFinish::SecondKernel;
  return codegen::SplitFinish::LastGroup;
}

DeviceTuning default_tuning() {
  const auto& info = rt::runtime().dev.info;
  const bool cpu = info.type == "CPU";
  DeviceTuning d;
  // CPUs (PoCL) gain most from explicit wide vectors (one AVX-512 register,
  // or two AVX2 ones); GPUs want 16-byte loads per work-item.
  d.vector_bytes = cpu ? 64 : 16;
  // Read once per process, so a bad value is reported once.
  static const int from_env = int(rt::int_setting(
      {"FUSECL_VECTOR_BYTES", d.vector_bytes, 1, 128, /*power_of_two=*/true, cpu ? "the default on CPUs" : "the default on GPUs"}));
  d.vector_bytes = from_env;
  // CPU work-groups run as loops on one core: small groups, one or two per core.
  d.local_size = int(std::min<std::size_t>(cpu ? 16 : 256, info.max_work_group_size));
  int pow2 = 1;
  while (pow2 * 2 <= d.local_size) pow2 *= 2;
  d.local_size = pow2;
  // GPUs: 4 groups of 256 per multiprocessor. 8 (full occupancy) measured no
  // better on an H200 (sum of 2^26 floats: 81.4 us against 77.6 us).
  d.target_groups = int(std::max(1u, info.compute_units)) * (cpu ? 2 : 4);
  d.max_parameter_bytes = std::max<std::size_t>(256, info.max_parameter_size);
  d.split_finish = split_finish_default();
  return d;
}

DeviceTuning& tuning() {
  static DeviceTuning t = default_tuning();
  return t;
}
}  // namespace

const DeviceTuning& device_tuning() { return tuning(); }

void set_reduce_two_kernels(bool on) {
  tuning().split_finish = on ? codegen::SplitFinish::SecondKernel : split_finish_default();
}

void set_vector_bytes(int bytes) {
  tuning().vector_bytes = bytes > 0 ? std::clamp(bytes, 1, 128) : default_tuning().vector_bytes;
}

rt::KernelSource kernel_source(const codegen::KernelPlan& plan) {
  const std::string name = codegen::kernel_name(plan);
  std::string options = build_options();
  // Only kernels with OpenCL C 2.0 atomics are built under a later standard;
  // every other kernel keeps OpenCL C 1.2's semantics on every device.
  if (codegen::uses_c11_atomics(plan)) {
    const std::string& std_option = rt::runtime().dev.c11_atomics_std;
    if (std_option.empty())
      throw Error("internal error: a reduction kernel uses OpenCL C 2.0 atomics, which device '" + rt::runtime().dev.info.name +
                  "' does not have");
    const std::string cl12 = "-cl-std=CL1.2";
    options.replace(options.find(cl12), cl12.size(), std_option);
  }
  return {name, codegen::render(plan, name), options};
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

// Split reductions' partial results. The in-order queue runs one kernel at a
// time, so one buffer serves them all.
std::shared_ptr<rt::DeviceBuffer> partials(std::size_t bytes) {
  auto& r = rt::runtime();
  if (!r.reduce_partials || r.reduce_partials->bytes < bytes) {
    r.reduce_partials.reset();
    r.reduce_partials = r.pool->allocate(std::max<std::size_t>(bytes, 1 << 16));
  }
  return r.reduce_partials;
}

// Per-output counters of split reductions finished by their last group:
// zeroed once when allocated; each kernel's last groups reset the counters
// they used, so they are zero again before the next kernel without a fill.
std::shared_ptr<rt::DeviceBuffer> counters(std::int64_t outputs) {
  auto& r = rt::runtime();
  const std::size_t bytes = std::size_t(outputs) * 4;
  if (!r.reduce_counters || r.reduce_counters->bytes < bytes) {
    r.reduce_counters.reset();
    auto buf = r.pool->allocate(std::max<std::size_t>(bytes, 1 << 12));
    const cl_uchar zero = 0;
    rt::check(clEnqueueFillBuffer(r.queue, buf->mem, &zero, 1, 0, buf->capacity, 0, nullptr, nullptr), "clEnqueueFillBuffer");
    r.reduce_counters = std::move(buf);
  }
  return r.reduce_counters;
}

// The second kernel of a split reduction whose partials `sk` leaves in scratch.
ScheduledKernel combine_kernel(const ScheduledKernel& sk) {
  ScheduledKernel c{codegen::combine_plan(sk.plan), {}};
  c.args.count = sk.args.count;
  c.args.reduce_count = sk.args.groups;
  c.args.groups = sk.args.groups;
  c.args.scratch_bytes = sk.args.scratch_bytes;
  if (sk.plan.reduce.op == Op::Mean) c.args.scalars.push_back(sk.args.scalars.at(std::size_t(sk.plan.reduce.divisor)));
  return c;
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
      case codegen::ParamRole::Scratch: set_mem(k, ai, partials(a.scratch_bytes)); break;
      case codegen::ParamRole::Counters: set_mem(k, ai, counters(a.count)); break;
      case codegen::ParamRole::Groups: set_long(k, ai, a.groups); break;
      case codegen::ParamRole::OutOffset: set_long(k, ai, a.out_offset); break;
      case codegen::ParamRole::OutStride: set_long(k, ai, a.out_strides.at(idx)); break;
    }
  }
  std::size_t local = std::min<std::size_t>(256, rt.dev.info.max_work_group_size);
  std::size_t global;
  if (plan.kind == codegen::KernelKind::Reduce && plan.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput) {
    local = plan.reduce.local_size;
    global = std::size_t(a.count) * std::size_t(plan.reduce.combine ? 1 : a.groups) * local;
  } else {
    if (plan.kind == codegen::KernelKind::Reduce) local = plan.reduce.local_size;
    const std::size_t work = plan.kind == codegen::KernelKind::Reduce ? std::size_t(a.count)
                                                                      : std::size_t((a.count + plan.width - 1) / plan.width);
    global = (work + local - 1) / local * local;
  }
  rt::check(clEnqueueNDRangeKernel(rt.queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  rt::counters().kernels_launched++;
  if (plan.kind == codegen::KernelKind::Reduce && plan.reduce.two_stage && !plan.reduce.combine &&
      plan.reduce.finish == codegen::SplitFinish::SecondKernel)
    launch(combine_kernel(sk), outputs);
}

}  // namespace fusecl::detail
