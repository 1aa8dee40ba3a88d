// Runs a scheduled kernel: fetches the built kernel from the cache (building
// it on a miss), sets its arguments by role and enqueues it.
#pragma once

#include "runtime/kernel_cache.hpp"
#include "src/scheduler.hpp"

namespace fusecl::detail {

/// The build options fusecl uses on the current device.
std::string build_options();

/// What the scheduler needs to know of the current device (vector size:
/// FUSECL_VECTOR_BYTES overrides).
const DeviceTuning& device_tuning();

/// Overrides the vector size for later kernels (benchmarks sweep it; 0 restores
/// the device's default). Kernels of each width are cached separately.
void set_vector_bytes(int bytes);

/// Finishes later split reductions with a second kernel even where the device
/// could let their last work-group do it (tests compare both paths); false
/// restores the device's default (FUSECL_REDUCE_TWO_KERNELS, then the device).
void set_reduce_two_kernels(bool on);

/// Renders the program text of a plan (what the cache hashes and builds).
rt::KernelSource kernel_source(const codegen::KernelPlan& plan);

/// Enqueues the kernel writing into `outputs` (one per plan output).
void launch(const ScheduledKernel& k, const std::vector<std::shared_ptr<rt::DeviceBuffer>>& outputs);

}  // namespace fusecl::detail
