// Pieces shared by the elementwise and reduction renderers: the kernel body
// (one `const T vK = ...;` line per instruction) and index arithmetic.
#pragma once

#include "codegen/kernel_plan.hpp"
#include "codegen/spelling.hpp"

#include <string>

namespace fusecl::codegen {

/// Declares c0..c{ndim-1}, the coordinates of flat position `pos` in the index
/// space d0..d{ndim-1}; empty when no load is strided.
std::string emit_coordinates(const KernelPlan& plan, const std::string& pos, const std::string& indent);

/// Every instruction of the plan as a declaration of v<k>, at flat position
/// `pos` (the first of `width` consecutive positions when width > 1; vector
/// bodies are only rendered for plans without strided loads or generators).
std::string emit_body(const KernelPlan& plan, int width, const std::string& pos, const std::string& indent,
                      HelperSet& helpers);

std::string param_declaration(const KernelPlan& plan, const Param& p);
std::string program_prelude(const KernelPlan& plan);
std::string render_reduce(const KernelPlan& plan, const std::string& name);

/// An elementwise plan with tiles (plan.tile != 0): render_tiled.cpp.
std::string render_tiled(const KernelPlan& plan, const std::string& name);

}  // namespace fusecl::codegen
