// A reduction's consumer computed where the reduction stores its value
// (KernelPlan::finish): every store site of render_reduce*.cpp and
// render_lane_rows.cpp writes these statements before its store and stores
// the value they name, so that sqrt(sum(x * x, 1)) is one kernel. Softmax's
// pair and the moment kernels store through store_values, the finish reading
// both their values (a logsumexp's log(sum) + max, a variance's 1 / sqrt(var
// + eps)). Without a finish the stores are the reduction's values
// themselves, as they always were: those kernels' sources do not change.
#include "codegen/body.hpp"

#include <vector>

namespace fusecl::codegen {

namespace {

// The finish's entries from the reduction's values (its first entries).
FinishValue finish_of(const KernelPlan& plan, const std::vector<std::string>& values, int width, const std::string& ind,
                      HelperSet& helpers) {
  auto name = [](std::size_t k) { return "f" + std::to_string(k) + "_"; };
  std::string s;
  for (std::size_t k = 0; k < plan.finish.size(); ++k) {
    const Instr& in = plan.finish[k];
    const std::string T = cl_type(in.dtype, width);
    const std::string e = k < values.size()      ? values[k]
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

std::string store_values(const KernelPlan& plan, const std::vector<std::string>& values, int width, const std::string& at,
                         const std::string& ind, HelperSet& helpers) {
  const auto store = [&](std::size_t k, const std::string& v) {
    const std::string out = "out" + std::to_string(k);
    return ind + (width == 1 ? out + "[" + at + "] = " + v + ";\n" : "vstore" + std::to_string(width) + "(" + v + ", 0, " + out + " + " + at + ");\n");
  };
  if (plan.finish.empty()) {
    std::string s;
    for (std::size_t k = 0; k < values.size(); ++k) s += store(k, values[k]);
    return s;
  }
  const FinishValue f = finish_of(plan, values, width, ind, helpers);
  return f.statements + store(0, f.value);
}

}  // namespace fusecl::codegen
