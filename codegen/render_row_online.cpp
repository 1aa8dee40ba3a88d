// Softmax's max and its sum in one pass over a row kernel's row
// (ReduceSpec::row_online, which plan_row.cpp's online_pass takes on GPUs;
// online_softmax.hpp gives the pair's arithmetic): which reductions of the
// body form the pair (online_pairs), each work-item's (max, sum) over its
// elements, and the work-items' pairs meeting as one partial (pair_meet).
// The row is then read twice, not three times.
#include "codegen/online_softmax.hpp"
#include "codegen/row_render.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace fusecl::codegen {

namespace row {

std::vector<int> online_pairs(const KernelPlan& plan) {
  std::vector<int> partner(plan.instrs.size(), -1);
  auto at = [&](std::int16_t i) -> const Instr* { return i >= 0 ? &plan.instrs[std::size_t(i)] : nullptr; };
  for (std::size_t k2 = 0; k2 < plan.instrs.size(); ++k2) {
    const Instr& sum = plan.instrs[k2];
    if (!is_row_reduction(sum) || sum.op != Op::Sum || sum.b == 1 || (sum.dtype != DType::Float32 && sum.dtype != DType::Float64))
      continue;
    const Instr* e = at(sum.a);
    const Instr* d = e && e->op == Op::Exp ? at(e->a) : nullptr;
    const Instr* mx = d && d->op == Op::Sub ? at(d->b) : nullptr;
    if (!mx || !is_row_reduction(*mx) || mx->op != Op::Max || mx->a != d->a || mx->a < 0 || mx->b == 1 ||
        partner[std::size_t(d->b)] >= 0 || e->dtype != sum.dtype || d->dtype != sum.dtype || mx->dtype != sum.dtype)
      continue;
    partner[std::size_t(d->b)] = int(k2);
    partner[k2] = d->b;
  }
  return partner;
}

Meet pair_meet(RowRender& rr, std::size_t k1, std::size_t k2, int w) {
  const std::string fn = online_merge(rr.plan.instrs[k2].dtype, w, rr.helpers), m1 = "sh" + std::to_string(k1), m2 = "sh" + std::to_string(k2);
  const std::string TL = cl_type(rr.plan.instrs[k2].dtype, w);
  Meet mt{[=](const std::string& i, const std::string& x) { return m1 + "[" + i + "] = " + x + "m; " + m2 + "[" + i + "] = " + x + "s;"; },
          [=](const std::string& x, const std::string& i) { return x + "m = " + m1 + "[" + i + "]; " + x + "s = " + m2 + "[" + i + "];"; },
          [=](const std::string& x, const std::string& i) {
            return fn + "(&" + x + "m, &" + x + "s, " + m1 + "[" + i + "], " + m2 + "[" + i + "]);";
          },
          [=](const std::string& x) { return TL + " " + x + "m, " + x + "s;"; },
          {},
          {}};
  if (w == 1) mt.parts = {{"m", rr.plan.instrs[k2].dtype}, {"s", rr.plan.instrs[k2].dtype}};
  mt.combine = [=](const std::string& x, const std::string& y) { return fn + "(&" + x + "m, &" + x + "s, " + y + "m, " + y + "s);"; };
  return mt;
}

// Softmax's max k1 and its sum k2 in one pass over the row (ReduceSpec::
// row_online; online_softmax.hpp says how): each work-item's state, scaled
// to its own max, then the work-items' (m, s) pairs merged.
std::string online_phase(RowRender& rr, std::size_t k1, std::size_t k2) {
  const KernelPlan& plan = rr.plan;
  const DType t = plan.instrs[k2].dtype;
  const std::string g = "v" + std::to_string(plan.instrs[k1].a), s1 = std::to_string(k1), s2 = std::to_string(k2);
  const int W = rr.width();
  auto step = [&](const std::string& x, int w, const std::string& ind) { return online_step(t, g, x, w, ind); };
  const auto need = per_element(plan, {plan.instrs[k1].a});
  const int wl = rr.columns() ? W : 1;  // the width of the partials
  const std::string TL = cl_type(t, wl);
  std::string s = "  " + TL + " acc" + s1 + ", acc" + s2 + ";\n  {\n";
  if (rr.columns()) {
    s += online_declare(t, "p", W, "    ") + rr.head("    ", W) + rr.body(need, "      ", W) + step("p", W, "      ") + "    }\n";
  } else {
    s += online_declare(t, "p", 1, "    ");
    if (W > 1) {
      // Whole vectors first, each lane on its own, then the lanes into p.
      s += "    {\n" + online_declare(t, "q", W, "      ") + rr.head("      ", W) + rr.body(need, "        ", W) + step("q", W, "        ") +
           "      }\n" + online_finish(t, "q", W, "      ");
      for (int j = 0; j < W; ++j) s += "      " + online_merge(t, 1, rr.helpers) + "(&pm, &ps, qm" + lane(j) + ", qs" + lane(j) + ");\n";
      s += online_rebase(t, "p", "      ") + "    }\n";
    }
    s += rr.head("    ", 1) + rr.body(need, "      ", 1) + step("p", 1, "      ") + "    }\n";
  }
  s += online_finish(t, "p", wl, "    ");
  s += meet_partials(rr, pair_meet(rr, k1, k2, wl), "p");
  s += "    acc" + s1 + " = pm;\n    acc" + s2 + " = ps;\n  }\n";
  s += "  const " + TL + " r" + s1 + " = acc" + s1 + ";\n";
  return s + "  const " + TL + " r" + s2 + " = " + online_sum(t, "acc" + s1, "acc" + s2, wl) + ";\n";
}

}  // namespace row

bool online_softmax(const KernelPlan& plan) {
  const auto partner = row::online_pairs(plan);
  return std::any_of(partner.begin(), partner.end(), [](int p) { return p >= 0; });
}

}  // namespace fusecl::codegen
