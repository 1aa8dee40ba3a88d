// Reduction kernels. The reduced value is the plan's body evaluated at flat
// position p = o * m + r of the index space [kept dims..., reduced dims...]
// (o: output, r: position in the reduced range), so whatever produces the
// input is fused into the loads of the reduction.
//
// Accuracy: float sums accumulate per work-item with Kahan compensation and
// combine across work-items and work-groups in a tree, so the error is
// O((log2 L + log2 G) u) * sum|x| instead of O(n u) * sum|x| for a running sum.
#include "codegen/body.hpp"
#include "codegen/warp_shuffle.hpp"
#include "codegen/online_softmax.hpp"

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

bool overlap_tail(const KernelPlan& plan) { return plan.width > 1 && !plan.aligned && plan.ndim == 0; }

// One compensated step: x added into acc, its rounding error kept in comp.
// Every Kahan loop of the reduction and row kernels writes this one text.
std::string kahan_step(const std::string& acc, const std::string& comp, const std::string& x, const std::string& type) {
  return "{ const " + type + " y_ = " + x + " - " + comp + "; const " + type + " t_ = " + acc + " + y_; " + comp + " = " +
         kahan_comp("t_", acc, "y_", type) + "; " + acc + " = t_; }";
}

namespace {

struct Emitter {
  const KernelPlan& plan;
  const ReduceSpec& rs;
  const ReduceInfo& info;
  HelperSet& helpers;
  bool kahan, arg;
  std::string A;  // accumulator type
  std::string better;
  // A float max or min's vector loops note NaN apart (body.hpp's
  // nan_note_*); its scalar steps and trees keep the NaN-propagating helper.
  bool nan_apart = false;

  // Folds `v` (width w) into vector accumulator `acc` (its flag acc_nan where nan_apart).
  std::string vector_step(const std::string& acc, const std::string& v, int w) const {
    return nan_apart ? nan_note_step(info.combine, acc, acc + "_nan", v) : acc + " = " + combine(acc, v, w) + ";";
  }
  std::string nan_declare(const std::string& acc, int w, const std::string& ind) const {
    return nan_apart ? nan_note_declare(rs.acc, acc + "_nan", acc, w, ind) : std::string();
  }
  std::string nan_apply(const std::string& acc, int w, const std::string& ind) const {
    return nan_apart ? nan_note_apply(rs.acc, acc, acc + "_nan", w, ind) : std::string();
  }

  std::string combine(const std::string& a, const std::string& b, int width) const {
    return spell(info.combine, rs.acc, rs.acc, a, b, "", width, helpers);
  }

  // Folds value expression `v` (at reduced position `r`) into acc[/comp/idx] (scalars).
  std::string accumulate(const std::string& v, const std::string& r, const std::string& ind) const {
    if (arg) return ind + "if (" + better + "(acc, idx, " + v + ", " + r + ")) { acc = " + v + "; idx = " + r + "; }\n";
    if (kahan)
      return ind + kahan_step("acc", "comp", v, A) + "\n";
    return ind + "acc = " + combine("acc", v, 1) + ";\n";
  }

  std::string finish_value(const std::string& acc) const { return reduce_finish(rs, acc); }

  // Tree reduction of sh[0..L) (and shi) into sh[0], L the row's work-items;
  // every work-item of the group takes part. Through warp shuffles where
  // the plan has them (ReduceSpec::row_warp; not arg-reductions).
  std::string tree(const std::string& ind) const {
    const int T = group_row_items(rs);
    if (rs.row_warp > 0 && !arg && shufflable(rs.acc)) return warp_tree(ind, T);
    const std::string L = std::to_string(T);
    std::string s = ind + "sh[lid] = acc;" + (arg ? " shi[lid] = idx;" : "") + "\n";
    s += ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += ind + "for (int s_ = " + L + " / 2; s_ > 0; s_ >>= 1) {\n";
    if (arg) {
      s += ind + "  if (lid < s_ && " + better + "(sh[lid], shi[lid], sh[lid + s_], shi[lid + s_])) { sh[lid] = sh[lid + s_]; shi[lid] = shi[lid + s_]; }\n";
    } else {
      s += ind + "  if (lid < s_) sh[lid] = " + combine("sh[lid]", "sh[lid + s_]", 1) + ";\n";
    }
    s += ind + "  barrier(CLK_LOCAL_MEM_FENCE);\n" + ind + "}\n";
    return s;
  }

  // tree through shuffles: within each warp down to the row's first lane
  // there, then (a row of several warps) lid 0 combines the warps' values in
  // order after one barrier. sh[0] holds the row's value for lid 0 only.
  std::string warp_tree(const std::string& ind, int T) const {
    const int Wp = rs.row_warp, lanes = std::min(T, Wp);
    std::string s;
    // Each shuffle into a variable of its own (warp_shuffle.hpp says why),
    // then the op's combine.
    for (int d = lanes / 2; d > 0; d /= 2)
      s += ind + "{ " + shuffle_down(helpers, rs.acc, "const " + A + " y_ =", "acc", std::to_string(d) + "u") + " acc = " +
           combine("acc", "y_", 1) + "; }\n";
    if (T <= Wp) return s + ind + "if (lid == 0) sh[0] = acc;\n";
    s += ind + "if ((lid & " + std::to_string(Wp - 1) + ") == 0) sh[lid / " + std::to_string(Wp) + "] = acc;\n";
    s += ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    return s + ind + "if (lid == 0)\n" + ind + "  for (int w_ = 1; w_ < " + std::to_string(T / Wp) + "; ++w_) sh[0] = " +
           combine("sh[0]", "sh[w_]", 1) + ";\n";
  }

  std::string store(const std::string& ind, const std::string& acc, const std::string& idx) const {
    return ind + "out0[o] = " + (arg ? idx : finish_value(acc)) + ";\n";
  }
};

// Where the partial results of a split reduction lie in scratch: for
// arg-reductions n * groups indices first (8-byte aligned), then the values.
std::string partial_pointers(const Emitter& e) {
  if (e.rs.finish == SplitFinish::Consumer) return "  __global " + e.A + "* pval = out0;\n";  // the output (no arg-reductions)
  std::string s;
  if (e.arg) s += "  __global long* pidx = (__global long*)scratch;\n";
  s += "  __global " + e.A + "* pval = (__global " + e.A + "*)(scratch + " + (e.arg ? "n * groups * 8" : "0") + ");\n";
  return s;
}

// One group combines output o's `groups` partials into sh[0] (and shi[0]).
std::string combine_partials(const Emitter& e, const std::string& ind) {
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
std::string column_block(const Emitter& e, const std::string& init) {
  const ReduceSpec& rs = e.rs;
  const KernelPlan& plan = e.plan;
  const bool vectors = rs.kept_inner;
  const ColumnGroup g = column_group(rs);
  const int W = vectors ? plan.width : 1, Rn = g.rows, Bn = g.across;
  const std::string B = std::to_string(Bn), R = std::to_string(Rn), S = std::to_string(Bn * Rn), Ws = std::to_string(W);
  const std::string AW = cl_type(rs.acc, W);
  std::string b = column_block_prologue(plan);
  if (Rn > 1) b += "  __local " + AW + " sh[" + S + "];\n";
  if (e.arg) b += "  __local long shi[" + S + "];\n";
  if (vectors) {
    b += "  " + AW + " acc = (" + AW + ")(" + reduce_identity(e.info.identity, rs.acc) + ");\n";
    if (e.kahan) b += "  " + AW + " comp = (" + AW + ")(0);\n";
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
    if (e.kahan)
      b += ind + kahan_step("acc", "comp", v, AW) + "\n";
    else
      b += ind + e.vector_step("acc", v, W) + "\n";
    b += "    }\n" + e.nan_apply("acc", W, "    ");
    if (tail) {
      b += "    } else {\n    for (long r = r_begin + ly; r < r_end; r += " + R + ") {\n";
      for (int j = 0; j < W; ++j) {
        const std::string J = std::to_string(j), a = "acc" + lane(j), c = "comp" + lane(j), in2 = ind + "  ";
        b += ind + "if (o + " + J + " < n) {\n" + in2 + "const long p = r * n + o + " + J + ";\n" + emit_body(plan, 1, "p", in2, e.helpers);
        if (e.kahan)
          b += in2 + kahan_step(a, c, v, e.A) + "\n";
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
    if (e.arg)
      b += "    if (ly < s_ && " + e.better + "(sh[at], shi[at], sh[" + other + "], shi[" + other + "])) { sh[at] = sh[" + other +
           "]; shi[at] = shi[" + other + "]; }\n";
    else
      b += "    if (ly < s_) sh[at] = " + e.combine("sh[at]", "sh[" + other + "]", W) + ";\n";
    b += "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
    result = "sh[lx]", index = "shi[lx]";
  }
  if (!rs.two_stage) {
    if (vectors) {
      b += "  if (ly == 0 && o + " + Ws + " <= n) vstore" + Ws + "(" + e.finish_value(result) + ", 0, out0 + o);\n";
      if (plan.ndim == 0) {  // the last vector, past n: lane by lane
        b += "  else if (ly == 0 && o < n) {\n    const " + AW + " f_ = " + e.finish_value(result) + ";\n";
        for (int j = 1; j < W; ++j) b += "    if (o + " + std::to_string(j) + " < n) out0[o + " + std::to_string(j) + "] = f_" + lane(j) + ";\n";
        b += "    out0[o] = f_" + lane(0) + ";\n  }\n";
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
      b += "    if (o + " + Ws + " <= n) vstore" + Ws + "(a_, 0, pval + part * n + o);\n";
      if (plan.ndim == 0) {  // the last vector, past n: lane by lane
        b += "    else {\n";
        for (int j = 0; j < W; ++j)
          b += "      if (o + " + std::to_string(j) + " < n) pval[part * n + o + " + std::to_string(j) + "] = a_" + lane(j) + ";\n";
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

// The vectors a work-item of online_groups, or the rows a work-item of
// online_columns, loads before it folds them in (online_block_step): on an
// H200, softmax over rows of 65536 floats (2^26) took 213 us against 239 one
// vector at a time, its pair kernel about 74 against 100 (bench/RESULTS.md,
// twenty-eighth session); down the columns of 8192 x 8192 floats the pair
// (as logsumexp) took 94 us against 123 (thirty-fifth session).
constexpr int kOnlineBlock = 4;

// The body of a loop over blocks of kOnlineBlock vectors of dtype t and
// width W, indented by `ind`: each vector in a scope of its own, load(k,
// indent) giving the k-th one's position, coordinates and loads (its body's
// value `v`), kept in g<k>_; then all of them folded into state x together
// (online_block_step).
template <class Load>
std::string online_block_loads(DType t, int W, const std::string& v, const std::string& x, const Load& load, const std::string& ind) {
  std::vector<std::string> gs;
  std::string b = ind + cl_type(t, W);
  for (int k = 0; k < kOnlineBlock; ++k) {
    gs.push_back("g" + std::to_string(k) + "_");
    b += std::string(k ? "," : "") + " " + gs.back();
  }
  b += ";\n";
  for (int k = 0; k < kOnlineBlock; ++k)
    b += ind + "{\n" + load(k, ind + "  ") + ind + "  " + gs[std::size_t(k)] + " = " + v + ";\n" + ind + "}\n";
  return b + online_block_step(t, gs, x, W, ind);
}

// Softmax's pair down the columns in vectors (ReduceSpec::online): each
// lane of a work-item its own state (online_softmax.hpp), the R states of
// each column then merged in a tree in local memory. Where the rows are in
// parts, each part's finished (max, sum relative to it) are the partials,
// maxima then sums at part * n + o, which a work-item per output merges
// (thread_combine). n is a multiple of the width (the scheduler's rule):
// every vector of outputs is whole.
std::string online_columns(const Emitter& e) {
  const ReduceSpec& rs = e.rs;
  const KernelPlan& plan = e.plan;
  const DType t = rs.acc;
  const ColumnGroup g = column_group(rs);
  const int W = plan.width;
  const std::string B = std::to_string(g.across), R = std::to_string(g.rows), Ws = std::to_string(W), TW = cl_type(t, W);
  std::string b = column_block_prologue(plan);
  if (g.rows > 1) b += "  __local " + TW + " shm[" + std::to_string(g.across * g.rows) + "], shs[" + std::to_string(g.across * g.rows) + "];\n";
  b += online_declare(t, "p", W, "  ");
  b += "  if (o < n) {\n" + emit_coordinates(plan, "o", "    ", plan.ndim - rs.kept_dims, plan.ndim);
  // The vector of row `r` (its body's value v<input>): p, its coordinates and its loads.
  const std::string v = "v" + std::to_string(rs.input);
  const auto vector_at = [&](const std::string& r, const std::string& ind) {
    return ind + "const long p = " + r + " * n + o;\n" + emit_coordinates(plan, r, ind, 0, plan.ndim - rs.kept_dims) +
           emit_body(plan, W, "p", ind, e.helpers);
  };
  // Blocks of kOnlineBlock rows, their loads together (online_block_step:
  // one test of the reference a block, where a test after each load kept
  // one in flight), then the rest one by one.
  const std::string K = std::to_string(kOnlineBlock);
  b += "    long r = r_begin + ly;\n    for (; r + " + std::to_string(kOnlineBlock - 1) + " * " + R + " < r_end; r += " + K + " * " + R +
       ") {\n";
  const auto row_k = [&](int k, const std::string& ind) {
    return ind + "const long rk_ = r + " + std::to_string(k) + " * " + R + ";\n" + vector_at("rk_", ind);
  };
  b += online_block_loads(t, W, v, "p", row_k, "      ") + "    }\n";
  b += "    for (; r < r_end; r += " + R + ") {\n" + vector_at("r", "      ") + online_step(t, v, "p", W, "      ");
  b += "    }\n  }\n" + online_finish(t, "p", W, "  ");
  if (g.rows > 1) {
    // Every work-item reaches every barrier (o past n only skips the loop).
    const std::string merge = online_merge(t, W, e.helpers), other = "at + s_ * " + B;
    b += "  const int at = ly * " + B + " + lx;\n  shm[at] = pm; shs[at] = ps;\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    b += "  for (int s_ = " + R + " / 2; s_ > 0; s_ >>= 1) {\n";
    b += "    if (ly < s_) { " + TW + " m_ = shm[at], s2_ = shs[at]; " + merge + "(&m_, &s2_, shm[" + other + "], shs[" + other +
         "]); shm[at] = m_; shs[at] = s2_; }\n";
    b += "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n  pm = shm[lx]; ps = shs[lx];\n";
  }
  b += "  if (ly == 0 && o < n) {\n";
  if (!rs.two_stage) {
    b += "    vstore" + Ws + "(pm, 0, out0 + o);\n    vstore" + Ws + "(" + online_sum(t, "pm", "ps", W) + ", 0, out1 + o);\n";
  } else {
    const std::string T = cl_type(t);
    b += "    __global " + T + "* pmax = (__global " + T + "*)scratch;\n";
    b += "    vstore" + Ws + "(pm, 0, pmax + part * n + o);\n    vstore" + Ws + "(ps, 0, pmax + (groups + part) * n + o);\n";
  }
  return b + "  }\n";
}

// Softmax's pair over rows with a group per output (ReduceSpec::online,
// GroupPerOutput: rows too long for a row kernel, along the last axes): each
// work-item's states (one per lane over whole vectors, then its own over the
// tail, online_softmax.hpp), finished and merged into one, then the group's
// merged in local memory (online_group_combine: the maximum's tree, then the
// sums scaled to it; logsumexp over an H200's rows of 1024 / 2048 floats at
// 2^26 took 84 / 82 us against 90 with a tree of merges, two exps a step;
// bench/RESULTS.md, twenty-eighth session). Split rows store each part's pair at
// part * n + o, as the column blocks do, for thread_combine's work-item per
// output.
std::string online_groups(const Emitter& e) {
  const ReduceSpec& rs = e.rs;
  const KernelPlan& plan = e.plan;
  const DType t = rs.acc;
  const int W = plan.width;
  const std::string L = std::to_string(rs.local_size), Ws = std::to_string(W), T = cl_type(t), g = "v" + std::to_string(rs.input);
  std::string b = "  const int lid = (int)get_local_id(0);\n";
  b += group_prologue(plan);
  b += "  __local " + T + " shm[" + L + "], shs[" + L + "];\n";
  b += emit_coordinates(plan, "o", "  ", 0, rs.kept_dims) + online_declare(t, "p", 1, "  ");
  b += "  long r_tail = r_begin;\n";
  if (W > 1) {
    b += "  {\n" + online_declare(t, "q", W, "    ") + "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
    // The vector of the row at r (its body's value g): p, its coordinates and its loads.
    const auto vector_at = [&](const std::string& r, const std::string& ind) {
      return ind + "const long p = o * m + " + r + ";\n" + emit_reduced_coordinates(plan, r, ind) + emit_body(plan, W, "p", ind, e.helpers);
    };
    // Blocks of kOnlineBlock vectors, their loads together (online_block_step), then the rest one by one.
    const std::string K = std::to_string(kOnlineBlock);
    b += "    long qv = lid;\n    for (; qv + " + std::to_string(kOnlineBlock - 1) + " * " + L + " < nvec; qv += " + K + " * " + L + ") {\n";
    const auto vector_k = [&](int k, const std::string& ind) {
      return vector_at("(r_begin + (qv + " + std::to_string(k) + " * " + L + ") * " + Ws + ")", ind);
    };
    b += online_block_loads(t, W, g, "q", vector_k, "      ") + "    }\n";
    b += "    for (; qv < nvec; qv += " + L + ") {\n" + vector_at("r_begin + qv * " + Ws, "      ") + online_step(t, g, "q", W, "      ") +
         "    }\n" + online_lanes(t, "q", "p", W, e.helpers, "    ");
    b += online_rebase(t, "p", "    ") + "    r_tail = r_begin + nvec * " + Ws + ";\n  }\n";
  }
  b += "  for (long r = r_tail + lid; r < r_end; r += " + L + ") {\n    const long p = o * m + r;\n";
  b += emit_reduced_coordinates(plan, "r", "    ") + emit_body(plan, 1, "p", "    ", e.helpers) + online_step(t, g, "p", 1, "    ");
  b += "  }\n" + online_finish(t, "p", 1, "  ");
  b += online_group_combine(t, L, e.helpers) + "  if (lid == 0) {\n";
  if (!rs.two_stage)
    return b + "    out0[o] = shm[0];\n    out1[o] = " + online_sum(t, "shm[0]", "shs[0]", 1) + ";\n  }\n";
  b += "    __global " + T + "* pmax = (__global " + T + "*)scratch;\n";
  return b + "    pmax[part * n + o] = shm[0];\n    pmax[(groups + part) * n + o] = shs[0];\n  }\n";
}

// A work-item per output combining the `groups` partials a ColumnBlock in
// vectors, or softmax's pair (online), left at part * n + o (combine_plan):
// plain ones as the trees combine them, softmax's pairs merged.
std::string thread_combine(const Emitter& e) {
  const ReduceSpec& rs = e.rs;
  std::string b = "  const long o = get_global_id(0);\n  if (o >= n) return;\n";
  if (rs.online) {
    const std::string T = cl_type(rs.acc);
    b += "  __global const " + T + "* pmax = (__global const " + T + "*)scratch;\n";
    b += "  " + T + " pm = pmax[o], ps = pmax[groups * n + o];\n";
    b += "  for (long k = 1; k < groups; ++k) " + online_merge(rs.acc, 1, e.helpers) + "(&pm, &ps, pmax[k * n + o], pmax[(groups + k) * n + o]);\n";
    return b + "  out0[o] = pm;\n  out1[o] = " + online_sum(rs.acc, "pm", "ps", 1) + ";\n";
  }
  b += partial_pointers(e) + "  " + e.A + " acc = " + reduce_identity(e.info.identity, rs.acc) + ";\n";
  if (is_float(rs.acc) && e.info.summation == Summation::Kahan) {
    // In sequence, where the trees added in pairs: compensated, so that
    // hundreds of parts add no more error than the tree's log2 levels.
    b += "  " + e.A + " comp = (" + e.A + ")(0);\n  for (long k = 0; k < groups; ++k) " + kahan_step("acc", "comp", "pval[k * n + o]", e.A) +
         "\n  acc = acc - comp;\n";
  } else {
    b += "  for (long k = 0; k < groups; ++k) acc = " + e.combine("acc", "pval[k * n + o]", 1) + ";\n";
  }
  return b + e.store("  ", "acc", "idx");
}

// The elements of a GroupPerOutput work-item's range past its last whole
// vector (fewer than W) as one vector: the one that ends the range,
// overlapping the last whole vector, whose lanes before them hold the
// reduction's identity instead (x_), taken by the row's work-item 0 into
// `step`. Where the range has no whole vector, or the loads are aligned
// (then a vector may not start just anywhere: a whole array's last part),
// the scalar loop takes them (tail_start). The scalar loop's dependent
// steps cost more than the vectors: on PoCL, 2^22 floats, sum / max over
// rows of 40 1541 / 1025 us against 625 / 500 over rows of 48 (fifty-third
// session).
std::string overlap_step(const Emitter& e, const std::string& step) {
  if (!overlap_tail(e.plan)) return "";
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), v = "v" + std::to_string(e.rs.input);
  std::string b = "    if (nvec > 0 && lid == 0 && r_end - r_begin > nvec * " + Ws + ") {\n";
  b += "      const long p = o * m + r_end - " + Ws + ";\n" + emit_reduced_coordinates(plan, "r_end - " + Ws, "      ") +
       emit_body(plan, W, "p", "      ", e.helpers);
  b += "      const " + AW + " x_ = select((" + AW + ")(" + reduce_identity(e.info.identity, e.rs.acc) + "), " + v + ", " +
       lane_test(e.rs.acc, W, ">=", "(" + Ws + " - (r_end - r_begin - nvec * " + Ws + "))") + ");\n";
  return b + step + "    }\n";
}
// Where the scalar loop over the elements past the last whole vector starts.
std::string tail_start(const Emitter& e) {
  const std::string whole = "r_begin + nvec * " + std::to_string(e.plan.width);
  return overlap_tail(e.plan) ? "(nvec > 0 ? r_end : " + whole + ")" : whole;
}

// A GroupPerOutput loop in vectors summing into C compensated chains
// (ReduceSpec::chains): each step of C * L vectors gives chain c vector
// q + c * L, each in a block of its own (the body's names repeat), then the
// vectors left take chain 0; the chains meet in vectors, then chain 0's lanes
// are added into acc.
// `tail` is the scalar step of the elements past the last whole vector.
std::string chained_vector_sum(const Emitter& e, int C, const std::string& v, const std::string& L, const std::string& tail) {
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), Cs = std::to_string(C);
  auto chain = [](const std::string& base, int c) { return c == 0 ? base : base + std::to_string(c); };
  auto step = [&](int c, const std::string& ind) {
    const std::string q = c == 0 ? "q" : "(q + " + std::to_string(c) + " * " + L + ")";
    const std::string a = chain("accv", c), k = chain("compv", c), in2 = ind + "  ";
    return ind + "{\n" + in2 + "const long p = o * m + r_begin + " + q + " * " + Ws + ";\n" +
           emit_reduced_coordinates(plan, "r_begin + " + q + " * " + Ws, in2) + emit_body(plan, W, "p", in2, e.helpers) + in2 +
           kahan_step(a, k, v, AW) + "\n" + ind + "}\n";
  };
  std::string b = "  {\n";
  for (int c = 0; c < C; ++c)
    b += "    " + AW + " " + chain("accv", c) + " = (" + AW + ")(0), " + chain("compv", c) + " = (" + AW + ")(0);\n";
  b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n    long q = lid;\n";
  b += "    for (; q + " + std::to_string(C - 1) + " * " + L + " < nvec; q += " + Cs + " * " + L + ") {\n";
  for (int c = 0; c < C; ++c) b += step(c, "      ");
  b += "    }\n    for (; q < nvec; q += " + L + ")\n" + step(0, "      ");
  b += overlap_step(e, "      " + kahan_step("accv", "compv", "x_", AW) + "\n");
  // The chains into chain 0, in vectors, then its lanes as one chain's.
  b += "    accv = accv - compv";
  for (int c = 1; c < C; ++c) b += " + (" + chain("accv", c) + " - " + chain("compv", c) + ")";
  b += ";\n";
  for (int j = 0; j < W; ++j) b += "    acc += accv" + lane(j) + ";\n";
  return b + "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + tail + "    }\n  }\n";
}

// A GroupPerOutput work-item's vector accv (with its NaN flags accv_nan
// where noted apart) into acc: its halves met in vectors down to one value,
// then that value into acc. Only where any order gives the same result:
// integers (exact), and float max / min, whose lanes hold no NaN (fmax
// skips it; the flags say where it was) and whose order decides no more
// than fmax's sign of a zero. A lane at a time through the NaN-propagating
// helper cost a row of 64 floats as much as its loads on PoCL: max over
// rows of 64 at 2^22 822 us against 303 for sum (fifty-third session).
std::string lanes_in_halves(const Emitter& e) {
  const DType t = e.rs.acc;
  std::string a = "accv", f = "accv_nan", s = "    {\n";
  for (int w = e.plan.width / 2; w >= 1; w /= 2) {
    const std::string ws = std::to_string(w), x = "h" + ws + "_", xf = "hn" + ws + "_";
    if (e.nan_apart) {
      s += "      const " + cl_type(t, w) + " " + x + " = " + (e.info.combine == Op::Maximum ? "fmax(" : "fmin(") + a + ".lo, " + a + ".hi);\n";
      s += "      const " + cl_type(detail::signed_of_size(size_of(t)), w) + " " + xf + " = " + f + ".lo | " + f + ".hi;\n";
    } else {
      s += "      const " + cl_type(t, w) + " " + x + " = " + e.combine(a + ".lo", a + ".hi", w) + ";\n";
    }
    a = x, f = xf;
  }
  const std::string last = e.nan_apart ? "(" + f + " ? (" + e.A + ")(NAN) : " + a + ")" : a;
  return s + "      acc = " + e.combine("acc", last, 1) + ";\n    }\n";
}

// An arg-reduction's lane-wise step in vectors whose lanes each see their
// elements in order: the mask (integers of the value's size) of the lanes
// where value v replaces `acc`: strictly better, or NaN where acc is not (the
// better() helper's outcome for a later index: the first of equal values,
// the first NaN, stay).
// (NaN tests as x != x: PoCL's isnan on vectors cost argmax over rows of
// 40 floats 2.36 ms against 2.17.)
std::string arg_takes(const Emitter& e, const std::string& v, const std::string& acc) {
  std::string t = "(" + v + (e.info.combine == Op::Maximum ? " > " : " < ") + acc + ")";
  return is_float(e.rs.acc) ? "(" + t + " | ((" + v + " != " + v + ") & (" + acc + " == " + acc + ")))" : t;
}
std::string arg_index_type(const ReduceSpec& rs, int W) { return cl_type(size_of(rs.acc) == 8 ? DType::Int64 : DType::Int32, W); }

// A GroupPerOutput arg-reduction in vectors (a CPU's: scheduler.cpp): each
// lane keeps its best value and its index (IW lanes, ints where the row's
// indices fit), the lanes then met by better() in scalars, which settles
// ties and NaN by index, then the elements past the last whole vector.
std::string arg_vectors(const Emitter& e, const std::string& L, const std::string& tail) {
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), IW = arg_index_type(e.rs, W), v = "v" + std::to_string(e.rs.input);
  std::string iota = "(" + IW + ")(";
  for (int j = 0; j < W; ++j) iota += (j ? ", " : "") + std::to_string(j);
  std::string b = "  {\n    " + AW + " accv = (" + AW + ")(0);\n    " + IW + " idxv = (" + IW + ")(-1);\n";
  b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
  b += "    for (long q = lid; q < nvec; q += " + L + ") {\n";
  b += "      const long p = o * m + r_begin + q * " + Ws + ";\n";
  b += emit_reduced_coordinates(plan, "r_begin + q * " + Ws, "      ") + emit_body(plan, W, "p", "      ", e.helpers);
  // A lane's first element is taken whatever it is (idxv < 0).
  b += "      const " + IW + " t_ = (idxv < 0) | " + arg_takes(e, v, "accv") + ";\n";
  b += "      accv = select(accv, " + v + ", t_);\n      idxv = select(idxv, (" + IW + ")(r_begin + q * " + Ws + ") + " + iota + "), t_);\n    }\n";
  // The overlapping last vector: its lanes before the elements left take nothing.
  std::string last = "      const " + IW + " t_ = ((idxv < 0) | " + arg_takes(e, "x_", "accv") + ") & " +
                     "(" + lane_test(e.rs.acc, W, ">=", "(" + Ws + " - (r_end - r_begin - nvec * " + Ws + "))") + ");\n";
  last += "      accv = select(accv, x_, t_);\n      idxv = select(idxv, (" + IW + ")(r_end - " + Ws + ") + " + iota + "), t_);\n";
  b += overlap_step(e, last);
  // The lanes meet in halves, in vectors (better()'s order lane by lane:
  // a lane with no element loses, NaN wins, the lower index settles ties),
  // then the last two through better().
  std::string a = "accv", ia = "idxv";
  for (int w = W / 2; w >= 2; w /= 2) {
    const std::string ws = std::to_string(w), T = cl_type(e.rs.acc, w), I = arg_index_type(e.rs, w);
    const std::string x = "a" + ws + "_", y = "b" + ws + "_", ix = "ia" + ws + "_", iy = "ib" + ws + "_", t = "t" + ws + "_";
    b += "    {\n      const " + T + " " + x + " = " + a + ".lo, " + y + " = " + a + ".hi;\n";
    b += "      const " + I + " " + ix + " = " + ia + ".lo, " + iy + " = " + ia + ".hi;\n";
    const std::string cmp = e.info.combine == Op::Maximum ? " > " : " < ", lower = "(" + iy + " < " + ix + ")";
    std::string better = "(" + y + cmp + x + ") | ((" + y + " == " + x + ") & " + lower + ")";
    if (is_float(e.rs.acc))
      better = "select((" + y + " != " + y + ") | " + better + ", (" + y + " != " + y + ") & " + lower + ", (" + x + " != " + x + "))";
    b += "      const " + I + " " + t + " = (" + iy + " >= 0) & ((" + ix + " < 0) | " + better + ");\n";
    a = "c" + ws + "_", ia = "ic" + ws + "_";
    b += "      " + T + " " + a + " = select(" + x + ", " + y + ", " + t + ");\n      " + I + " " + ia + " = select(" + ix + ", " + iy + ", " + t + ");\n";
  }
  for (int j = 0; j < 2; ++j)
    b += "    if (" + e.better + "(acc, idx, " + a + lane(j) + ", (long)" + ia + lane(j) + ")) { acc = " + a + lane(j) + "; idx = " + ia + lane(j) + "; }\n";
  for (int w = W / 2; w >= 2; w /= 2) b += "    }\n";
  return b + "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + tail + "    }\n  }\n";
}

// A work-item's W neighbouring rows of M elements, a lane each
// (ReduceSpec::row_lanes with ThreadPerOutput; scheduler.cpp's
// rows_in_lanes): the W * M elements are loaded as M vectors and turned
// into M vectors of lanes (rows_into_lanes), then each lane folds its row's
// elements in order, as a work-item folds its row in scalars: the same
// operations on the same values, lane by lane, so the same results. The
// outputs are W neighbouring values, stored as one vector. The last
// work-item's rows short of a whole vector take `rows_left`, the scalar
// loop (o from o0_ to n).
std::string lanes_rows(const Emitter& e, const std::string& rows_left) {
  const KernelPlan& plan = e.plan;
  const ReduceSpec& rs = e.rs;
  const int W = plan.width, M = rs.row_lane_length;
  const std::string Ws = std::to_string(W), Ms = std::to_string(M), AW = cl_type(rs.acc, W), v = "v" + std::to_string(rs.input);
  std::string b = "  const long o0_ = (long)get_global_id(0) * " + Ws + ";\n  if (o0_ >= n) return;\n";
  b += "  if (o0_ + " + Ws + " <= n) {\n";
  const RowLanes l = reduction_rows_in_lanes(plan, "    ");
  b += l.load;
  b += "    " + AW + " acc = (" + AW + ")(" + reduce_identity(e.info.identity, rs.acc) + ");\n";
  if (e.kahan) b += "    " + AW + " comp = (" + AW + ")(0);\n";
  const std::string IW = arg_index_type(rs, W);  // an arg-reduction's index: integers of the value's size (select's masks)
  if (e.arg) b += "    " + IW + " idx = (" + IW + ")(0);\n";
  b += e.nan_declare("acc", W, "    ");
  b += "    #pragma unroll\n    for (int r = 0; r < " + Ms + "; ++r) {\n" + l.take + emit_body(plan, W, "r", "      ", e.helpers, &l.rest);
  if (e.arg) {  // each lane's elements in order (arg_takes)
    b += "      if (r == 0) {\n        acc = " + v + ";\n      } else {\n        const " + IW + " t_ = " + arg_takes(e, v, "acc") + ";\n";
    b += "        acc = select(acc, " + v + ", t_);\n        idx = select(idx, (" + IW + ")(r), t_);\n      }\n    }\n";
    return b + "    vstore" + Ws + "(convert_long" + Ws + "(idx), 0, out0 + o0_);\n  } else {\n" + rows_left + "  }\n";
  }
  b += "      " + (e.kahan ? kahan_step("acc", "comp", v, AW) : e.vector_step("acc", v, W)) + "\n    }\n";
  b += e.nan_apply("acc", W, "    ");
  if (e.kahan) b += "    acc = acc - comp;\n";
  b += "    vstore" + Ws + "(" + e.finish_value("acc") + ", 0, out0 + o0_);\n  } else {\n" + rows_left + "  }\n";
  return b;
}

}  // namespace

std::string render_reduce(const KernelPlan& plan, const std::string& name) {
  const ReduceSpec& rs = plan.reduce;
  const ReduceInfo& info = reduce_info(rs.op);
  HelperSet helpers;
  Emitter e{plan, rs, info, helpers, false, info.finish == Finish::Index, cl_type(rs.acc), ""};
  // A split reduction's second kernel only combines partials, plainly, as the trees do.
  e.kahan = is_float(rs.acc) && info.summation == Summation::Kahan && !rs.combine;
  e.nan_apart = !e.arg && !rs.combine && nan_noted(info.combine, rs.acc);
  if (e.arg) {
    std::string nan = is_float(rs.acc) ? "  if (isnan(a)) return isnan(b) && ib < ia;\n  if (isnan(b)) return 1;\n" : "";
    std::string t = replace_all(k_argmax_better, "$NAN", nan);
    t = replace_all(t, "$CMP", info.combine == Op::Maximum ? ">" : "<");
    const std::string fname = "fcl_" + std::string(op_name(rs.op)) + "_better_" + e.A;
    e.better = helpers.use(fname, replace_all(replace_all(t, "$N", fname), "$T", e.A));
  }
  const int W = plan.width;
  const std::string Ws = std::to_string(W);
  const std::string AW = cl_type(rs.acc, W);
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
  // Compensated sums only (ReduceSpec::chains); one chain keeps the text it had.
  const int C = W > 1 && e.kahan && !e.nan_apart ? std::max(1, int(rs.chains)) : 1;
  if (W > 1 && C > 1) {
    b += chained_vector_sum(e, C, v, L, scalar_step("      "));
  } else if (W > 1 && e.arg) {
    b += arg_vectors(e, L, scalar_step("      "));
  } else if (W > 1) {
    b += "  {\n    " + AW + " accv = (" + AW + ")(" + reduce_identity(info.identity, rs.acc) + ");\n";
    if (e.kahan) b += "    " + AW + " compv = (" + AW + ")(0);\n";
    b += e.nan_declare("accv", W, "    ");
    b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
    b += "    for (long q = lid; q < nvec; q += " + L + ") {\n";
    b += "      const long p = o * m + r_begin + q * " + Ws + ";\n";
    b += emit_reduced_coordinates(plan, "r_begin + q * " + Ws, "      ");
    b += emit_body(plan, W, "p", "      ", helpers);
    if (e.kahan)
      b += "      " + kahan_step("accv", "compv", v, AW) + "\n";
    else
      b += "      " + e.vector_step("accv", v, W) + "\n";
    b += "    }\n" + overlap_step(e, "      " + (e.kahan ? kahan_step("accv", "compv", "x_", AW) : e.vector_step("accv", "x_", W)) + "\n");
    if (!e.kahan && (e.nan_apart || !is_float(rs.acc))) {
      b += lanes_in_halves(e);
    } else {
      b += e.nan_apply("accv", W, "    ");
      for (int j = 0; j < W; ++j) {
        if (e.kahan) b += "    acc += accv" + lane(j) + " - compv" + lane(j) + ";\n";
        else b += "    acc = " + e.combine("acc", "accv" + lane(j), 1) + ";\n";
      }
    }
    b += "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + scalar_step("      ") + "    }\n  }\n";
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
