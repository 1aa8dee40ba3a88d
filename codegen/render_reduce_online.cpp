// Softmax's pair of reductions, max(g) and sum(exp(g - max)), in one pass
// (ReduceSpec::online; online_softmax.hpp's states) as a reduction kernel:
// down the columns in vectors, or over rows a group each.
#include "codegen/online_softmax.hpp"
#include "codegen/reduce_emitter.hpp"

#include <vector>

namespace fusecl::codegen {

namespace {

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
  for (int k = 0; k < kOnlineBlock; ++k) b += ind + "{\n" + load(k, ind + "  ") + ind + "  " + gs[std::size_t(k)] + " = " + v + ";\n" + ind + "}\n";
  return b + online_block_step(t, gs, x, W, ind);
}

}  // namespace

// Softmax's pair down the columns in vectors (ReduceSpec::online): each
// lane of a work-item its own state (online_softmax.hpp), the R states of
// each column then merged in a tree in local memory. Where the rows are in
// parts, each part's finished (max, sum relative to it) are the partials,
// maxima then sums at part * n + o, which a work-item per output merges
// (thread_combine). n is a multiple of the width (the scheduler's rule):
// every vector of outputs is whole.
std::string online_columns(const ReduceEmitter& e) {
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
    b += store_values(plan, {"pm", online_sum(t, "pm", "ps", W)}, W, "o", "    ", e.helpers);
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
std::string online_groups(const ReduceEmitter& e) {
  const ReduceSpec& rs = e.rs;
  const KernelPlan& plan = e.plan;
  const DType t = rs.acc;
  const int W = plan.width;
  // A row's work-items: the group's, or its share of them where the group
  // takes several rows (ReduceSpec::rows_per_group; not split rows).
  const int items = group_row_items(rs);
  const std::string L = std::to_string(items), Ws = std::to_string(W), T = cl_type(t), g = "v" + std::to_string(rs.input);
  std::string b = group_lid(rs) + group_prologue(plan);
  if (rs.row_warp == 0 || items > rs.row_warp) b += group_local(rs, T, "shm") + group_local(rs, T, "shs");
  b += emit_coordinates(plan, "o", "  ", 0, rs.kept_dims) + online_declare(t, "p", 1, "  ");
  b += "  long r_tail = r_begin;\n";
  if (W > 1) {
    b += "  {\n" + online_declare(t, "q", W, "    ") + "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
    // The vector of the row at r (its body's value g): p, its coordinates and its loads.
    const auto vector_at = [&](const std::string& r, const std::string& ind) {
      return ind + "const long p = o * m + " + r + ";\n" + emit_reduced_coordinates(plan, r, ind) + emit_body(plan, W, "p", ind, e.helpers);
    };
    if (rs.blocks > 0) {
      // Every work-item of the row as many blocks of rs.blocks vectors
      // (uniform_blocks): the last block's vectors past the row's end take
      // -inf, which leaves the state as it was.
      const auto vector_q = [&](const std::string& q, const std::string& ind) { return vector_at("(r_begin + " + q + " * " + Ws + ")", ind); };
      const auto fold = [&](const std::vector<std::string>& gs, const std::string& ind) { return online_block_step(t, gs, "q", W, ind); };
      b += uniform_blocks(rs.blocks, L, cl_type(t, W), g, "(" + cl_type(t, W) + ")(-INFINITY)", vector_q, fold);
    } else {
      // Blocks of kOnlineBlock vectors, their loads together (online_block_step), then the rest one by one.
      const auto vector_k = [&](int k, const std::string& ind) {
        return vector_at("(r_begin + (qv + " + std::to_string(k) + " * " + L + ") * " + Ws + ")", ind);
      };
      b += "    long qv = lid;\n    for (; qv + " + std::to_string(kOnlineBlock - 1) + " * " + L + " < nvec; qv += " +
           std::to_string(kOnlineBlock) + " * " + L + ") {\n";
      b += online_block_loads(t, W, g, "q", vector_k, "      ") + "    }\n";
      b += "    for (; qv < nvec; qv += " + L + ") {\n" + vector_at("r_begin + qv * " + Ws, "      ") + online_step(t, g, "q", W, "      ") + "    }\n";
    }
    b += online_lanes(t, "q", "p", W, e.helpers, "    ");
    b += online_rebase(t, "p", "    ") + "    r_tail = r_begin + nvec * " + Ws + ";\n  }\n";
  }
  b += "  for (long r = r_tail + lid; r < r_end; r += " + L + ") {\n    const long p = o * m + r;\n";
  b += emit_reduced_coordinates(plan, "r", "    ") + emit_body(plan, 1, "p", "    ", e.helpers) + online_step(t, g, "p", 1, "    ");
  b += "  }\n" + online_finish(t, "p", 1, "  ");
  b += online_group_combine(t, items, rs.row_warp, e.helpers) + "  if (" + group_store_test(rs) + ") {\n";
  if (!rs.two_stage) return b + store_values(plan, {"gm_", online_sum(t, "gm_", "gs_", 1)}, 1, "o", "    ", e.helpers) + "  }\n";
  b += "    __global " + T + "* pmax = (__global " + T + "*)scratch;\n";
  return b + "    pmax[part * n + o] = gm_;\n    pmax[(groups + part) * n + o] = gs_;\n  }\n";
}

}  // namespace fusecl::codegen
