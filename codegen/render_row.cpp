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
// accumulate per work-item with Kahan compensation, then combine in a tree.
#include "codegen/body.hpp"
#include "fusecl/result_type.hpp"

#include <algorithm>

namespace fusecl::codegen {

namespace {

// Which instructions computing `targets` are evaluated at each element: their
// operands, transitively, stopping at reductions (held per row already, and
// marked 2) and at `held` (a value at hand: what only it reads is not
// needed). Operands come before their instructions: one backward sweep.
std::vector<char> per_element(const KernelPlan& plan, const std::vector<std::int16_t>& targets, int held = -1) {
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

// What the register form keeps between phases, where more than one phase
// computes it: loads (the row is read once), and the results of
// transcendental functions (softmax's exp(x - max), which its sum and its
// output both read, is computed once per element: a GPU's full-precision exp
// is some ten instructions); cheaper values are computed again from kept
// ones.
bool kept(const Instr& in) { return in.op == Op::Buffer || is_transcendental(in.op); }

// How a row kernel's phases are rendered: its group layout and, in the
// register form (row_chunks > 0), which loads are kept between phases.
struct RowRender {
  const KernelPlan& plan;
  HelperSet& helpers;
  std::string T, K;           // work-items per row; elements (vectors of `width`) per work-item ("0": a loop)
  std::vector<char> held;     // register form: values already held in rc<k>[] (loads from the start)
  std::vector<int> phases_of; // by instruction: how many phases compute it (kept if > 1)
  // Loop form on CPUs: the instruction stashed in an output (-1: none), that
  // output's number, and the reduction phase that stores it.
  int stash = -1, stash_out = -1, stash_phase = -1;

  bool registers() const { return plan.reduce.row_chunks > 0; }
  bool grid() const { return plan.reduce.combine; }
  bool columns() const { return plan.reduce.row_columns; }
  int width() const { return plan.width; }

  // The loop over this work-item's elements of its row, at width w (w > 1:
  // whole vectors; then w == 1 is the tail after them); close with "}".
  std::string head(const std::string& ind, int w) const {
    const std::string W = std::to_string(width());
    std::string s;
    // This work-item's vector of columns (whole vectors only), every T-th row
    // from sl; unrolled, so that several rows' loads are in flight at once
    // (softmax over axis 0 of 8192 x 8192 floats on an H200: 663 us against
    // 820; of 4096 x 1024 on PoCL: 4.0-4.5 ms against 5.6).
    if (columns() && registers())  // the register form: this work-item's K vectors, T rows apart
      return ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long r = sl + (long)k * " + T + ";\n" + ind +
             "  if (r >= mo) break;\n" + ind + "  const long p = base + r * rs;\n";
    if (columns())
      return ind + "#pragma unroll 4\n" + ind + "for (long r = sl; r < mo; r += " + T + ") {\n" + ind + "  const long p = base + r * rs;\n";
    if (grid()) {  // the whole array is the row: every group takes every L-th block of L
      const std::string start = "(long)get_group_id(0) * " + T + " + lid", step = "(long)get_num_groups(0) * " + T;
      if (w > 1)
        return ind + "for (long q = " + start + "; q < m / " + W + "; q += " + step + ") {\n" + ind + "  const long p = q * " +
               W + ";\n";
      const std::string from = width() > 1 ? "m / " + W + " * " + W + " + " : "";
      return ind + "for (long r = " + from + start + "; r < m; r += " + step + ") {\n" + ind + "  const long p = r;\n" +
             emit_coordinates(plan, "p", ind + "  ");
    }
    if (registers() && w > 1)  // whole vectors only: the scheduler asks that rows be a multiple of w
      return ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long q = sl + (long)k * " + T + ";\n" + ind +
             "  if (q >= mo / " + W + ") break;\n" + ind + "  const long p = o * m + q * " + W + ";\n";
    if (w > 1)
      return ind + "for (long q = sl; q < mo / " + W + "; q += " + T + ") {\n" + ind + "  const long p = o * m + q * " + W + ";\n";
    if (registers())
      s = ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long r = sl + (long)k * " + T + ";\n" + ind +
          "  if (r >= mo) break;\n";
    else
      s = ind + "for (long r = " + (width() > 1 ? "mo / " + W + " * " + W + " + " : std::string()) + "sl; r < mo; r += " + T + ") {\n";
    return s + ind + "  const long p = o * m + r;\n" + emit_coordinates(plan, "p", ind + "  ");
  }

  // The instructions `need` marks, at element p (w of them): the reductions
  // it reads as v<k> (r<k> broadcast), then the rest. In the register form
  // loads, and values an earlier phase kept, are taken from registers, and
  // the first phase to compute a value that later phases need keeps it.
  std::string body(std::vector<char> need, const std::string& ind, int w) {
    std::string pre, post;
    for (std::size_t k = 0; k < need.size(); ++k) {
      if (need[k] != 2) continue;
      need[k] = 0;
      const std::string T_ = cl_type(plan.instrs[k].dtype, w);
      // Broadcast along the row; in the column form r<k> holds the vector's own columns.
      const bool broadcast = w > 1 && !columns();
      pre += ind + "const " + T_ + " v" + std::to_string(k) + " = " + (broadcast ? "(" + T_ + ")(r" + std::to_string(k) + ")" : "r" + std::to_string(k)) + ";\n";
    }
    if (registers())
      for (std::size_t k = 0; k < need.size(); ++k) {
        if (!need[k]) continue;
        const std::string v = "v" + std::to_string(k), rc = "rc" + std::to_string(k) + "[k]";
        if (held[k]) {
          need[k] = 0;
          pre += ind + "const " + cl_type(plan.instrs[k].dtype, w) + " " + v + " = " + rc + ";\n";
        } else if (kept(plan.instrs[k]) && phases_of[k] > 1) {
          held[k] = 1;
          post += ind + rc + " = " + v + ";\n";
        }
      }
    return pre + emit_body(plan, w, "p", ind, helpers, &need) + post;
  }
};

// The stashed value at p (w elements) into its output, or from it as v<k>.
std::string stash_store(const RowRender& rr, int w, const std::string& ind) {
  const std::string v = "v" + std::to_string(rr.stash), out = "out" + std::to_string(rr.stash_out);
  return "#ifdef FCL_CPU\n" + ind + (w > 1 ? "vstore" + std::to_string(w) + "(" + v + ", 0, " + out + " + p);\n" : out + "[p] = " + v + ";\n") +
         "#endif\n";
}
std::string stash_load(const RowRender& rr, int w, const std::string& ind) {
  const std::string out = "out" + std::to_string(rr.stash_out);
  return ind + "const " + cl_type(rr.plan.instrs[std::size_t(rr.stash)].dtype, w) + " v" + std::to_string(rr.stash) + " = " +
         (w > 1 ? "vload" + std::to_string(w) + "(0, " + out + " + p);\n" : out + "[p];\n");
}

// The output phase's body at p: on CPUs with a stash, the stashed value
// loaded and only what is left computed from it.
std::string output_body(RowRender& rr, const std::vector<char>& need, int w, const std::string& ind) {
  if (rr.stash < 0) return rr.body(need, ind, w);
  std::vector<char> rest = per_element(rr.plan, rr.plan.outputs, rr.stash);
  rest[std::size_t(rr.stash)] = 0;
  return "#ifdef FCL_CPU\n" + stash_load(rr, w, ind) + rr.body(rest, ind, w) + "#else\n" + rr.body(need, ind, w) + "#endif\n";
}

std::string lane(int j) {
  static const char* hex = "0123456789abcdef";
  return std::string(".s") + hex[j];
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
  const bool kahan = is_float(acc_t) && info.summation == Summation::Kahan;
  auto combine = [&](const std::string& a, const std::string& b, int w) {
    return spell(info.combine, acc_t, acc_t, a, b, "", w, rr.helpers);
  };
  auto accumulate = [&](const std::string& acc, const std::string& comp, const std::string& type, int w, const std::string& ind) {
    if (kahan)
      return ind + "{ const " + type + " y_ = " + v + " - " + comp + "; const " + type + " t_ = " + acc + " + y_; " + comp +
             " = " + kahan_comp("t_", acc, "y_", type) + "; " + acc + " = t_; }\n";
    return ind + acc + " = " + combine(acc, v, w) + ";\n";
  };

  std::string value = "acc" + ks;
  if (info.finish == Finish::Mean) value = "(" + value + ") / s" + std::to_string(red.slot);
  if (red.b == 1) value = "sqrt(" + value + ")";

  if (rr.columns()) {
    // Column form: every lane its own column. The work-item's partial (a
    // vector), then the T partials of its columns, each work-item combining
    // all of them from local memory in the same order.
    const int W = rr.width();
    const std::string AW = cl_type(acc_t, W), C = std::to_string(plan.reduce.rows_per_group);
    std::string s = "  " + AW + " acc" + ks + ";\n  {\n    " + AW + " acc = (" + AW + ")(" +
                    reduce_identity(info.identity, acc_t) + ");\n";
    if (kahan) s += "    " + AW + " comp = (" + AW + ")(0);\n";
    s += rr.head("    ", W) + rr.body(per_element(plan, {red.a}), "      ", W) + accumulate("acc", "comp", AW, W, "      ");
    if (rr.stash_phase == int(k)) s += stash_store(rr, W, "      ");
    s += "    }\n";
    if (kahan) s += "    acc = acc - comp;\n";
    const int T = std::stoi(rr.T), F = plan.reduce.row_fanin;
    if (T > 1) {
      s += "    " + sh + "[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
      int count = T;
      if (F > 0 && T > 2 * F) {
        // Two levels, as the general form's (row_fanin): the first F work-items
        // of each vector combine every F-th partial into their own slots,
        // which no other work-item of the level reads. Softmax over axis 0
        // of 4096 x 1024 on an H200 (128 work-items down each vector): 52
        // us against 62 with each work-item combining all 128.
        const std::string step = std::to_string(F) + " * " + C;
        s += "    if (sl < " + std::to_string(F) + ") {\n      " + AW + " a_ = " + sh + "[lid];\n";
        s += "      for (int j = 1; j < " + std::to_string(T / F) + "; ++j) a_ = " +
             combine("a_", sh + "[lid + j * " + step + "]", W) + ";\n";
        s += "      " + sh + "[lid] = a_;\n    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
        count = F;
      }
      s += "    acc = " + sh + "[c_];\n";
      s += "    for (int j = 1; j < " + std::to_string(count) + "; ++j) acc = " + combine("acc", sh + "[c_ + j * " + C + "]", W) + ";\n";
    }
    return s + "    acc" + ks + " = acc;\n  }\n  const " + AW + " r" + ks + " = " + value + ";\n";
  }

  std::string s = "  " + A + " acc" + ks + ";\n  {\n    " + A + " acc = " + reduce_identity(info.identity, acc_t) + ";\n";
  if (red.a < 0) {
    // Grid form: the partial results of an earlier kernel (buffer slot c), combined plainly as the trees do.
    s += "    for (long k = lid; k < groups; k += " + rr.T + ") acc = " + combine("acc", "in" + std::to_string(red.c) + "[k]", 1) + ";\n";
  } else {
    if (kahan) s += "    " + A + " comp = (" + A + ")(0);\n";
    const auto need = per_element(plan, {red.a});
    const int W = rr.width();
    if (W > 1) {
      // Whole vectors first, each lane accumulating on its own, then the lanes into acc.
      const std::string AW = cl_type(acc_t, W);
      s += "    {\n      " + AW + " accv = (" + AW + ")(" + reduce_identity(info.identity, acc_t) + ");\n";
      if (kahan) s += "      " + AW + " compv = (" + AW + ")(0);\n";
      s += rr.head("      ", W) + rr.body(need, "        ", W) + accumulate("accv", "compv", AW, W, "        ");
      if (rr.stash_phase == int(k)) s += stash_store(rr, W, "        ");
      s += "      }\n";
      for (int j = 0; j < W; ++j)
        s += kahan ? "      acc += accv" + lane(j) + " - compv" + lane(j) + ";\n" : "      acc = " + combine("acc", "accv" + lane(j), 1) + ";\n";
      s += "    }\n";
    }
    if (!(rr.registers() && W > 1))  // the tail after the whole vectors
      s += rr.head("    ", 1) + rr.body(need, "      ", 1) + accumulate("acc", "comp", A, 1, "      ") +
           (rr.stash_phase == int(k) ? stash_store(rr, 1, "      ") : std::string()) + "    }\n";
    if (kahan) s += "    acc = acc - comp;\n";
  }
  const int T = std::stoi(rr.T), F = plan.reduce.row_fanin;
  if (T == 1) {
    s += "    acc" + ks + " = acc;\n  }\n";  // a work-item per row: nothing to combine
  } else if (F > 0) {
    // Two levels (ReduceSpec::row_fanin): fewer barriers than a tree, each
    // level a short sequence of reads from local memory (the second level's
    // the same addresses for every work-item of the row: broadcasts).
    s += "    " + sh + "[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
    int count = T;
    if (T > 2 * F) {
      s += "    if (sl < " + std::to_string(F) + ") {\n      " + A + " a_ = " + sh + "[lid];\n";
      s += "      for (int j = 1; j < " + std::to_string(T / F) + "; ++j) a_ = " +
           combine("a_", sh + "[lid + j * " + std::to_string(F) + "]", 1) + ";\n";
      s += "      " + sh + "[lid] = a_;\n    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
      count = F;
    }
    s += "    acc = " + sh + "[lid - sl];\n";
    s += "    for (int j = 1; j < " + std::to_string(count) + "; ++j) acc = " + combine("acc", sh + "[lid - sl + j]", 1) + ";\n";
    s += "    acc" + ks + " = acc;\n  }\n";
  } else {
    // A tree over the row's work-items (a segment of the group, in local
    // memory); its last barrier makes the segment's first value final.
    s += "    " + sh + "[lid] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += "    for (int s_ = " + rr.T + " / 2; s_ > 0; s_ >>= 1) {\n";
    s += "      if (sl < s_) " + sh + "[lid] = " + combine(sh + "[lid]", sh + "[lid + s_]", 1) + ";\n";
    s += "      barrier(CLK_LOCAL_MEM_FENCE);\n    }\n";
    s += "    acc" + ks + " = " + sh + "[lid - sl];\n  }\n";
  }
  return s + "  const " + A + " r" + ks + " = " + value + ";\n";
}

std::string kernel_head(const std::string& name, const std::string& L, const std::string& sig) {
  return "\n__kernel __attribute__((reqd_work_group_size(" + L + ", 1, 1)))\nvoid " + name + "(\n    " + sig + ")\n{\n";
}

}  // namespace

std::size_t row_local_bytes(const KernelPlan& plan) {
  const int local = plan.reduce.local_size, per_row = local / std::max<int>(1, plan.reduce.rows_per_group);
  if (per_row <= 1) return 0;
  std::size_t bytes = 0;
  for (const auto& in : plan.instrs)
    if (is_row_reduction(in)) bytes += std::size_t(local) * std::size_t(size_of(in.dtype) * (plan.reduce.row_columns ? plan.width : 1));
  return bytes;
}

std::string render_row(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const int local = plan.reduce.local_size, per_row = local / plan.reduce.rows_per_group;
  RowRender rr{plan, helpers, std::to_string(per_row), std::to_string(plan.reduce.row_chunks), {}, {}};
  const std::string L = std::to_string(local);
  std::string sig;
  const auto ps = params(plan);
  for (std::size_t i = 0; i < ps.size(); ++i) sig += (i ? ",\n    " : "") + param_declaration(plan, ps[i]);

  // Phases: each reduction in instruction order, then the outputs.
  std::vector<std::vector<char>> needs;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (is_row_reduction(plan.instrs[k])) needs.push_back(per_element(plan, {plan.instrs[k].a}));
  needs.push_back(per_element(plan, plan.outputs));
  rr.held.assign(plan.instrs.size(), 0);
  rr.phases_of.assign(plan.instrs.size(), 0);
  for (const auto& need : needs)
    for (std::size_t k = 0; k < need.size(); ++k) rr.phases_of[k] += need[k] == 1;
  if (!rr.registers() && !rr.grid() && !plan.out_strided) {
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
      if (rr.phases_of[k] > 0 && plan.instrs[k].op == Op::Buffer && plan.instrs[k].access != Access::Uniform)
        first[k] = rr.held[k] = 1;

  // Work-item lid computes elements sl, sl + T, ... of row o; rows past the
  // last (in the last group) compute nothing but take part in its barriers.
  std::string b = "  const int lid = (int)get_local_id(0);\n";
  if (rr.grid()) {
    b += "  const int sl = lid;\n";  // one row, over every group
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
  }
  // OpenCL C 1.2 declares __local variables at the kernel's outermost scope.
  if (per_row > 1)  // row_local_bytes counts them
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (is_row_reduction(plan.instrs[k]))
        b += "  __local " + cl_type(plan.instrs[k].dtype, rr.columns() ? plan.width : 1) + " sh" + std::to_string(k) + "[" + L + "];\n";
  const int W = plan.width;
  if (rr.registers())
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (first[k] || (kept(plan.instrs[k]) && rr.phases_of[k] > 1))
        b += "  " + cl_type(plan.instrs[k].dtype, W) + " rc" + std::to_string(k) + "[" + rr.K + "];\n";
  if (std::find(first.begin(), first.end(), 1) != first.end()) {
    // Every position loaded exists: rows past the last (the last group's)
    // read the last row, and positions past a row's end its last element (or
    // vector); the phases skip them.
    const std::string Ws = std::to_string(W);
    const std::string last = W > 1 && !rr.columns() ? "m / " + Ws + " - 1" : "m - 1";
    b += "  {\n    const long oc = o < n ? o : n - 1;\n";
    if (rr.columns())  // the start of the last vector's column, for the last group's past-the-end vectors
      b += "    const long bc = oc / (rs / " + Ws + ") * m * rs + oc % (rs / " + Ws + ") * " + Ws + ";\n";
    b += "    for (int k = 0; k < " + rr.K + "; ++k) {\n";
    b += "      const long rk_ = sl + (long)k * " + rr.T + ", r = rk_ < " + last + " ? rk_ : " + last + ";\n";  // not min(): see render_tiled.cpp
    if (rr.columns())
      b += "      const long p = bc + r * rs;\n";
    else
      b += "      const long p = oc * m + r" + (W > 1 ? " * " + Ws : std::string()) + ";\n";
    if (W == 1) b += emit_coordinates(plan, "p", "      ");
    b += emit_body(plan, W, "p", "      ", helpers, &first);
    for (std::size_t k = 0; k < first.size(); ++k)
      if (first[k]) b += "      rc" + std::to_string(k) + "[k] = v" + std::to_string(k) + ";\n";
    b += "    }\n  }\n";
  }
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (is_row_reduction(plan.instrs[k])) b += reduction_phase(rr, k);

  if (W > 1) {
    b += rr.head("  ", W) + output_body(rr, needs.back(), W, "    ");
    b += emit_vector_stores(plan, W, "p", plan.aligned, "    ");  // p is a multiple of W
    b += "  }\n";
  }
  // The elements after the whole vectors; the column form has none (its
  // width divides the inner extent).
  if (W == 1 || !(rr.registers() || rr.columns())) {
    b += rr.head("  ", 1) + output_body(rr, needs.back(), 1, "    ");
    b += emit_stores(plan, "p", "    ");
    b += "  }\n";
  }
  return program_prelude(plan) + helpers.text() + kernel_head(name, L, sig) + b + "}\n";
}

}  // namespace fusecl::codegen
