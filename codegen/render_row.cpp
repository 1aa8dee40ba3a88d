// Row kernels (KernelKind::Row): reduce-then-use in one kernel. A work-group
// owns one row of the index space [kept dims..., row dims...] (flat position
// p = o * m + r: o the row, r the position in it) and runs in phases: each
// reduction of the body, in instruction order (a reduction's input may read
// earlier ones), is computed over the row by the whole group and held in a
// private variable v<k> of every work-item; then the outputs are computed and
// stored at every element of the row. Work-items step through the row L
// apart, so a group's loads are coalesced; the row is read once per phase,
// and the later reads hit cache (the scheduler only picks a row kernel when
// a row's inputs fit in the device's local memory, a proxy for its cache).
//
// Accuracy is that of the reduction kernels (render_reduce.cpp): float sums
// accumulate per work-item with Kahan compensation, then combine in a tree.
#include "codegen/body.hpp"

namespace fusecl::codegen {

namespace {

// Which instructions computing `targets` are evaluated at each element: their
// operands, transitively, stopping at reductions (held per row already).
// Operands come before their instructions, so one backward sweep suffices.
std::vector<char> per_element(const KernelPlan& plan, const std::vector<std::int16_t>& targets) {
  std::vector<char> need(plan.instrs.size(), 0);
  for (const auto t : targets) need[std::size_t(t)] = 1;
  for (std::size_t k = plan.instrs.size(); k-- > 0;) {
    if (!need[k]) continue;
    const Instr& in = plan.instrs[k];
    if (is_row_reduction(in)) {
      need[k] = 0;  // declared once per row, before this phase
      continue;
    }
    for (const std::int16_t o : {in.a, in.b, in.c})
      if (o >= 0) need[std::size_t(o)] = 1;
  }
  return need;
}

// The loop over the row's elements, each work-item taking every L-th.
std::string row_loop_head(const KernelPlan& plan, const std::string& L, const std::string& ind) {
  return ind + "for (long r = lid; r < m; r += " + L + ") {\n" + ind + "  const long p = o * m + r;\n" +
         emit_coordinates(plan, "p", ind + "  ");
}

// Phase for reduction instruction k: the group's value of it over the row,
// left in v<k> for every work-item.
std::string reduction_phase(const KernelPlan& plan, std::size_t k, HelperSet& helpers) {
  const Instr& red = plan.instrs[k];
  const ReduceInfo& info = reduce_info(red.op);
  const DType acc_t = red.dtype;  // the accumulator: the input's dtype (the graph casts it)
  const std::string A = cl_type(acc_t), L = std::to_string(plan.reduce.local_size);
  const std::string sh = "sh" + std::to_string(k), v = "v" + std::to_string(red.a);
  const bool kahan = is_float(acc_t) && info.summation == Summation::Kahan;
  auto combine = [&](const std::string& a, const std::string& b) { return spell(info.combine, acc_t, acc_t, a, b, "", 1, helpers); };

  std::string s = "  {\n    " + A + " acc = " + reduce_identity(info.identity, acc_t) + ";\n";
  if (kahan) s += "    " + A + " comp = (" + A + ")(0);\n";
  s += row_loop_head(plan, L, "    ");
  const auto need = per_element(plan, {red.a});
  s += emit_body(plan, 1, "p", "      ", helpers, &need);
  if (kahan)
    s += "      { const " + A + " y_ = " + v + " - comp; const " + A + " t_ = acc + y_; comp = " +
         kahan_comp("t_", "acc", "y_", A) + "; acc = t_; }\n";
  else
    s += "      acc = " + combine("acc", v) + ";\n";
  s += "    }\n";
  if (kahan) s += "    acc = acc - comp;\n";
  // Tree in local memory; its last barrier makes sh[0] final for everyone.
  s += "    " + sh + "[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "    for (int s_ = " + L + " / 2; s_ > 0; s_ >>= 1) {\n";
  s += "      if (lid < s_) " + sh + "[lid] = " + combine(sh + "[lid]", sh + "[lid + s_]") + ";\n";
  s += "      barrier(CLK_LOCAL_MEM_FENCE);\n    }\n  }\n";
  std::string value = sh + "[0]";
  if (info.finish == Finish::Mean) value = "(" + value + ") / s" + std::to_string(red.slot);
  if (red.b == 1) value = "sqrt(" + value + ")";
  return s + "  const " + A + " v" + std::to_string(k) + " = " + value + ";\n";
}

}  // namespace

std::string render_row(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const std::string L = std::to_string(plan.reduce.local_size);
  std::string sig;
  const auto ps = params(plan);
  for (std::size_t i = 0; i < ps.size(); ++i) sig += (i ? ",\n    " : "") + param_declaration(plan, ps[i]);

  std::string b = "  const int lid = (int)get_local_id(0);\n  const long o = (long)get_group_id(0);\n";
  // OpenCL C 1.2 declares __local variables at the kernel's outermost scope.
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (is_row_reduction(plan.instrs[k]))
      b += "  __local " + cl_type(plan.instrs[k].dtype) + " sh" + std::to_string(k) + "[" + L + "];\n";
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (is_row_reduction(plan.instrs[k])) b += reduction_phase(plan, k, helpers);

  b += row_loop_head(plan, L, "  ");
  const auto need = per_element(plan, plan.outputs);
  b += emit_body(plan, 1, "p", "    ", helpers, &need);
  std::string at = "p";
  if (plan.out_strided) {
    at = "outoff";
    for (int d = 0; d < plan.ndim; ++d) at += " + c" + std::to_string(d) + " * ost" + std::to_string(d);
  }
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    b += "    out" + std::to_string(j) + "[" + at + "] = v" + std::to_string(plan.outputs[j]) + ";\n";
  b += "  }\n";
  return program_prelude(plan) + helpers.text() + "\n__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1)))\nvoid " +
         name + "(\n    " + sig + ")\n{\n" + b + "}\n";
}

}  // namespace fusecl::codegen
