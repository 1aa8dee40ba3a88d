// Row kernels (KernelKind::Row): reduce-then-use in one kernel. Work-items
// own rows of the index space [kept dims..., row dims...] (flat position
// p = o * m + r: o the row, r the position in it), T work-items per row and
// rows_per_group rows per group, and run in phases: each reduction of the
// body, in instruction order (a reduction's input may read earlier ones), is
// computed over the row by its work-items (a tree over their segment of
// local memory) and held in a private variable v<k> of each; then the
// outputs are computed and stored at every element of the row. Work-items
// step through the row T apart, so a row's loads are coalesced. With
// row_chunks each work-item keeps the loads later phases need in registers
// (the row is read from memory once), and the transcendental results
// (kept() below); otherwise each phase re-reads the row,
// from cache (the scheduler only picks a row kernel when a row's inputs fit
// in the device's local memory, a proxy for its cache). The grid form
// (ReduceSpec::combine) has one row, the whole array, over every group: its
// one reduction's partial results come from an earlier kernel, and each
// group combines them before its share of the row.
//
// Where every load is contiguous or uniform (rows along the last axes), the
// loop form steps through the row in vectors of `width` (vloadN: a row
// starts anywhere), then the tail element by element.
//
// The column form (ReduceSpec::row_columns) is the loop form for rows along
// leading axes, of an index space [outer, row, inner] in C order: a "row" of
// the group is a vector of `width` neighbouring columns, lane j its own row,
// whose elements lie rs (the inner extent) apart; the group's work-items take
// rows_per_group such vectors side by side and T of them step down each, so
// that each step reads neighbouring columns together. Their partials meet in
// local memory, each work-item combining its vector's T in the same order
// (in two levels where T > 2 row_fanin). With row_chunks (a GPU's columns of
// up to 512 rows) each work-item loads its row_chunks vectors first and keeps
// them in registers, as the register form does.
//
// On CPUs (FCL_CPU, launch.cpp's build options) the loop form computes a
// transcendental value that a reduction and the outputs both read once: the
// last reduction phase that computes it stores it where an output of its
// dtype goes, and the output phase loads it back from there instead of
// computing it again. Each work-item reads only what it wrote, and the row is
// in its core's cache. Softmax over rows of 1024 at 2^22 on the 2-core PoCL
// machine: exp once, not twice. GPUs compute it again: their loop form is
// bound by memory, not by exp.
//
// Accuracy is that of the reduction kernels (render_reduce.cpp): float sums
// accumulate per work-item with Kahan compensation, then combine in a tree
// (but where a work-item's lanes add at most 4 terms: render_row_loops.cpp).
#include "codegen/reciprocal.hpp"
#include "codegen/row_render.hpp"
#include "fusecl/result_type.hpp"

#include <algorithm>
#include <functional>

namespace fusecl::codegen {

namespace row {

// Which instructions computing `targets` are evaluated at each element: their
// operands, transitively, stopping at reductions (held per row already, and
// marked 2) and at `held` (a value at hand: what only it reads is not
// needed). Operands come before their instructions: one backward sweep.
std::vector<char> per_element(const KernelPlan& plan, const std::vector<std::int16_t>& targets, int held) {
  std::vector<char> need(plan.instrs.size(), 0);
  for (const auto t : targets)
    if (t >= 0) need[std::size_t(t)] = 1;  // -1: a grid form's reduction, which has no input here
  for (std::size_t k = plan.instrs.size(); k-- > 0;) {
    if (!need[k]) continue;
    const Instr& in = plan.instrs[k];
    if (is_row_reduction(in)) {
      need[k] = 2;
      continue;
    }
    if (int(k) == held) continue;
    for (const std::int16_t o : {in.a, in.b, in.c})
      if (o >= 0) need[std::size_t(o)] = 1;
  }
  return need;
}

// The stashed value at p (w elements) into its output, or from it as v<k>.
std::string stash_store(const RowRender& rr, int w, const std::string& ind) {
  const std::string v = "v" + std::to_string(rr.stash), out = "out" + std::to_string(rr.stash_out);
  if (rr.lanes()) return "#ifdef FCL_CPU\n" + emit_lane_store(v, out, "p", w, ind) + "#endif\n";
  return "#ifdef FCL_CPU\n" + ind + (w > 1 ? "vstore" + std::to_string(w) + "(" + v + ", 0, " + out + " + p);\n" : out + "[p] = " + v + ";\n") +
         "#endif\n";
}
std::string stash_load(const RowRender& rr, int w, const std::string& ind) {
  const std::string out = "out" + std::to_string(rr.stash_out), T = cl_type(rr.plan.instrs[std::size_t(rr.stash)].dtype, w);
  // A lane past the last row loads the last row's (ls_<j> says so), which that row's lane stored.
  const std::string e = rr.lanes() ? emit_lane_load(T, out, "p", w) : w > 1 ? "vload" + std::to_string(w) + "(0, " + out + " + p)" : out + "[p]";
  return ind + "const " + T + " v" + std::to_string(rr.stash) + " = " + e + ";\n";
}

// The output phase's body at p: on CPUs with a stash, the stashed value
// loaded and only what is left computed from it.
std::string output_body(RowRender& rr, const std::vector<char>& need, int w, const std::string& ind) {
  if (rr.stash < 0) return rr.body(need, ind, w);
  std::vector<char> rest = per_element(rr.plan, rr.plan.outputs, rr.stash);
  rest[std::size_t(rr.stash)] = 0;
  // A CPU divides as IEEE does (its stash could not be read again for the
  // reciprocal's second pass, which its outputs overwrite).
  const Reciprocals* reciprocals = rr.reciprocals;
  rr.reciprocals = nullptr;
  std::string cpu = rr.body(rest, ind, w);
  rr.reciprocals = reciprocals;
  return "#ifdef FCL_CPU\n" + stash_load(rr, w, ind) + cpu + "#else\n" + rr.body(need, ind, w) + "#endif\n";
}

// Reduction k's partials, one value each in sh<k>, at width w.
Meet plain_meet(RowRender& rr, std::size_t k, int w) {
  const Instr& red = rr.plan.instrs[k];
  const std::string sh = "sh" + std::to_string(k), T_ = cl_type(red.dtype, w);
  const Op op = reduce_info(red.op).combine;
  HelperSet* helpers = &rr.helpers;
  const DType t = red.dtype;
  auto combine = [=](const std::string& x, const std::string& y) { return x + " = " + spell(op, t, t, x, y, "", w, *helpers) + ";"; };
  return {[sh](const std::string& i, const std::string& x) { return sh + "[" + i + "] = " + x + ";"; },
          [sh](const std::string& x, const std::string& i) { return x + " = " + sh + "[" + i + "];"; },
          [=](const std::string& x, const std::string& i) { return combine(x, sh + "[" + i + "]"); },
          [T_](const std::string& x) { return T_ + " " + x + ";"; },
          w == 1 ? std::vector<std::pair<std::string, DType>>{{"", t}} : std::vector<std::pair<std::string, DType>>{},
          combine};
}

// Combines the work-items' partials (this one's named x) so that every
// work-item of a row (a vector of columns) ends with the row's in x, each in
// the same order: in the column form each work-item merges its vector's T
// partials (in two levels where T > 2F: the first F work-items of each
// vector merge every F-th into their own slots, which no other work-item of
// that level reads; softmax over axis 0 of 4096 x 1024 on an H200, 128
// work-items down each vector: 52 us against 62 merging all 128); otherwise
// two levels (row_fanin F: fewer barriers than a tree, each level a short
// run of reads from local memory, the second level's the same addresses for
// every work-item of the row: broadcasts), or a binary tree (F = 0), whose
// last barrier makes the segment's first value final.
std::string meet_partials(const RowRender& rr, const Meet& mt, const std::string& x) {
  const int T = std::stoi(rr.T), F = rr.plan.reduce.row_fanin;
  if (T == 1) return "";  // a work-item per row: nothing to combine
  if (rr.plan.reduce.row_warp && !rr.columns())
    if (std::string s = warp_meet(rr, mt, x); !s.empty()) return s;
  const std::string bar = "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  std::string s = "    " + mt.put("lid", x) + "\n" + bar;
  if (F == 0 && !rr.columns()) {
    s += "    for (int s_ = " + rr.T + " / 2; s_ > 0; s_ >>= 1) {\n";
    s += "      if (sl < s_) { " + mt.declare("t_") + " " + mt.get("t_", "lid") + " " + mt.merge("t_", "lid + s_") + " " +
         mt.put("lid", "t_") + " }\n" + "  " + bar + "    }\n";
    return s + "    " + mt.get(x, "lid - sl") + "\n";
  }
  // Slot of partial j of this work-item's row: j apart along a row, C (the
  // vectors of the group) apart down a vector of columns.
  const std::string stride = rr.columns() ? " * " + std::to_string(rr.plan.reduce.rows_per_group) : "";
  const std::string first = rr.columns() ? "c_" : "lid - sl";
  int count = T;
  if (F > 0 && T > 2 * F) {
    const std::string Fs = std::to_string(F);
    s += "    if (sl < " + Fs + ") {\n      " + mt.declare("a_") + " " + mt.get("a_", "lid") + "\n";
    s += "      for (int j = 1; j < " + std::to_string(T / F) + "; ++j) " + mt.merge("a_", "lid + j * " + Fs + stride) + "\n";
    s += "      " + mt.put("lid", "a_") + "\n    }\n" + bar;
    count = F;
  }
  s += "    " + mt.get(x, first) + "\n";
  return s + "    for (int j = 1; j < " + std::to_string(count) + "; ++j) " + mt.merge(x, first + " + j" + stride) + "\n";
}

// The compensated chains of a row loop (ReduceSpec::chains) rotated: the one
// just added to (chain 0) moves to the back, the others forward, so that each
// chain's next addition waits C steps. name("acc"/"comp", c) names chain c's
// accumulator and compensation.
template <class Name>
static std::string rotate_chains(const std::string& type, int C, Name name, const std::string& ind) {
  std::string s = ind + "{ const " + type + " a_ = " + name("acc", 0) + ", c_ = " + name("comp", 0) + ";";
  for (int c = 1; c < C; ++c)
    s += " " + name("acc", c - 1) + " = " + name("acc", c) + "; " + name("comp", c - 1) + " = " + name("comp", c) + ";";
  return s + " " + name("acc", C - 1) + " = a_; " + name("comp", C - 1) + " = c_; }\n";
}

// Phase for reduction instruction k: the value of it over its row, left in
// r<k> for every work-item of the row.
std::string reduction_phase(RowRender& rr, std::size_t k) {
  const KernelPlan& plan = rr.plan;
  const Instr& red = plan.instrs[k];
  const ReduceInfo& info = reduce_info(red.op);
  const DType acc_t = red.dtype;  // the accumulator: the input's dtype (the graph casts it)
  const std::string A = cl_type(acc_t), ks = std::to_string(k);
  const std::string sh = "sh" + ks, v = "v" + std::to_string(red.a);
  const std::vector<char> need = red.a >= 0 ? per_element(plan, {red.a}) : std::vector<char>();
  const bool kahan = is_float(acc_t) && info.summation == Summation::Kahan && !plain_sum(rr, need);
  // A float max or min notes NaN apart (body.hpp's nan_note_*): a
  // work-item's partial is NaN where it met one; the partials then merge
  // through the NaN-propagating helper.
  const bool nan_apart = nan_noted(info.combine, acc_t);
  auto combine = [&](const std::string& a, const std::string& b, int w) {
    return spell(info.combine, acc_t, acc_t, a, b, "", w, rr.helpers);
  };
  // Accumulates x (v, or in the skewed form a masked copy) into acc.
  auto accumulate = [&](const std::string& acc, const std::string& comp, const std::string& type, int w, const std::string& ind,
                        const std::string& x) {
    if (kahan)
      return ind + kahan_step(acc, comp, x, type) + "\n";
    if (nan_apart) return ind + nan_note_step(info.combine, acc, acc + "_nan", x) + "\n";
    return ind + acc + " = " + combine(acc, x, w) + ";\n";
  };
  auto nan_declare = [&](const std::string& acc, int w, const std::string& ind) {
    return nan_apart ? nan_note_declare(acc_t, acc + "_nan", acc, w, ind) : std::string();
  };
  auto nan_apply = [&](const std::string& acc, int w, const std::string& ind) {
    return nan_apart ? nan_note_apply(acc_t, acc, acc + "_nan", w, ind) : std::string();
  };

  std::string value = "acc" + ks;
  // A segment's partials kernel (row_split 1) stores acc; a mean over the
  // segment is what a variance's deviations there are taken from
  // (render_row_split.cpp).
  if (info.finish == Finish::Mean) value = "(" + value + ") / " + (rr.split() ? "(" + cl_type(acc_t, 1) + ")(mo - sg0_)" : "s" + std::to_string(red.slot));
  if (red.b == 1 && !rr.split()) value = "sqrt(" + value + ")";

  if (rr.columns()) {
    // Column form: every lane its own column. The work-item's partial (a
    // vector), then the T partials of its columns, each work-item combining
    // all of them from local memory in the same order.
    const int W = rr.width();
    const std::string AW = cl_type(acc_t, W), C = std::to_string(plan.reduce.rows_per_group);
    std::string s = "  " + AW + " acc" + ks + ";\n  {\n    " + AW + " acc = (" + AW + ")(" +
                    reduce_identity(info.identity, acc_t) + ");\n";
    if (kahan) s += "    " + AW + " comp = (" + AW + ")(0);\n";
    s += nan_declare("acc", W, "    ");
    // A CPU's columns (ReduceSpec::chains): C compensated chains down the
    // rows, rotated after each row step as the general form's loop does.
    const int chains = kahan ? sum_chains(rr, need) : 1;
    auto chain = [](const std::string& base, int c) { return c == 0 ? base : base + "_c" + std::to_string(c); };
    for (int c = 1; c < chains; ++c)
      s += "    " + AW + " " + chain("acc", c) + " = (" + AW + ")(0), " + chain("comp", c) + " = (" + AW + ")(0);\n";
    s += rr.head("    ", W) + rr.body(need, "      ", W) + accumulate("acc", "comp", AW, W, "      ", v);
    if (chains > 1) s += rotate_chains(AW, chains, chain, "      ");
    if (rr.stash_phase == int(k)) s += stash_store(rr, W, "      ");
    s += "    }\n" + nan_apply("acc", W, "    ");
    if (kahan) {
      s += "    acc = acc - comp";
      for (int c = 1; c < chains; ++c) s += " + (" + chain("acc", c) + " - " + chain("comp", c) + ")";
      s += ";\n";
    }
    s += meet_partials(rr, plain_meet(rr, k, W), "acc");
    return s + "    acc" + ks + " = acc;\n  }\n  const " + AW + " r" + ks + " = " + value + ";\n";
  }

  std::string s = "  " + A + " acc" + ks + ";\n  {\n    " + A + " acc = " + reduce_identity(info.identity, acc_t) + ";\n";
  if (red.a < 0) {
    // Grid form: the partial results of an earlier kernel (buffer slot c), combined plainly as the trees do.
    s += "    for (long k = lid; k < groups; k += " + rr.T + ") acc = " + combine("acc", "in" + std::to_string(red.c) + "[k]", 1) + ";\n";
  } else {
    if (kahan) s += "    " + A + " comp = (" + A + ")(0);\n";
    const int W = rr.width();
    if (W > 1) {
      // Whole vectors first, each lane accumulating on its own, then the lanes into acc.
      const std::string AW = cl_type(acc_t, W);
      s += "    {\n      " + AW + " accv = (" + AW + ")(" + reduce_identity(info.identity, acc_t) + ");\n";
      if (kahan) s += "      " + AW + " compv = (" + AW + ")(0);\n";
      s += nan_declare("accv", W, "      ");
      const bool mask = masked_phase(rr, k, need);
      // A CPU's loop (ReduceSpec::chains): C compensated chains, the one
      // just added to rotated to the back after each vector, so that each
      // chain's next addition waits C vectors, not one (no unrolling: the
      // rotation's moves are renames).
      const int C = kahan && !mask && !rr.skew() && !rr.registers() ? sum_chains(rr, need) : 1;
      for (int c = 1; c < C; ++c)
        s += "      " + AW + " accv" + std::to_string(c) + " = (" + AW + ")(0), compv" + std::to_string(c) + " = (" + AW + ")(0);\n";
      const std::vector<char> before = rr.held;
      rr.masked = mask;
      s += rr.head("      ", W) + rr.body(need, "        ", W);
      rr.masked = false;
      if (rr.skew())  // lanes outside the row (other rows' elements) add the identity
        s += "        const " + AW + " vm_ = lo_ == 0 && hi_ == " + std::to_string(W) + " ? " + v + " : select((" + AW + ")(" +
             reduce_identity(info.identity, acc_t) + "), " + v + ", " + skew_mask(acc_t, W) + ");\n";
      if (mask) {
        s += "        if (in_) {\n" + accumulate("accv", "compv", AW, W, "          ", v) + "        }\n";
        for (std::size_t j = 0; j < before.size(); ++j)
          if (rr.held[j] && !before[j]) rr.whole[j] = 1;  // kept here, for every chunk
      } else {
        s += accumulate("accv", "compv", AW, W, "        ", rr.skew() ? "vm_" : v);
      }
      if (C > 1)
        s += rotate_chains(AW, C, [](const std::string& base, int c) { return c == 0 ? base + "v" : base + "v" + std::to_string(c); },
                           "        ");
      if (rr.stash_phase == int(k)) s += stash_store(rr, W, "        ");
      s += "      }\n" + nan_apply("accv", W, "      ");
      if (C > 1) {  // the chains into chain 0, in vectors, then its lanes as one chain's
        s += "      accv = accv - compv";
        for (int c = 1; c < C; ++c) s += " + (accv" + std::to_string(c) + " - compv" + std::to_string(c) + ")";
        s += ";\n      compv = (" + AW + ")(0);\n";
      }
      for (int j = 0; j < W; ++j)
        s += kahan ? "      acc += accv" + lane(j) + " - compv" + lane(j) + ";\n" : "      acc = " + combine("acc", "accv" + lane(j), 1) + ";\n";
      s += "    }\n";
    }
    if (!(rr.registers() && W > 1))  // the tail after the whole vectors
      s += nan_declare("acc", 1, "    ") + rr.head("    ", 1) + rr.body(need, "      ", 1) + accumulate("acc", "comp", A, 1, "      ", v) +
           (rr.stash_phase == int(k) ? stash_store(rr, 1, "      ") : std::string()) + "    }\n" + nan_apply("acc", 1, "    ");
    if (kahan) s += "    acc = acc - comp;\n";
  }
  s += meet_partials(rr, plain_meet(rr, k, 1), "acc");
  return s + "    acc" + ks + " = acc;\n  }\n  const " + A + " r" + ks + " = " + value + ";\n";
}

// What each phase computes at every element: each reduction's, in
// instruction order, then the outputs'.
std::vector<std::vector<char>> phase_needs(const KernelPlan& plan) {
  std::vector<std::vector<char>> needs;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (is_row_reduction(plan.instrs[k])) needs.push_back(per_element(plan, {plan.instrs[k].a}));
  needs.push_back(per_element(plan, plan.outputs));
  return needs;
}

// By instruction: how many of the phases compute it.
std::vector<int> phases_of(const KernelPlan& plan, const std::vector<std::vector<char>>& needs) {
  std::vector<int> count(plan.instrs.size(), 0);
  for (const auto& need : needs)
    for (std::size_t k = 0; k < need.size(); ++k) count[k] += need[k] == 1;
  return count;
}

// Whether the register form loads instruction k first and holds it: a
// load that varies along the row, which some phase reads.
bool held_load(const KernelPlan& plan, const std::vector<int>& phases, std::size_t k) {
  return phases[k] > 0 && plan.instrs[k].op == Op::Buffer && plan.instrs[k].access != Access::Uniform;
}

bool online(const RowRender& rr) { return rr.plan.reduce.row_online && !rr.registers() && !rr.grid() && rr.split() != 2; }

std::string kernel_head(const std::string& name, const std::string& L, const std::string& sig) {
  return "\n__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1)))\nvoid " + name + "(\n    " + sig + ")\n{\n";
}

}  // namespace row

using namespace row;

std::size_t row_local_bytes(const KernelPlan& plan) {
  const int local = plan.reduce.local_size, per_row = local / std::max<int>(1, plan.reduce.rows_per_group);
  std::size_t bytes = 0;
  if (plan.reduce.row_staged > 0) {
    const std::vector<int> phases = phases_of(plan, phase_needs(plan));
    std::vector<char> first(plan.instrs.size(), 0);
    for (std::size_t k = 0; k < plan.instrs.size(); ++k) first[k] = held_load(plan, phases, k);
    bytes += stage_local_bytes(plan, first);
  }
  if (per_row <= 1) return bytes;
  for (const auto& in : plan.instrs)
    if (is_row_reduction(in)) bytes += std::size_t(local) * std::size_t(size_of(in.dtype) * (plan.reduce.row_columns ? plan.width : 1));
  return bytes;
}

std::size_t row_held_load_bytes(const KernelPlan& plan) {
  const std::vector<int> phases = phases_of(plan, phase_needs(plan));
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (held_load(plan, phases, k)) bytes += std::size_t(size_of(plan.instrs[k].dtype));
  return bytes;
}

std::size_t row_kept_bytes(const KernelPlan& plan) {
  const std::vector<int> phases = phases_of(plan, phase_needs(plan));
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (plan.instrs[k].op != Op::Buffer && kept(plan.instrs[k], plan) && phases[k] > 1) bytes += std::size_t(size_of(plan.instrs[k].dtype));
  return bytes;
}

namespace row {

// The kernel's first lines: which work-item takes which row (or vector of
// rows or columns), from the plan's layout.
std::string row_prologue(const RowRender& rr) {
  const KernelPlan& plan = rr.plan;
  // Work-item lid computes elements sl, sl + T, ... of row o; rows past the
  // last (in the last group) compute nothing but take part in its barriers.
  std::string b = "  const int lid = (int)get_local_id(0);\n";
  if (rr.grid()) {
    b += "  const int sl = lid;\n";  // one row, over every group
  } else if (rr.split()) {
    b += split_prologue(rr);
  } else if (rr.lanes()) {
    // Work-item lid takes vector c_ of the group's: rows o * W to o * W + W -
    // 1 (W lanes), the last vector's lanes from nv_ on repeating the last row
    // (they load it, so every load exists, and store nothing); ls_<j> (below,
    // in render_row) is lane j's offset from the vector's first row. rs is the
    // number of rows. Work-items past the last vector (mo 0) take its place
    // and compute nothing.
    const std::string C = std::to_string(plan.reduce.rows_per_group), W = std::to_string(plan.width);
    b += "  const int c_ = lid % " + C + ", sl = lid / " + C + ";\n";
    b += "  const long o = (long)get_group_id(0) * " + C + " + c_;\n";
    b += "  const long oc_ = o < n ? o : n - 1, base = oc_ * " + W + " * m, nv_ = rs - oc_ * " + W + ";\n";
  } else if (rr.columns()) {
    // Work-item lid takes the vector of columns c_ of the group's, rows sl,
    // sl + T, ...: neighbouring work-items read neighbouring columns. Vector
    // o starts at column o * W of the C-order [outer, row, inner] space.
    const std::string C = std::to_string(plan.reduce.rows_per_group), W = std::to_string(plan.width);
    b += "  const int c_ = lid % " + C + ", sl = lid / " + C + ";\n";
    b += "  const long o = (long)get_group_id(0) * " + C + " + c_;\n";
    b += "  const long mo = o < n ? m : 0;\n";
    b += "  const long base = o / (rs / " + W + ") * m * rs + o % (rs / " + W + ") * " + W + ";\n";
  } else {
    b += "  const int sl = lid % " + rr.T + ";\n";
    b += "  const long o = (long)get_group_id(0) * " + std::to_string(plan.reduce.rows_per_group) + " + lid / " + rr.T + ";\n";
    b += "  const long mo = o < n ? m : 0;\n";
    if (rr.skew()) b += skew_prologue(rr);
  }
  return b;
}

// Everything after the prologue: each reduction's phase, then the outputs.
std::string row_rest(RowRender& rr) {
  const KernelPlan& plan = rr.plan;
  HelperSet& helpers = rr.helpers;
  const int per_row = plan.reduce.local_size / plan.reduce.rows_per_group;
  const std::string L = std::to_string(plan.reduce.local_size);
  const std::vector<std::vector<char>> needs = phase_needs(plan);
  rr.held.assign(plan.instrs.size(), 0);
  rr.whole.assign(plan.instrs.size(), 0);
  rr.phases_of = phases_of(plan, needs);
  if (!rr.registers() && !rr.grid() && !plan.out_strided && !online(rr) && !rr.split()) {
    // The loop form's stash (CPUs): the first transcendental value that a
    // reduction and the outputs both compute, and an output of its dtype to hold it.
    for (std::size_t k = 0; k < plan.instrs.size() && rr.stash < 0; ++k) {
      if (!is_transcendental(plan.instrs[k].op) || needs.back()[k] != 1 || rr.phases_of[k] < 2) continue;
      for (std::size_t j = 0; j < plan.outputs.size() && rr.stash < 0; ++j)
        if (plan.instrs[std::size_t(plan.outputs[j])].dtype == plan.instrs[k].dtype) rr.stash = int(k), rr.stash_out = int(j);
    }
    if (rr.stash >= 0)  // the last reduction phase that computes it stores it
      for (std::size_t k = 0, phase = 0; k < plan.instrs.size(); ++k)
        if (is_row_reduction(plan.instrs[k]) && needs[phase++][std::size_t(rr.stash)] == 1) rr.stash_phase = int(k);
  }
  // The register form loads its elements of the row first, all of them, so
  // that a work-item's loads are in flight together (a load in a phase waits
  // for the loop's bound test, and each phase's first use of it for the load:
  // softmax over rows of 1024 on an H200 took 232 us so, 176 with the loads
  // first). Uniform loads (one value for the kernel) stay where they are used.
  std::vector<char> first(plan.instrs.size(), 0);
  if (rr.registers())
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (held_load(plan, rr.phases_of, k)) first[k] = rr.held[k] = 1;

  std::string b;
  // OpenCL C 1.2 declares __local variables at the kernel's outermost scope.
  if (per_row > 1)  // row_local_bytes counts them
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (is_row_reduction(plan.instrs[k]))
        b += "  __local " + cl_type(plan.instrs[k].dtype, rr.columns() ? plan.width : 1) + " sh" + std::to_string(k) + "[" + L + "];\n";
  const int W = plan.width;
  if (rr.registers())
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (first[k] || (kept(plan.instrs[k], plan) && rr.phases_of[k] > 1))
        b += "  " + cl_type(plan.instrs[k].dtype, W) + " rc" + std::to_string(k) + "[" + rr.K + "];\n";
  if (rr.staged()) b += stage_loads(rr, first);  // the span's loads and the outputs' staging arrays
  if (rr.lanes() && rr.registers()) {
    b += lanes_loads(rr, first);
  } else if (std::find(first.begin(), first.end(), 1) == first.end()) {
    // nothing varies along the row (generators only): no loads first
  } else if (rr.skew()) {
    b += skew_loads(rr, first);
  } else {
    // Every position loaded exists: rows past the last (the last group's)
    // read the last row, and positions past a row's end its last element (or
    // vector); the phases skip them.
    const std::string Ws = std::to_string(W);
    // A split row's last is its segment's (sg1_ > 0: m > 0 where anything runs).
    const std::string end = rr.split() ? "sg1_" : "m";
    const std::string last = W > 1 && !rr.columns() ? end + " / " + Ws + " - 1" : end + " - 1";
    // The rotation's parity: rows past the last load the last row's vectors rotated by their own (never stored).
    if (rr.rotates()) b += "  const int rot_ = (int)(o & 1) & (int)((m / " + Ws + ") & 1);\n";
    b += "  {\n    const long oc = o < n ? o : n - 1;\n";
    if (rr.columns())  // the start of the last vector's column, for the last group's past-the-end vectors
      b += "    const long bc = oc / (rs / " + Ws + ") * m * rs + oc % (rs / " + Ws + ") * " + Ws + ";\n";
    b += "    for (int k = 0; k < " + rr.K + "; ++k) {\n";
    // (Chunks before full_chunks() are the row's: no clamp.)
    const long long full = rr.full_chunks();
    b += "      const long rk_ = " + rr.start(W > 1 && !rr.columns()) + " + (long)k * " + rr.T + ", r = " +
         (full > 0 ? "k < " + std::to_string(full) + " || " : std::string()) + "rk_ < " + last + " ? rk_ : " + last + ";\n";  // not min(): see render_tiled.cpp
    if (rr.columns())
      b += "      const long p = bc + r * rs;\n";
    else
      b += "      const long p = " + (W > 1 ? rr.vector_at("oc", "r") : "oc * m + r") + ";\n";
    if (W == 1) b += emit_coordinates(plan, "p", "      ");
    // Staged loads from their staging arrays (render_row_stage.cpp), the rest from memory.
    std::vector<char> direct = first;
    for (std::size_t k = 0; k < first.size(); ++k)
      if (first[k] && rr.staged() && staged_load(plan, k)) {
        direct[k] = 0;
        b += "      " + stage_read(plan, k);
      }
    b += emit_body(plan, W, "p", "      ", helpers, &direct);
    for (std::size_t k = 0; k < first.size(); ++k)
      if (first[k]) b += "      rc" + std::to_string(k) + "[k] = v" + std::to_string(k) + ";\n";
    b += "    }\n  }\n";
  }
  const std::vector<int> partner = online(rr) ? online_pairs(plan) : std::vector<int>(plan.instrs.size(), -1);
  for (std::size_t k = 0; k < plan.instrs.size() && rr.split() != 2; ++k) {
    if (!is_row_reduction(plan.instrs[k])) continue;
    if (partner[k] < 0) b += reduction_phase(rr, k);
    else if (partner[k] > int(k)) b += online_phase(rr, k, std::size_t(partner[k]));  // the pair's sum: computed with its max
  }
  if (rr.split() == 2) b += split_phases(rr);  // the row's reductions from its segments' partials
  // A segment's partials kernel stores them and computes nothing else.
  if (rr.split() == 1) {
    b += split_stores(rr);
    return b;
  }

  auto outputs = [&](const std::string& ind) {
    if (rr.lanes() && rr.registers()) return lanes_outputs(rr, needs.back(), ind);
    std::string s;
    if (W > 1) {
      s += rr.head(ind, W) + output_body(rr, needs.back(), W, ind + "  ");
      const std::string si = ind + (rr.masks() ? "    " : "  ");
      const std::string stores = rr.lanes()  ? emit_lane_stores(plan, W, "p", si)
                                 : rr.skew() ? skew_stores(plan, W, si)
                                             : emit_vector_stores(plan, W, "p", plan.aligned, si);  // p is a multiple of W
      s += rr.masks() ? ind + "  if (in_) {\n" + stores + ind + "  }\n" : stores;
      s += ind + "}\n";
    }
    // The elements after the whole vectors; the column form has none (its
    // width divides the inner extent).
    if (W == 1 || !(rr.registers() || rr.columns())) {
      s += rr.head(ind, 1) + output_body(rr, needs.back(), 1, ind + "  ");
      s += rr.staged() ? stage_stores(plan, ind + "  ") : emit_stores(plan, "p", ind + "  ");
      s += ind + "}\n";
    }
    return s;
  };
  // Whole vectors in registers: the output loop computes the chunk past the
  // row's end too (its load the row's last vector again) and stores under a
  // predicate, where it reads nothing but loads and values kept in masked
  // loops (a value an unmasked phase kept exists only for the chunks that
  // phase visited). An H200, 2^26 floats, layer norm: rows of 52 140 -> 134
  // us, 900 143 -> 141, 20 143 -> 141, the rest from 44 to 16384 and
  // softmax's recomputing rows within 1.3 (bench/RESULTS.md, forty-sixth
  // session); rows of 1100, whose 4th chunk is past every row (maskable()),
  // 1.3 more so, 1.4 less since they keep the break (forty-seventh).
  rr.masked = rr.maskable();
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (rr.held[k] && !first[k] && !rr.whole[k]) rr.masked = false;
  const std::vector<char> marked = plan.reduce.row_reciprocal ? reciprocal_divisions(plan) : std::vector<char>();
  const bool guard = rr.full_chunks() >= 0;  // rows past the last store nothing
  if (guard) b += "  if (o < n) {\n";
  if (std::find(marked.begin(), marked.end(), 1) == marked.end()) {
    b += outputs("  ");
  } else {
    // Divisions through the divisor's reciprocal, then, where a quotient fell
    // outside their range, the outputs again with IEEE division over them
    // (reciprocal.hpp).
    // The skewed form's lanes outside the row are other rows': their quotients do not count.
    const Reciprocals rec{&marked, "rq_", rr.skew() ? skew_mask(DType::Float32, W) : std::string()};
    const std::vector<char> held = rr.held;
    b += "  uint rq_ = 0;\n";
    rr.reciprocals = &rec;
    b += outputs("  ");
    rr.reciprocals = nullptr;
    rr.held = held;
    // The second pass computes from the row (a CPU's stash, which the first
    // pass's outputs overwrote, is not used: CPUs take no second pass).
    const int stash = rr.stash;
    rr.stash = -1;
    const std::string again = "  if (" + reciprocal_redo("rq_") + ") {\n" + outputs("    ") + "  }\n";
    rr.stash = stash;
    b += stash >= 0 ? "#ifndef FCL_CPU\n" + again + "#endif\n" : again;
  }
  if (guard) b += "  }\n";
  rr.masked = false;
  if (rr.staged()) b += stage_flush(plan);
  return b;
}

}  // namespace row

std::string render_row(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const int local = plan.reduce.local_size, per_row = local / plan.reduce.rows_per_group;
  RowRender rr{plan, helpers, std::to_string(per_row), std::to_string(plan.reduce.row_chunks), {}, {}};
  const std::string L = std::to_string(local);
  const std::string sig = param_list(plan);

  // The row length, where it is a constant of the source (ReduceSpec::row_length).
  std::string b = plan.reduce.row_length > 0 ? "  const long m = " + std::to_string(plan.reduce.row_length) + "L;\n" : "";
  b += row_prologue(rr);
  if (!rr.lanes()) {
    b += row_rest(rr);
  } else {
    // A whole vector (every lane a row) takes the row's length as the
    // constant it is: its rows are W * M neighbouring elements, loaded in
    // vectors and turned into M vectors of lanes (and the outputs back) in
    // registers, the register form's (render_row_lanes.cpp). The last vector,
    // part full, gathers and scatters its lanes, those past the last row
    // repeating it.
    const int M = plan.reduce.row_lane_length, W = plan.width;
    KernelPlan whole = plan;
    whole.reduce.row_chunks = std::uint8_t(M);
    RowRender rw{whole, helpers, "1", std::to_string(M), {}, {}};
    std::string part = "    const long mo = o < n ? m : 0;\n";
    for (int j = 0; j < W; ++j) {
      const std::string J = std::to_string(j);
      part += "    const long ls_" + J + " = (" + J + " < nv_ ? " + J + " : nv_ - 1) * m;\n";
    }
    b += "  if (o < n && nv_ >= " + std::to_string(W) + ") {\n    const long mo = " + std::to_string(M) + ";\n" + row_rest(rw) +
         "  } else {\n" + part + row_rest(rr) + "  }\n";
  }
  return program_prelude(plan) + helpers.text() + kernel_head(name, L, sig) + b + "}\n";
}

}  // namespace fusecl::codegen
