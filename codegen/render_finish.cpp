// A reduction's consumer computed where the reduction stores its value
// (KernelPlan::finish): every store site of render_reduce*.cpp and
// render_lane_rows.cpp writes these statements before its store and stores
// the value they name, so that sqrt(sum(x * x, 1)) is one kernel. Without a
// finish the store is the reduction's value itself, as it always was: those
// kernels' sources do not change.
#include "codegen/body.hpp"

namespace fusecl::codegen {

FinishValue finish_value(const KernelPlan& plan, const std::string& acc, int width, const std::string& ind, HelperSet& helpers) {
  const std::string value = reduce_finish(plan.reduce, acc);
  if (plan.finish.empty()) return {std::string(), value};
  auto name = [](std::size_t k) { return "f" + std::to_string(k) + "_"; };
  std::string s;
  for (std::size_t k = 0; k < plan.finish.size(); ++k) {
    const Instr& in = plan.finish[k];
    const std::string T = cl_type(in.dtype, width);
    const std::string e = k == 0                 ? value
                          : in.op == Op::Scalar ? scalar_value(in.slot, T, width)
                                                : spell_entry(plan.finish, k, "f", "_", width, helpers);
    s += ind + "const " + T + " " + name(k) + " = " + e + ";\n";
  }
  return {s, name(plan.finish.size() - 1)};
}

}  // namespace fusecl::codegen
