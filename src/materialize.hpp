// Evaluation: turns nodes into Buffer nodes by making their schedule
// (schedule.hpp, a pure pass) and running it on their device.
#pragma once

#include "src/node.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fusecl::detail {

/// Evaluates every node (elementwise roots of one shape share one kernel);
/// afterwards each is a Buffer node. Nodes that are already buffers cost nothing.
void evaluate(const std::vector<NodePtr>& roots);

/// Evaluates `root` (on its device, reading no host view) with its value
/// written into `dst` (at least its bytes) instead of a new buffer; false,
/// doing nothing, where no kernel of its own computes it (it is a buffer
/// already, or the value of another node of the schedule).
bool evaluate_into(const NodePtr& root, std::shared_ptr<rt::DeviceBuffer> dst);

/// The OpenCL C source of the kernel that would compute x (its dependencies,
/// such as reductions it reads, are evaluated first so the source is the final one).
std::string kernel_source_of(const NodePtr& x);

/// Evaluations this thread has started (evaluate, evaluate_into,
/// kernel_source_of, a fused function's call) and arrays it has uploaded
/// (from_host): fuse() tells by it whether a function evaluated or uploaded
/// anything while it ran, which a replay would not do again.
std::uint64_t evaluations_on_this_thread();
void count_evaluation_on_this_thread();

/// Fusion on/off (FUSECL_FUSION=0 or set_fusion(false)): off, every operation
/// is evaluated as soon as it is made — one kernel each, like an eager library.
bool fusion_enabled();
void set_fusion_enabled(bool on);

}  // namespace fusecl::detail
