// A reduction's consumer computed where the reduction stores its value
// (KernelPlan::finish): every store site of render_reduce*.cpp and
// render_lane_rows.cpp writes these statements before its store and stores
// the value they name, so that sqrt(sum(x * x, 1)) is one kernel; softmax's
// pair (render_reduce_online.cpp, thread_combine) from its max and sum, so
// that a logsumexp is. Without a finish the store is the reduction's value
// itself, as it always was: those kernels' sources do not change.
#include "codegen/body.hpp"

#include <initializer_list>

namespace fusecl::codegen {

namespace {

// The finish's entries from the reduction's values (its first entries).
FinishValue finish_of(const KernelPlan& plan, std::initializer_list<std::string> values, int width, const std::string& ind,
                      HelperSet& helpers) {
  auto name = [](std::size_t k) { return "f" + std::to_string(k) + "_"; };
  std::string s;
  for (std::size_t k = 0; k < plan.finish.size(); ++k) {
    const Instr& in = plan.finish[k];
    const std::string T = cl_type(in.dtype, width);
    const std::string e = k < values.size()      ? values.begin()[k]
                          : in.op == Op::Scalar ? scalar_value(in.slot, T, width)
                                                : spell_entry(plan.finish, k, "f", "_", width, helpers);
    s += ind + "const " + T + " " + name(k) + " = " + e + ";\n";
  }
  return {s, name(plan.finish.size() - 1)};
}

}  // namespace

FinishValue finish_value(const KernelPlan& plan, const std::string& acc, int width, const std::string& ind, HelperSet& helpers) {
  const std::string value = reduce_finish(plan.reduce, acc);
  if (plan.finish.empty()) return {std::string(), value};
  return finish_of(plan, {value}, width, ind, helpers);
}

FinishValue pair_finish_value(const KernelPlan& plan, const std::string& max, const std::string& sum, int width, const std::string& ind,
                              HelperSet& helpers) {
  return finish_of(plan, {max, sum}, width, ind, helpers);
}

}  // namespace fusecl::codegen
