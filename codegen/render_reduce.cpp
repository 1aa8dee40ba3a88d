// Reduction kernels. The reduced value is the plan's body evaluated at flat
// position p = o * m + r of the index space [kept dims..., reduced dims...]
// (o: output, r: position in the reduced range), so whatever produces the
// input is fused into the loads of the reduction.
//
// Accuracy: float sums accumulate per work-item with Kahan compensation and
// combine across work-items and work-groups in a tree, so the error is
// O((log2 L + log2 G) u) * sum|x| instead of O(n u) * sum|x| for a running sum.
#include "codegen/online_softmax.hpp"
#include "codegen/reduce_emitter.hpp"

#include "fusecl/error.hpp"

namespace fusecl::codegen {

namespace {

const char* k_argmax_better = R"(static inline int $N($T a, long ia, $T b, long ib) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
$NAN  return (b $CMP a) || (b == a && ib < ia);
}
)";

std::string replace_all(std::string s, const std::string& key, const std::string& val) {
  for (std::size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + val.size())) s.replace(p, key.size(), val);
  return s;
}

}  // namespace

// The accumulator's start value in dtype t.
std::string reduce_identity(Identity id, DType t) {
  const std::string T = cl_type(t);
  const bool flt = is_float(t);
  switch (id) {
    case Identity::Zero: return "(" + T + ")(0)";
    case Identity::One: return "(" + T + ")(1)";
    case Identity::Highest:
      if (flt) return "(" + T + ")(INFINITY)";
      if (t == DType::Bool) return "(uchar)(1)";
      return "(" + T + ")(" + (T == "char" ? "CHAR_MAX" : T == "short" ? "SHRT_MAX" : T == "int" ? "INT_MAX" : T == "long" ? "LONG_MAX"
                              : T == "uchar" ? "UCHAR_MAX" : T == "ushort" ? "USHRT_MAX" : T == "uint" ? "UINT_MAX" : "ULONG_MAX") + ")";
    case Identity::Lowest:
      if (flt) return "(" + T + ")(-INFINITY)";
      if (kind_of(t) != Kind::Signed) return "(" + T + ")(0)";
      return "(" + T + ")(" + (T == "char" ? "CHAR_MIN" : T == "short" ? "SHRT_MIN" : T == "int" ? "INT_MIN" : "LONG_MIN") + ")";
  }
  return "(" + T + ")(0)";
}

namespace {

// Kahan's compensation (t - acc) - y, the rounding error of t = acc + y. Once
// t is infinite or NaN that expression is NaN (inf - inf), which would turn
// every later term and the final acc - comp into NaN although the sum is
// +-inf; then there is nothing left to compensate and the term is 0. (For
// vectors, `?:` selects per component.)
std::string kahan_comp(const std::string& t, const std::string& acc, const std::string& y, const std::string& type) {
  return "(isfinite(" + t + ") ? (" + t + " - " + acc + ") - " + y + " : (" + type + ")(0))";
}

}  // namespace

// One compensated step: x added into acc, its rounding error kept in comp.
// Every Kahan loop of the reduction and row kernels writes this one text.
std::string kahan_step(const std::string& acc, const std::string& comp, const std::string& x, const std::string& type) {
  return "{ const " + type + " y_ = " + x + " - " + comp + "; const " + type + " t_ = " + acc + " + y_; " + comp + " = " +
         kahan_comp("t_", acc, "y_", type) + "; " + acc + " = t_; }";
}

namespace {

// The last vector of outputs, past n (column blocks in vectors of whole
// outputs): the lanes of `v` below n stored one at a time, lane 0's always.
std::string tail_lanes(const std::string& v, int W, const std::string& ind) {
  std::string s;
  for (int j = 1; j < W; ++j) s += ind + "if (o + " + std::to_string(j) + " < n) out0[o + " + std::to_string(j) + "] = " + v + lane(j) + ";\n";
  return s + ind + "out0[o] = " + v + lane(0) + ";\n";
}

// Where the partial results of a split reduction lie in scratch: for
// arg-reductions n * groups indices first (8-byte aligned), then the values.
std::string partial_pointers(const ReduceEmitter& e) {
  if (e.rs.finish == SplitFinish::Consumer) return "  __global " + e.A + "* pval = out0;\n";  // the output (no arg-reductions)
  std::string s;
  if (e.arg) s += "  __global long* pidx = (__global long*)scratch;\n";
  s += "  __global " + e.A + "* pval = (__global " + e.A + "*)(scratch + " + (e.arg ? "n * groups * 8" : "0") + ");\n";
  return s;
}

// One group combines output o's `groups` partials into sh[0] (and shi[0]).
std::string combine_partials(const ReduceEmitter& e, const std::string& ind) {
  std::string s = ind + "acc = " + reduce_identity(e.info.identity, e.rs.acc) + ";\n";
  if (e.arg) s += ind + "idx = -1;\n";
  s += ind + "for (long k = lid; k < groups; k += " + std::to_string(e.rs.local_size) + ") {\n";
  if (e.arg)
    s += ind + "  const " + e.A + " pv = pval[o * groups + k]; const long pi = pidx[o * groups + k];\n" + ind + "  if (" +
         e.better + "(acc, idx, pv, pi)) { acc = pv; idx = pi; }\n";
  else
    s += ind + "  acc = " + e.combine("acc", "pval[o * groups + k]", 1) + ";\n";
  s += ind + "}\n";
  return s + e.tree(ind);
}

}  // namespace

std::string reduce_kernel_text(const KernelPlan& plan, const std::string& name, const std::string& sig, const HelperSet& helpers,
                               const std::string& body, int x, int y) {
  const std::string attr =
      x > 0 ? "__attribute__((reqd_work_group_size(" + std::to_string(x) + ", " + std::to_string(y) + ", 1)))\n" : std::string();
  return program_prelude(plan) + helpers.text() + "\n__kernel " + attr + "void " + name + "(\n    " + sig + ")\n{\n" + body + "}\n";
}

std::string reduce_finish(const ReduceSpec& rs, const std::string& acc) {
  std::string v = acc;
  if (reduce_info(rs.op).finish == Finish::Mean) v = "(" + v + ") / s" + std::to_string(rs.divisor);
  if (rs.post_sqrt) v = "sqrt(" + v + ")";
  return v;
}

int group_row_items(const ReduceSpec& rs) { return rs.local_size / std::max(1, int(rs.rows_per_group)); }

std::string group_lid(const ReduceSpec& rs) {
  if (rs.rows_per_group <= 1) return "  const int lid = (int)get_local_id(0);\n";
  const std::string T = std::to_string(group_row_items(rs));
  return "  const int row_ = (int)get_local_id(0) / " + T + ", lid = (int)get_local_id(0) % " + T + ";\n";
}

std::string group_local(const ReduceSpec& rs, const std::string& type, const std::string& name) {
  const std::string G = std::to_string(rs.local_size);
  if (rs.rows_per_group <= 1) return "  __local " + type + " " + name + "[" + G + "];\n";
  return "  __local " + type + " " + name + "_[" + G + "];\n  __local " + type + "* " + name + " = " + name + "_ + row_ * " +
         std::to_string(group_row_items(rs)) + ";\n";
}

std::string group_prologue(const KernelPlan& plan) {
  const std::string Ws = std::to_string(plan.width);
  if (plan.reduce.rows_per_group > 1)  // rows past the last: an empty range, no store (group_store_test)
    return "  const long o = (long)get_group_id(0) * " + std::to_string(plan.reduce.rows_per_group) +
           " + row_;\n  const long r_begin = 0, r_end = o < n ? m : 0;\n";
  if (!plan.reduce.two_stage) return "  const long o = (long)get_group_id(0);\n  const long r_begin = 0, r_end = m;\n";
  return "  const long o = (long)get_group_id(0) / groups, part = (long)get_group_id(0) % groups;\n"
         "  const long chunk = ((m + groups - 1) / groups + " + Ws + " - 1) / " + Ws + " * " + Ws + ";\n"
         "  const long r_begin = min(m, part * chunk), r_end = min(m, r_begin + chunk);\n";
}

std::string group_store_test(const ReduceSpec& rs) { return rs.rows_per_group > 1 ? "lid == 0 && o < n" : "lid == 0"; }

std::string column_block_prologue(const KernelPlan& plan) {
  const ReduceSpec& rs = plan.reduce;
  const ColumnGroup g = column_group(rs);
  const std::string B = std::to_string(g.across);
  std::string b = "  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);\n";
  if (rs.two_stage) {
    b += "  const long blk = (long)get_group_id(0) / groups, part = (long)get_group_id(0) % groups;\n";
    b += "  const long chunk = (m + groups - 1) / groups;\n";
    b += "  const long r_begin = min(m, part * chunk), r_end = min(m, r_begin + chunk);\n";
  } else {
    b += "  const long blk = (long)get_group_id(0);\n  const long r_begin = 0, r_end = m;\n";
  }
  return b + "  const long o = " + (rs.kept_inner ? "(blk * " + B + " + lx) * " + std::to_string(plan.width) : "blk * " + B + " + lx") + ";\n";
}

namespace {

// ReduceStrategy::ColumnBlock's body. Work-item (lx, ly) of group g owns
// output o = block * B + lx (with kept_inner the W outputs from
// (block * B + lx) * W, a vector) and rows ly, ly + R, ... of its part of
// the range, so each row's B (B * W) neighbouring outputs are read together
// (coalesced where the outputs are contiguous in memory). The R partials of
// each output then meet in a tree in local memory; every work-item reaches
// every barrier (o past n only skips reads and stores).
std::string column_block(const ReduceEmitter& e, const std::string& init) {
  const ReduceSpec& rs = e.rs;
  const KernelPlan& plan = e.plan;
  const bool vectors = rs.kept_inner;
  const ColumnGroup g = column_group(rs);
  const int W = vectors ? plan.width : 1, Rn = g.rows, Bn = g.across;
  const std::string B = std::to_string(Bn), R = std::to_string(Rn), S = std::to_string(Bn * Rn), Ws = std::to_string(W);
  const std::string AW = cl_type(rs.acc, W);
  // An arg-reduction's indices in vectors: each lane its output's (ints of
  // the value's size: arg_index_type).
  const std::string IW = vectors ? arg_index_type(rs, W) : "long";
  std::string b = column_block_prologue(plan);
  if (Rn > 1) b += "  __local " + AW + " sh[" + S + "];\n";
  if (e.arg && Rn > 1) b += "  __local " + IW + " shi[" + S + "];\n";
  if (vectors) {
    b += "  " + AW + " acc = (" + AW + ")(" + reduce_identity(e.info.identity, rs.acc) + ");\n";
    if (e.kahan) b += "  " + AW + " comp = (" + AW + ")(0);\n";
    if (e.arg) b += "  " + IW + " idx = (" + IW + ")(-1);\n";
  } else {
    b += init;
  }
  b += "  if (o < n) {\n";
  const std::string ind = "      ", v = "v" + std::to_string(rs.input);
  if (vectors) {
    // [reduced..., kept...]: the kept coordinates are the last kept_dims.
    const int reduced = plan.ndim - rs.kept_dims;
    b += emit_coordinates(plan, "o", "    ", reduced, plan.ndim);
    // Contiguous outputs (ndim 0) need not be a multiple of W: the last
    // vector, past n, takes its lanes one element at a time (its loads would
    // pass the row, and the buffer).
    const bool tail = plan.ndim == 0;
    if (tail) b += "    if (o + " + Ws + " <= n) {\n";
    b += e.nan_declare("acc", W, "    ");
    // Unrolled, so that several rows' loads are in flight at once.
    b += "    #pragma unroll 4\n    for (long r = r_begin + ly; r < r_end; r += " + R + ") {\n";
    b += ind + "const long p = r * n + o;\n" + emit_coordinates(plan, "r", ind, 0, reduced) + emit_body(plan, W, "p", ind, e.helpers);
    if (e.kahan) {
      b += ind + kahan_step("acc", "comp", v, AW) + "\n";
    } else if (e.arg) {  // rows in order: a lane's first element, then strictly better ones
      b += ind + "const " + IW + " t_ = (idx < 0) | " + arg_takes(e, v, "acc") + ";\n";
      b += ind + "acc = select(acc, " + v + ", t_);\n" + ind + "idx = select(idx, (" + IW + ")(r), t_);\n";
    } else {
      b += ind + e.vector_step("acc", v, W) + "\n";
    }
    b += "    }\n" + e.nan_apply("acc", W, "    ");
    if (tail) {
      b += "    } else {\n    for (long r = r_begin + ly; r < r_end; r += " + R + ") {\n";
      for (int j = 0; j < W; ++j) {
        const std::string J = std::to_string(j), a = "acc" + lane(j), c = "comp" + lane(j), in2 = ind + "  ";
        b += ind + "if (o + " + J + " < n) {\n" + in2 + "const long p = r * n + o + " + J + ";\n" + emit_body(plan, 1, "p", in2, e.helpers);
        if (e.kahan)
          b += in2 + kahan_step(a, c, v, e.A) + "\n";
        else if (e.arg)
          b += in2 + "if (" + e.better + "(" + a + ", (long)idx" + lane(j) + ", " + v + ", r)) { " + a + " = " + v + "; idx" + lane(j) +
               " = r; }\n";
        else
          b += in2 + a + " = " + e.combine(a, v, 1) + ";\n";
        b += ind + "}\n";
      }
      b += "    }\n    }\n";
    }
  } else {
    b += emit_coordinates(plan, "o", "    ", 0, rs.kept_dims);
    b += "    for (long r = r_begin + ly; r < r_end; r += " + R + ") {\n";
    b += ind + "const long p = o * m + r;\n" + emit_reduced_coordinates(plan, "r", ind) + emit_body(plan, 1, "p", ind, e.helpers) +
         e.accumulate(v, "r", ind);
    b += "    }\n";
  }
  b += "  }\n";
  if (e.kahan) b += "  acc = acc - comp;\n";
  std::string result = "acc", index = "idx";
  if (Rn > 1) {
    b += "  const int at = ly * " + B + " + lx;\n";
    b += "  sh[at] = acc;" + std::string(e.arg ? " shi[at] = idx;" : "") + "\n";
    b += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
    b += "  for (int s_ = " + R + " / 2; s_ > 0; s_ >>= 1) {\n";
    const std::string other = "at + s_ * " + B;
    if (e.arg && vectors)
      b += "    if (ly < s_) {\n      const " + AW + " x_ = sh[at], y_ = sh[" + other + "];\n      const " + IW + " ix_ = shi[at], iy_ = shi[" +
           other + "];\n      const " + IW + " t_ = " + arg_better_mask(e, "x_", "ix_", "y_", "iy_") +
           ";\n      sh[at] = select(x_, y_, t_);\n      shi[at] = select(ix_, iy_, t_);\n    }\n";
    else if (e.arg)
      b += "    if (ly < s_ && " + e.better + "(sh[at], shi[at], sh[" + other + "], shi[" + other + "])) { sh[at] = sh[" + other +
           "]; shi[at] = shi[" + other + "]; }\n";
    else
      b += "    if (ly < s_) sh[at] = " + e.combine("sh[at]", "sh[" + other + "]", W) + ";\n";
    b += "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
    result = "sh[lx]", index = "shi[lx]";
  }
  // An arg-reduction's vectors store their indices as longs.
  const std::string LW = "long" + Ws, stored = e.arg ? "convert_" + LW + "(" + index + ")" : e.finish_value(result);
  const std::string ST = e.arg ? LW : AW;
  const FinishValue fin = vectors && !e.arg && !rs.two_stage ? finish_value(plan, result, W, "    ", e.helpers) : FinishValue{};
  if (!rs.two_stage && vectors && !fin.statements.empty()) {
    // With a finish (render_finish.cpp): its statements, then the store of
    // its value, whole or, the last vector past n, lane by lane.
    b += "  if (ly == 0 && o < n) {\n" + fin.statements + "    if (o + " + Ws + " <= n) vstore" + Ws + "(" + fin.value + ", 0, out0 + o);\n";
    if (plan.ndim == 0) b += "    else {\n" + tail_lanes(fin.value, W, "      ") + "    }\n";
    b += "  }\n";
  } else if (!rs.two_stage) {
    if (vectors) {
      b += "  if (ly == 0 && o + " + Ws + " <= n) vstore" + Ws + "(" + stored + ", 0, out0 + o);\n";
      if (plan.ndim == 0) {  // the last vector, past n: lane by lane
        b += "  else if (ly == 0 && o < n) {\n    const " + ST + " f_ = " + stored + ";\n";
        b += tail_lanes("f_", W, "    ") + "  }\n";
      }
    }
    else
      b += "  if (ly == 0 && o < n) {\n" + e.store("    ", result, index) + "  }\n";
  } else {
    // Finished by combine_plan's kernel (the scheduler never asks the last group to).
    b += partial_pointers(e);
    b += "  if (ly == 0 && o < n) {\n";
    if (vectors) {  // at part * n + o (combine_plan): a vector's together, but past n
      b += "    const " + AW + " a_ = " + result + ";\n";
      if (e.arg) b += "    const " + LW + " i_ = convert_" + LW + "(" + index + ");\n";
      b += "    if (o + " + Ws + " <= n) {\n      vstore" + Ws + "(a_, 0, pval + part * n + o);\n";
      if (e.arg) b += "      vstore" + Ws + "(i_, 0, pidx + part * n + o);\n";
      b += "    }\n";
      if (plan.ndim == 0) {  // the last vector, past n: lane by lane
        b += "    else {\n";
        for (int j = 0; j < W; ++j) {
          const std::string at = "part * n + o + " + std::to_string(j);
          b += "      if (o + " + std::to_string(j) + " < n) { pval[" + at + "] = a_" + lane(j) + ";" +
               (e.arg ? " pidx[" + at + "] = i_" + lane(j) + ";" : "") + " }\n";
        }
        b += "    }\n";
      }
    } else {
      b += "    pval[o * groups + part] = " + result + ";\n";
      if (e.arg) b += "    pidx[o * groups + part] = " + index + ";\n";
    }
    b += "  }\n";
  }
  return b;
}

// A work-item per output combining the `groups` partials a ColumnBlock in
// vectors, or softmax's pair (online), left at part * n + o (combine_plan):
// plain ones as the trees combine them, softmax's pairs merged.
std::string thread_combine(const ReduceEmitter& e) {
  const ReduceSpec& rs = e.rs;
  std::string b = "  const long o = get_global_id(0);\n  if (o >= n) return;\n";
  if (rs.online) {
    const std::string T = cl_type(rs.acc);
    b += "  __global const " + T + "* pmax = (__global const " + T + "*)scratch;\n";
    b += "  " + T + " pm = pmax[o], ps = pmax[groups * n + o];\n";
    b += "  for (long k = 1; k < groups; ++k) " + online_merge(rs.acc, 1, e.helpers) + "(&pm, &ps, pmax[k * n + o], pmax[(groups + k) * n + o]);\n";
    return b + store_values(e.plan, {"pm", online_sum(rs.acc, "pm", "ps", 1)}, 1, "o", "  ", e.helpers);
  }
  b += partial_pointers(e) + "  " + e.A + " acc = " + reduce_identity(e.info.identity, rs.acc) + ";\n";
  if (is_float(rs.acc) && e.info.summation == Summation::Kahan) {
    // In sequence, where the trees added in pairs: compensated, so that
    // hundreds of parts add no more error than the tree's log2 levels.
    b += "  " + e.A + " comp = (" + e.A + ")(0);\n  for (long k = 0; k < groups; ++k) " + kahan_step("acc", "comp", "pval[k * n + o]", e.A) +
         "\n  acc = acc - comp;\n";
  } else if (e.arg) {  // parts in order; better() settles ties and NaN by index all the same
    b += "  long idx = -1;\n  for (long k = 0; k < groups; ++k)\n";
    b += "    if (" + e.better + "(acc, idx, pval[k * n + o], pidx[k * n + o])) { acc = pval[k * n + o]; idx = pidx[k * n + o]; }\n";
  } else {
    b += "  for (long k = 0; k < groups; ++k) acc = " + e.combine("acc", "pval[k * n + o]", 1) + ";\n";
  }
  return b + e.store("  ", "acc", "idx");
}

}  // namespace

std::string arg_better(const ReduceSpec& rs, HelperSet& helpers) {
  const ReduceInfo& info = reduce_info(rs.op);
  const std::string A = cl_type(rs.acc);
  std::string nan = is_float(rs.acc) ? "  if (isnan(a)) return isnan(b) && ib < ia;\n  if (isnan(b)) return 1;\n" : "";
  std::string t = replace_all(k_argmax_better, "$NAN", nan);
  t = replace_all(t, "$CMP", info.combine == Op::Maximum ? ">" : "<");
  const std::string fname = "fcl_" + std::string(op_name(rs.op)) + "_better_" + A;
  return helpers.use(fname, replace_all(replace_all(t, "$N", fname), "$T", A));
}

std::string render_reduce(const KernelPlan& plan, const std::string& name) {
  const ReduceSpec& rs = plan.reduce;
  const ReduceInfo& info = reduce_info(rs.op);
  HelperSet helpers;
  ReduceEmitter e{plan, rs, info, helpers, false, info.finish == Finish::Index, cl_type(rs.acc), ""};
  // A split reduction's second kernel only combines partials, plainly, as the trees do.
  e.kahan = is_float(rs.acc) && info.summation == Summation::Kahan && !rs.combine;
  e.nan_apart = !e.arg && !rs.combine && nan_noted(info.combine, rs.acc);
  if (e.arg) e.better = arg_better(rs, helpers);
  const int W = plan.width;
  const std::string v = "v" + std::to_string(rs.input);
  const std::string L = std::to_string(group_row_items(rs));  // a row's work-items (the group's, but for rows_per_group)

  const std::string sig = param_list(plan);

  std::string b;
  auto init = [&](const std::string& ind) {
    std::string s = ind + e.A + " acc = " + reduce_identity(info.identity, rs.acc) + ";\n";
    if (e.kahan) s += ind + e.A + " comp = (" + e.A + ")(0);\n";
    if (e.arg) s += ind + "long idx = -1;\n";
    return s;
  };
  auto scalar_step = [&](const std::string& ind) {
    return ind + "const long p = o * m + r;\n" + emit_reduced_coordinates(plan, "r", ind) + emit_body(plan, 1, "p", ind, helpers) +
           e.accumulate(v, "r", ind);
  };
  const std::string kept_coordinates = emit_coordinates(plan, "o", "  ", 0, rs.kept_dims);

  if (rs.strategy == ReduceStrategy::ThreadPerOutput && rs.combine) {
    b += thread_combine(e);
    return reduce_kernel_text(plan, name, sig, helpers, b);
  }
  // Output o's row in scalars, from its start value to its store.
  auto one_row = [&](const std::string& ind) {
    std::string s = init(ind) + ind + "for (long r = 0; r < m; ++r) {\n" + scalar_step(ind + "  ") + ind + "}\n";
    if (e.kahan) s += ind + "acc = acc - comp;\n";
    return s + e.store(ind, "acc", "idx");
  };
  if (rs.strategy == ReduceStrategy::ThreadPerOutput && rs.row_lanes) {
    // W rows a work-item, a lane each (lanes_rows); past the last whole
    // vector of rows, the rows left one after another as below.
    b += lanes_rows(e, "    for (long o = o0_; o < n; ++o) {\n" + one_row("      ") + "    }\n");
    return reduce_kernel_text(plan, name, sig, helpers, b);
  }
  if (rs.strategy == ReduceStrategy::ThreadPerOutput) {
    b += "  const long o = get_global_id(0);\n  if (o >= n) return;\n" + kept_coordinates + one_row("  ");
    return reduce_kernel_text(plan, name, sig, helpers, b);
  }

  if (rs.strategy == ReduceStrategy::ColumnBlock && !rs.combine) {
    b += rs.online ? online_columns(e) : column_block(e, init("  "));
    const ColumnGroup g = column_group(rs);
    return reduce_kernel_text(plan, name, sig, helpers, b, g.across, g.rows);
  }

  if (rs.online) {  // GroupPerOutput
    b += online_groups(e);
    return reduce_kernel_text(plan, name, sig, helpers, b, rs.local_size);
  }
  b += group_lid(rs);
  if (rs.combine) {
    // The second kernel of a split reduction: a group per output.
    b += "  const long o = (long)get_group_id(0);\n";
    b += "  __local " + e.A + " sh[" + L + "];\n";
    if (e.arg) b += "  __local long shi[" + L + "];\n";
    b += init("  ") + partial_pointers(e) + combine_partials(e, "  ");
    b += "  if (lid == 0) {\n" + e.store("    ", "sh[0]", "shi[0]") + "  }\n";
    return reduce_kernel_text(plan, name, sig, helpers, b, rs.local_size);
  }
  b += group_prologue(plan);
  b += group_local(rs, e.A, "sh");
  if (e.arg) b += group_local(rs, "long", "shi");
  if (rs.two_stage && rs.finish == SplitFinish::LastGroup) b += "  __local int is_last;\n";
  b += kept_coordinates + init("  ");
  if (W > 1) {
    b += group_vectors(e, L, scalar_step("      "));
  } else {
    b += "  for (long r = r_begin + lid; r < r_end; r += " + L + ") {\n" + scalar_step("    ") + "  }\n";
  }
  if (e.kahan) b += "  acc = acc - comp;\n";
  b += e.tree("  ");
  if (!rs.two_stage) {
    b += "  if (" + group_store_test(rs) + ") {\n" + e.store("    ", "sh[0]", "shi[0]") + "  }\n";
  } else {
    b += partial_pointers(e);
    b += "  if (lid == 0) {\n    pval[o * groups + part] = sh[0];\n";
    if (e.arg) b += "    pidx[o * groups + part] = shi[0];\n";
    if (rs.finish == SplitFinish::LastGroup) {
      // The partial above is a plain store; the release half of this atomic
      // publishes it, and the acquire half lets the last group to count see
      // every other group's (OpenCL C 2.0 memory model; OpenCL 1.2's
      // atomic_inc and mem_fence order nothing between work-groups).
      b += "    is_last = atomic_fetch_add_explicit(&counters[o], 1u, memory_order_acq_rel, memory_scope_device) == "
           "(uint)(groups - 1);\n";
    }
    b += "  }\n";
    if (rs.finish == SplitFinish::LastGroup) {
      // Work-item 0's acquire happens before this barrier, which orders
      // global memory for the rest of the group: they may read the partials.
      b += "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  if (!is_last) return;\n";
      b += combine_partials(e, "  ");
      // The next launch (ordered after this one by the queue) finds it zero.
      b += "  if (lid == 0) {\n" + e.store("    ", "sh[0]", "shi[0]") +
           "    atomic_store_explicit(&counters[o], 0u, memory_order_relaxed, memory_scope_device);\n  }\n";
    }
    // SplitFinish::SecondKernel: combine_plan's kernel finishes.
  }
  return reduce_kernel_text(plan, name, sig, helpers, b, rs.local_size);
}

}  // namespace fusecl::codegen
