// Moment kernels of float64 bodies (var/std of float64 or integer arrays,
// ReduceSpec::moment with acc float64) in one pass.
//
// render_moment.cpp's float32 kernels sum deviations from one shift per
// work-group in float64: shifting by one of the values loses at most
// log2(n + 1) bits in the final b - a * a / n, and float64 has 29 to spare
// over float32's 24. A float64 value has none to spare, so here no shift
// serves more than kMomentChanBlock values of a lane:
//
// - A work-item (each vector lane on its own) takes its values in blocks of
//   kMomentChanBlock, sums the deviations from the block's first value and
//   their squares, and turns them into the block's (count, mean, M2): at
//   most about 2 log2(33), ten, of 53 bits lost there even where an outlier
//   is the block's first value, usually one or two.
// - Blocks, lanes, work-items and work-groups meet in Chan's pairwise
//   update: M2 = M2a + M2b + d^2 na nb / n, d = mean_b - mean_a, a sum of
//   non-negative terms that cancels nothing.
// - Means are kept relative to the output's first value x0 (every group of
//   an output shares it, partials too), so d's rounding is that of the
//   spread around x0, not of the mean's magnitude: data far from zero (a
//   mean of 1e8 with a spread of 1) loses nothing more.
//
// NumPy's two passes (the mean, then the pairwise sum of squared
// deviations) are exact to a few ulp; this is within a few ulp of them on
// ordinary data and data far from zero, and within 40 where an outlier is
// a block's shift (the tests: against long double's two passes). A division per block and per meeting, none per
// element. The mean output is the values' sum over n, the sum's blocks
// added with Kahan's compensation: within a few ulps of the sum of |x|, as
// the mean kernel's (x0 + the mean's offset errs with |x0 - mean|). NaN
// and inf inputs give NaN, and finite values whose squared deviations
// overflow inf, as NumPy's; where their plain sum overflows too, NaN
// (NumPy: inf).
//
// The forms: a work-group per output (split over groups, the last group or
// a second kernel combining their partials; a row's work-items met through
// warp shuffles where the device has them), a work-item per output, and
// column blocks in vectors (a lane a column). A GPU's short rows in lanes
// are render_lane_rows.cpp's (chan_body: a lane's values one block, the
// row's lanes met in Chan's update). A CPU's rows in lanes and column
// blocks in scalars decline float64 moments (plan_moment): those take the
// two passes.
#include "codegen/body.hpp"
#include "codegen/warp_shuffle.hpp"

#include <stdexcept>

namespace fusecl::codegen {

namespace {

// (n, m, q) += (nb, mb, qb): Chan's update; nothing where nb is 0. Equal
// counts (a tree's work-items, but for a range's last) take f = 1/2 without
// the division, a routine of a dozen instructions on GPUs.
const char* k_chan_merge = R"(static inline void fcl_chan_merge(long* n, double* m, double* q, const long nb, const double mb, const double qb) {
  if (nb == 0) return;
  const long t = *n + nb;
  double f = 0.5;
  if (nb != *n) f = (double)nb / (double)t;
  const double d = mb - *m;
  *q += qb + d * d * ((double)*n * f);
  *m += d * f;
  *n = t;
}
)";

struct ChanEmitter {
  const KernelPlan& plan;
  const ReduceSpec& rs;
  HelperSet& helpers;
  std::string L = std::to_string(group_row_items(rs));  // a row's work-items
  std::string v = "v" + std::to_string(rs.input);
  std::string merge = helpers.use("fcl_chan_merge", k_chan_merge);
  bool mean = rs.moment == 2;

  // x0, the output's first value: the frame of every mean (its groups' too).
  std::string first_value(const std::string& ind, const std::string& guard) const {
    return ind + "double x0 = 0;\n" + ind + "if (" + guard + ") {\n" + ind + "  const long p = o * m;\n" +
           emit_reduced_coordinates(plan, "0", ind + "  ") + emit_body(plan, 1, "p", ind + "  ", helpers) + ind + "  x0 = (double)" + v +
           ";\n" + ind + "}\n";
  }

  // Block sums a_, b_ of nb_ values around shift s_ (scalars or vectors)
  // merged into (cn, cm, cq) lane by lane: the block's mean relative to x0
  // and its M2, clamped below 0 (rounding; NaN stays NaN).
  // (The first block taken as it is, without f_'s division, cost a
  // split var of 2^26 doubles on an H100 224 us against 203, over rows of 16
  // 223 against 213: bench/RESULTS.md, fifty-ninth session.)
  static std::string block_merge(const std::string& ind, const std::string& T, int W) {
    std::string b = ind + "{\n" + ind + "  const double nd = (double)nb_, i_ = 1.0 / nd, f_ = nd / (double)(cn + nb_), g_ = (double)cn * f_;\n";
    b += ind + "  const " + T + " mb = (s_ - x0v) + a_ * i_, t_ = b_ - a_ * (a_ * i_), dl = mb - cm;\n";
    b += ind + "  cq += " + pick("t_", "(" + T + ")(0)", "t_ < 0", W) + " + dl * dl * g_;\n";
    b += ind + "  cm += dl * f_;\n" + ind + "  cn += nb_;\n" + ind + "}\n";
    return b;
  }

  // sum += block's plain sum `add`, Kahan-compensated (c the compensation,
  // subtracted at the end): a sum's error stays a few ulps of the sum of
  // |x| (32 values plainly, then the blocks compensated), as the mean
  // kernel's does. Where the sum is not finite the compensation is 0, so
  // that an inf stays inf (inf - inf would make it NaN).
  static std::string compensated_add(const std::string& ind, const std::string& sum, const std::string& c, const std::string& add, int W) {
    const std::string T = W > 1 ? "double" + std::to_string(W) : "double";
    std::string b = ind + "{\n" + ind + "  const " + T + " y_ = " + add + " - " + c + ", u_ = " + sum + " + y_;\n";
    b += ind + "  " + c + " = " + pick("(u_ - " + sum + ") - y_", "(" + T + ")(0)", W > 1 ? "isfinite(u_) == 0" : "!isfinite(u_)", W) + ";\n";
    return b + ind + "  " + sum + " = u_;\n" + ind + "}\n";
  }

  // A work-item per output: its range in blocks, one after another.
  std::string thread_sums() const {
    const std::string B = std::to_string(kMomentChanBlock);
    std::string b = first_value("  ", "m > 0") + "  const double x0v = x0;\n  long cn = 0;\n  double cm = 0, cq = 0, ss = 0, sc = 0;\n";
    b += "  for (long r0 = 0; r0 < m; r0 += " + B + ") {\n    const long r1 = min(m, r0 + " + B + "), nb_ = r1 - r0;\n";
    b += "    double s_ = 0, a_ = 0, b_ = 0, bs_ = 0;\n    for (long r = r0; r < r1; ++r) {\n      const long p = o * m + r;\n";
    b += emit_reduced_coordinates(plan, "r", "      ") + emit_body(plan, 1, "p", "      ", helpers);
    b += "      const double x_ = (double)" + v + ";\n      if (r == r0) s_ = x_;\n";
    b += "      const double d_ = x_ - s_;\n      a_ += d_;\n      b_ = fma(d_, d_, b_);\n      bs_ += x_;\n    }\n";
    b += block_merge("    ", "double", 1) + compensated_add("    ", "ss", "sc", "bs_", 1) + "  }\n";
    return b + store("  ", "cq", "(ss - sc)");
  }

  // A work-group's range [r_begin, r_end) of output o: each work-item's
  // whole vectors in blocks of kMomentChanBlock a lane, its lanes met,
  // then the values past the last whole vector one by one (Welford's
  // update: a handful), then the group's tree into (shn, shm, shq, shs)[0].
  std::string group_sums() const {
    const int W = plan.width;
    const std::string Ws = std::to_string(W), T = W > 1 ? "double" + Ws : "double", B = std::to_string(kMomentChanBlock);
    std::string b = first_value("  ", "r_end > r_begin");
    b += "  long n_ = 0;\n  double m_ = 0, q_ = 0, ss = 0;\n";
    b += "  const long nvec = (r_end - r_begin) / " + Ws + ";\n  {\n";
    b += "    const " + T + " x0v = (" + T + ")(x0);\n    long cn = 0;\n    " + T + " cm = (" + T + ")(0), cq = cm, vs = cm, vc = cm;\n";
    // Blocks of kMomentChanBlock of this work-item's vectors: q0 its first.
    b += "    for (long q0 = lid; q0 < nvec; q0 += " + L + " * " + B + ") {\n";
    b += "      const long q1 = min(nvec, q0 + " + L + " * " + B + "), nb_ = (q1 - q0 + " + L + " - 1) / " + L + ";\n";
    b += "      " + T + " s_ = (" + T + ")(0), a_ = s_, b_ = s_, bs_ = s_;\n";
    b += "      for (long q = q0; q < q1; q += " + L + ") {\n        const long p = o * m + r_begin + q * " + Ws + ";\n";
    b += emit_reduced_coordinates(plan, "r_begin + q * " + Ws, "        ") + emit_body(plan, W, "p", "        ", helpers);
    b += "        const " + T + " x_ = " + (W > 1 ? "convert_" + T + "(" + v + ")" : "(double)" + v) + ";\n";
    b += "        if (q == q0) s_ = x_;\n        const " + T + " d_ = x_ - s_;\n        a_ += d_;\n        b_ = fma(d_, d_, b_);\n";
    b += "        bs_ += x_;\n      }\n";
    b += block_merge("      ", T, W) + compensated_add("      ", "vs", "vc", "bs_", W) + "    }\n";
    if (W > 1) {
      // The lanes hold cn values each: their mean is the lanes' means'
      // (1 / W exact), M2 theirs and cn times their means' squared spread.
      std::string sm, sq;
      for (int j = 0; j < W; ++j) {
        sm += (j ? " + cm" : "cm") + lane(j);
        sq += (j ? " + cq" : "cq") + lane(j);
        b += "    ss += vs" + lane(j) + " - vc" + lane(j) + ";\n";
      }
      b += "    if (cn > 0) {\n      n_ = cn * " + Ws + ";\n      m_ = (" + sm + ") * (1.0 / " + Ws + ");\n";
      b += "      const " + T + " e_ = cm - (" + T + ")(m_);\n      q_ = (" + sq + ") + (double)cn * (";
      for (int j = 0; j < W; ++j) b += (j ? " + e_" : "e_") + lane(j) + " * e_" + lane(j);
      b += ");\n    }\n";
    } else {
      b += "    n_ = cn;\n    m_ = cm;\n    q_ = cq;\n    ss += vs - vc;\n";
    }
    // The values past the last whole vector: the vector ending the range,
    // its new lanes one by one (overlap_block), else the scalar loop.
    std::string step;
    for (int j = 0; j < W; ++j) step += "      if (k_" + lane(j) + ") " + welford(v + lane(j)) + "\n";
    b += overlap_block(plan, DType::Float64, helpers, step);
    b += "    const long r_tail = " + std::string(overlap_tail(plan) ? "nvec > 0 ? r_end : " : "") + "r_begin + nvec * " + Ws + ";\n";
    b += "    for (long r = r_tail + lid; r < r_end; r += " + L + ") {\n      const long p = o * m + r;\n";
    b += emit_reduced_coordinates(plan, "r", "      ") + emit_body(plan, 1, "p", "      ", helpers);
    b += "      " + welford(v) + "\n    }\n  }\n";
    return b + tree("  ");
  }

  // One value into (n_, m_, q_, ss): Welford's update, relative to x0.
  static std::string welford(const std::string& value) {
    return "{ const double x_ = (double)" + value + ", d_ = (x_ - x0) - m_; n_ += 1; m_ += d_ / (double)n_; q_ += d_ * ((x_ - x0) - m_); ss += x_; }";
  }

  // The group's (n_, m_, q_, ss) met into element 0 of (shn, shm, shq,
  // shs): Chan's update a level, in local memory, or through NVIDIA warps'
  // shuffles (ReduceSpec::row_warp) down to each warp's first lane, which
  // lid 0 then meets in order after one barrier. On an H100, var of 2^26
  // doubles over rows of 1024 / 512 / 64 took 190 / 197 / 214 us so against
  // 199 / 204 / 225 in local memory (fifty-ninth session).
  std::string tree(const std::string& ind) const {
    if (rs.row_warp > 0) return warp_tree(ind);
    std::string s = ind + "shn[lid] = n_; shm[lid] = m_; shq[lid] = q_; shs[lid] = ss;\n" + ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += ind + "for (int s_ = " + L + " / 2; s_ > 0; s_ >>= 1) {\n";
    s += ind + "  if (lid < s_) {\n";
    s += ind + "    long n2 = shn[lid];\n" + ind + "    double m2 = shm[lid], q2 = shq[lid];\n";
    s += ind + "    " + merge + "(&n2, &m2, &q2, shn[lid + s_], shm[lid + s_], shq[lid + s_]);\n";
    s += ind + "    shn[lid] = n2; shm[lid] = m2; shq[lid] = q2; shs[lid] += shs[lid + s_];\n";
    s += ind + "  }\n" + ind + "  barrier(CLK_LOCAL_MEM_FENCE);\n" + ind + "}\n";
    return s;
  }

  std::string warp_tree(const std::string& ind) const {
    const int T = group_row_items(rs), Wp = rs.row_warp, lanes = std::min(T, Wp), warps = T / lanes;
    std::string s;
    for (int d = lanes / 2; d > 0; d /= 2) {
      const std::string ds = std::to_string(d) + "u";
      s += ind + "{\n" + ind + "  " + shuffle_down(helpers, DType::Int64, "const long n2 =", "n_", ds) + "\n";
      s += ind + "  " + shuffle_down(helpers, DType::Float64, "const double m2 =", "m_", ds) + "\n";
      s += ind + "  " + shuffle_down(helpers, DType::Float64, "const double q2 =", "q_", ds) + "\n";
      s += ind + "  " + shuffle_down(helpers, DType::Float64, "ss +=", "ss", ds) + "\n";
      s += ind + "  " + merge + "(&n_, &m_, &q_, n2, m2, q2);\n" + ind + "}\n";
    }
    if (warps == 1) return s + ind + "if (lid == 0) { shn[0] = n_; shm[0] = m_; shq[0] = q_; shs[0] = ss; }\n";
    s += ind + "if ((lid & " + std::to_string(Wp - 1) + ") == 0) { const int w_ = lid / " + std::to_string(Wp) +
         "; shn[w_] = n_; shm[w_] = m_; shq[w_] = q_; shs[w_] = ss; }\n" + ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += ind + "if (lid == 0) {\n" + ind + "  for (int w_ = 1; w_ < " + std::to_string(warps) + "; ++w_) {\n";
    s += ind + "    " + merge + "(&n_, &m_, &q_, shn[w_], shm[w_], shq[w_]);\n" + ind + "    ss += shs[w_];\n" + ind + "  }\n";
    return s + ind + "  shn[0] = n_; shm[0] = m_; shq[0] = q_; shs[0] = ss;\n" + ind + "}\n";
  }

  // ColumnBlock in vectors (ReduceSpec::kept_inner): each lane a column,
  // each work-item its rows ly, ly + R, ... in blocks of kMomentChanBlock
  // (every lane of a work-item counts the same rows), the R work-items
  // down a column met in local memory by Chan's update, lane by lane
  // (written out in vectors: fcl_chan_merge is one lane's, and a vector's
  // lanes share one count).
  // Partials at part * n + o (combine_plan's thread_combine). n is a
  // multiple of the width (the scheduler's rule).
  std::string column_sums() const {
    const int W = plan.width;
    const ColumnGroup g = column_group(rs);
    const std::string Ws = std::to_string(W), T = "double" + Ws, B = std::to_string(g.across), R = std::to_string(g.rows),
                      S = std::to_string(g.across * g.rows), K = std::to_string(kMomentChanBlock);
    const int reduced = plan.ndim - rs.kept_dims;
    std::string b = column_block_prologue(plan);
    if (g.rows > 1) b += "  __local long shn[" + S + "];\n  __local " + T + " shm[" + S + "], shq[" + S + "], shs[" + S + "];\n";
    b += "  " + T + " x0v = (" + T + ")(0), cm = x0v, cq = x0v, vs = x0v, vc = x0v;\n  long cn = 0;\n";
    b += "  if (o < n) {\n" + emit_coordinates(plan, "o", "    ", reduced, plan.ndim);
    b += "    if (m > 0) {\n      const long p = o;\n" + emit_coordinates(plan, "0", "      ", 0, reduced) +
         emit_body(plan, W, "p", "      ", helpers) + "      x0v = convert_" + T + "(" + v + ");\n    }\n";
    b += "    for (long r0 = r_begin + ly; r0 < r_end; r0 += " + R + " * " + K + ") {\n";
    b += "      const long r1 = min(r_end, r0 + " + R + " * " + K + "), nb_ = (r1 - r0 + " + R + " - 1) / " + R + ";\n";
    b += "      " + T + " s_ = (" + T + ")(0), a_ = s_, b_ = s_, bs_ = s_;\n";
    b += "      for (long r = r0; r < r1; r += " + R + ") {\n        const long p = r * n + o;\n";
    b += emit_coordinates(plan, "r", "        ", 0, reduced) + emit_body(plan, W, "p", "        ", helpers);
    b += "        const " + T + " x_ = convert_" + T + "(" + v + ");\n        if (r == r0) s_ = x_;\n";
    b += "        const " + T + " d_ = x_ - s_;\n        a_ += d_;\n        b_ = fma(d_, d_, b_);\n        bs_ += x_;\n      }\n";
    b += block_merge("      ", T, W) + compensated_add("      ", "vs", "vc", "bs_", W) + "    }\n  }\n";
    b += "  vs -= vc;\n";
    if (g.rows > 1) {  // every work-item reaches every barrier
      const std::string other = "at + s_ * " + B;
      b += "  const int at = ly * " + B + " + lx;\n  shn[at] = cn; shm[at] = cm; shq[at] = cq; shs[at] = vs;\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      b += "  for (int s_ = " + R + " / 2; s_ > 0; s_ >>= 1) {\n    if (ly < s_ && shn[" + other + "] > 0) {\n";
      b += "      const long na = shn[at], nb = shn[" + other + "], t = na + nb;\n";
      b += "      const double f_ = nb == na ? 0.5 : (double)nb / (double)t, g_ = (double)na * f_;\n";
      b += "      const " + T + " dl = shm[" + other + "] - shm[at];\n";
      b += "      shq[at] += shq[" + other + "] + dl * dl * g_;\n      shm[at] += dl * f_;\n      shn[at] = t;\n";
      b += "      shs[at] += shs[" + other + "];\n    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
      b += "  cn = shn[lx]; cm = shm[lx]; cq = shq[lx]; vs = shs[lx];\n";
    }
    b += "  if (ly == 0 && o < n) {\n";
    if (!rs.two_stage) {
      std::string var = "select(cq, (" + T + ")(INFINITY), isnan(cq) & isfinite(vs)) / s" + std::to_string(rs.divisor);
      if (rs.post_sqrt) var = "sqrt(" + var + ")";
      std::vector<std::string> values{var};
      if (mean) values.push_back("vs / s" + std::to_string(rs.divisor + 1));
      return b + store_values(plan, values, W, "o", "    ", helpers) + "  }\n";
    }
    b += moment_partial_pointers(rs) + "    const long at_ = part * n + o;\n";
    b += "    vstore" + Ws + "((long" + Ws + ")(cn), 0, pn + at_);\n    vstore" + Ws + "(cm, 0, pm + at_);\n";
    b += "    vstore" + Ws + "(cq, 0, pq + at_);\n    vstore" + Ws + "(vs, 0, ps + at_);\n    vstore" + Ws + "(x0v, 0, px + at_);\n";
    return b + "  }\n";
  }

  // A work-item per output meeting the partials column_sums left at
  // part * n + o.
  std::string thread_combine() const {
    std::string b = "  const long o = get_global_id(0);\n  if (o >= n) return;\n" + moment_partial_pointers(rs);
    b += "  const double x0 = px[o];\n  long n_ = 0;\n  double m_ = 0, q_ = 0, ss = 0;\n";
    b += "  for (long k = 0; k < groups; ++k) {\n    const long at = k * n + o;\n";
    b += "    " + merge + "(&n_, &m_, &q_, pn[at], pm[at], pq[at]);\n    ss += ps[at];\n  }\n";
    return b + store("  ", "q_", "ss");
  }

  // Output o's partials met into (shn, shm, shq, shs)[0], x0 from the first.
  std::string combine_partials(const std::string& ind) const {
    std::string s = ind + "const double x0 = px[o * groups];\n";
    s += ind + "long n_ = 0;\n" + ind + "double m_ = 0, q_ = 0, ss = 0;\n";
    s += ind + "for (long k = lid; k < groups; k += " + L + ") {\n";
    s += ind + "  const long at = o * groups + k;\n" + ind + "  " + merge + "(&n_, &m_, &q_, pn[at], pm[at], pq[at]);\n";
    s += ind + "  ss += ps[at];\n" + ind + "}\n";
    return s + tree(ind);
  }

  // The results of output o from its count, mean offset, M2 and sum.
  std::string store(const std::string& ind, const std::string& cq, const std::string& ss) const {
    return chan_moment_store(plan, ind, cq, ss, helpers);
  }
};

}  // namespace

std::string chan_moment_store(const KernelPlan& plan, const std::string& ind, const std::string& q, const std::string& s, HelperSet& helpers) {
  const ReduceSpec& rs = plan.reduce;
  // M2 is NaN where an input is NaN or inf (inf - inf in its sums), and
  // where finite values' squares overflow: NumPy's variance is inf there,
  // told apart by the plain sum, finite unless the values' sum overflows.
  std::string var = "(isnan(" + q + ") && isfinite(" + s + ") ? INFINITY : " + q + ") / s" + std::to_string(rs.divisor);
  if (rs.post_sqrt) var = "sqrt(" + var + ")";
  std::vector<std::string> values{var};
  if (rs.moment == 2) values.push_back("(" + s + ") / s" + std::to_string(rs.divisor + 1));
  return store_values(plan, values, 1, "o", ind, helpers);
}

std::string render_moment_chan(const KernelPlan& plan, const std::string& name) {
  const ReduceSpec& rs = plan.reduce;
  HelperSet helpers;
  ChanEmitter e{plan, rs, helpers};
  const std::string sig = param_list(plan);
  auto kernel = [&](const std::string& body, bool group) {
    return reduce_kernel_text(plan, name, sig, helpers, body, group ? rs.local_size : 0);
  };
  if ((rs.strategy == ReduceStrategy::ColumnBlock && !rs.kept_inner) || rs.row_lanes)
    throw std::logic_error("internal: no float64 moment kernel of this form (plan_moment declines it)");
  if (rs.strategy == ReduceStrategy::ThreadPerOutput && rs.combine) return kernel(e.thread_combine(), false);
  if (rs.strategy == ReduceStrategy::ColumnBlock) {
    const ColumnGroup g = column_group(rs);
    return reduce_kernel_text(plan, name, sig, helpers, e.column_sums(), g.across, g.rows);
  }

  const std::string kept = emit_coordinates(plan, "o", "  ", 0, rs.kept_dims);  // once an output
  if (rs.strategy == ReduceStrategy::ThreadPerOutput)
    return kernel("  const long o = get_global_id(0);\n  if (o >= n) return;\n" + kept + e.thread_sums(), false);

  std::string b = group_lid(rs);
  if (rs.combine) {  // the second kernel of a split moment: a group per output
    b += "  const long o = (long)get_group_id(0);\n" + moment_locals(rs) + moment_partial_pointers(rs);
    b += e.combine_partials("  ");
    b += "  if (lid == 0) {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  b += group_prologue(plan) + moment_locals(rs);
  if (rs.two_stage && rs.finish == SplitFinish::LastGroup) b += "  __local int is_last;\n";
  b += kept + e.group_sums();
  if (!rs.two_stage) {
    b += "  if (" + group_store_test(rs) + ") {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  // The last group's meeting in a block of its own: its x0 and sums are the partials'.
  b += moment_partial_pointers(rs);
  b += moment_split_end(rs, "    pn[at] = shn[0]; pm[at] = shm[0]; pq[at] = shq[0]; ps[at] = shs[0]; px[at] = x0;\n",
                        rs.finish == SplitFinish::LastGroup ? "  {\n" + e.combine_partials("    ") + "  }\n" : "",
                        e.store("    ", "shq[0]", "shs[0]"));
  return kernel(b, true);
}

}  // namespace fusecl::codegen
