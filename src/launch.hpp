// Runs a scheduled kernel on a device: the runtime fetches the built kernel
// (building it on a miss) and enqueues it with the arguments set here by role.
#pragma once

#include "runtime/runtime.hpp"
#include "src/scheduler.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace fusecl::detail {

struct DeviceState;

/// The build options fusecl uses on `rt`'s device.
std::string build_options(const rt::Runtime& rt);

/// What the scheduler needs to know of a device, from what it reports and
/// FUSECL_VECTOR_BYTES / FUSECL_REDUCE_TWO_KERNELS (device_state.hpp's
/// tuning_of adds the overrides below).
DeviceTuning default_tuning(const rt::Runtime& rt);
/// The same without an opened device (fusecl-info): all but what only an
/// opened device tells (how split reductions finish).
DeviceTuning default_tuning(const DeviceInfo& info);

/// The default device's tuning (tests).
DeviceTuning device_tuning();

/// Overrides the vector size for later kernels on every device (benchmarks
/// sweep it; 0 restores each device's default). Kernels of each width are
/// cached separately.
void set_vector_bytes(int bytes);

/// Finishes later split reductions with a second kernel even where the device
/// could let their last work-group do it (tests compare both paths); false
/// restores the devices' defaults (FUSECL_REDUCE_TWO_KERNELS, then the device).
void set_reduce_two_kernels(bool on);

/// Computes later var/std in two passes, as the graph defines them, even where
/// a device would compute them in one (tests compare both); false restores
/// the devices' defaults (FUSECL_ONE_PASS_MOMENTS, then float64).
void set_two_pass_moments(bool on);

/// Renders the program text of a plan for `rt`'s device (what the cache hashes and builds).
rt::KernelSource kernel_source(const rt::Runtime& rt, const codegen::KernelPlan& plan);

/// What a launch derives from the plan alone: a kernel launched again and
/// again (a kept or fused plan's) keeps it instead of rebuilding it each time.
/// The row lengths of one row kernel (its plan but for the length) a
/// device takes as constants of its source (codegen ReduceSpec::row_length);
/// later ones run as the argument (launch.cpp's length_admitted).
constexpr std::size_t kRowLengths = 8;

struct LaunchMemo {
  std::string signature;  // empty: not made yet
  codegen::ParamList params;
  // A row kernel with its row length a constant (codegen ReduceSpec::
  // row_length): whether its device took the length so, and if not, the
  // memo of the plan with the length as the argument, which it runs.
  enum class Length : std::uint8_t { Unknown, Constant, Argument } length = Length::Unknown;
  std::shared_ptr<LaunchMemo> argument;
};

/// Enqueues the kernel on `dev` writing into `outputs` (one per plan output).
/// The caller holds the device's lock. `memo`, where given, is filled on
/// first use and must belong to this plan alone.
void launch(DeviceState& dev, const codegen::KernelPlan& plan, const KernelArgs& args,
            std::span<const std::shared_ptr<rt::DeviceBuffer>> outputs, LaunchMemo* memo = nullptr);
inline void launch(DeviceState& dev, const ScheduledKernel& k, std::span<const std::shared_ptr<rt::DeviceBuffer>> outputs,
                   LaunchMemo* memo = nullptr) {
  launch(dev, k.plan, k.args, outputs, memo);
}

}  // namespace fusecl::detail
