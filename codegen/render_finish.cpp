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
    std::string e;
    if (k == 0) {
      e = value;
    } else if (in.op == Op::Scalar) {
      e = width == 1 ? "s" + std::to_string(in.slot) : "(" + T + ")(s" + std::to_string(in.slot) + ")";
    } else {
      auto v = [&](std::int16_t i) { return i >= 0 ? name(std::size_t(i)) : std::string(); };
      // Where's first operand is the bool condition; its data type is the second's.
      const DType operand = plan.finish[std::size_t(in.op == Op::Where ? in.b : in.a)].dtype;
      e = spell(in.op, in.dtype, operand, v(in.a), v(in.b), v(in.c), width, helpers);
    }
    s += ind + "const " + T + " " + name(k) + " = " + e + ";\n";
  }
  return {s, name(plan.finish.size() - 1)};
}

}  // namespace fusecl::codegen
