// The scheduler decides what one kernel computes and collects its arguments.
// A kernel's body is the elementwise graph below its root(s), down to leaves
// (buffers, scalars, generators) and barriers (reductions, concatenations,
// forced copies), which are evaluated by kernels of their own first.
#pragma once

#include "codegen/kernel_plan.hpp"
#include "src/node.hpp"

#include <array>
#include <vector>

namespace fusecl::detail {

/// Argument values for a plan, indexed like the plan's slots and instructions.
struct KernelArgs {
  std::vector<std::shared_ptr<rt::DeviceBuffer>> inputs;  // by buffer slot
  std::vector<std::uint64_t> scalars;                     // by scalar slot, as bits of the slot's dtype
  std::int64_t count = 0;                                 // elements (elementwise) or outputs (reduce)
  std::int64_t reduce_count = 0;                          // reduce: length of the reduced range
  std::vector<std::int64_t> dims;                         // index space, plan.ndim of them
  std::vector<std::int64_t> offsets;                      // by instruction (loads)
  std::vector<std::vector<std::int64_t>> strides;         // by instruction (strided loads)
  std::vector<std::array<std::uint64_t, 4>> gen_params;   // by instruction (generators), bits
};

struct ScheduledKernel {
  codegen::KernelPlan plan;
  KernelArgs args;
};

/// Nodes below `root`'s kernel body that must be evaluated before it.
std::vector<NodePtr> unevaluated_barriers(const NodePtr& root);

/// The value a kernel computes for an evaluation root (a Contiguous node's input;
/// the node itself otherwise).
const NodePtr& body_root(const NodePtr& root);

/// One elementwise kernel computing every root (all of one shape) into
/// contiguous outputs. `vector_bytes` is the device's preferred vector size.
ScheduledKernel plan_elementwise(const std::vector<NodePtr>& roots, int vector_bytes);

/// One reduction kernel for a Reduce node.
ScheduledKernel plan_reduce(const NodePtr& root, int vector_bytes);

}  // namespace fusecl::detail
