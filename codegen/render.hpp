// KernelPlan -> OpenCL C. Deterministic: the same plan gives byte-identical
// source (names come from instruction positions, never from addresses,
// sizes or values).
#pragma once

#include "codegen/kernel_plan.hpp"

#include <string>

namespace fusecl::codegen {

/// "fusecl_ew_<16 hex digits of the signature's hash>" (or fusecl_red_...).
std::string kernel_name(const KernelPlan& plan);

/// The complete program text for the plan, with its kernel called `name`.
std::string render(const KernelPlan& plan, const std::string& name);

}  // namespace fusecl::codegen
