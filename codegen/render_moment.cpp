// Moment kernels (ReduceSpec::moment): var or std of a float32 body in one
// pass over it (float64 bodies: render_moment_chan.cpp), and with moment ==
// 2 its mean too, where the graph's two-pass definition (mean, then the
// mean of squared deviations) reads the input twice and takes two or three
// kernels more.
//
// Accuracy: a work-group's work-items sum, in float64, the deviations of
// their values from one shift common to the group (one of the group's
// values) and the squares of those deviations; the sums add in the group's
// tree, and the groups' (count, mean, M2) meet as sums of deviations from
// the first group's mean. A work-item per output (short rows) sums its
// range that way, in blocks where it is long (thread_sums). In float64
// nothing a float32 input holds can overflow (the squares of FLT_MAX are
// far from DBL_MAX), and the rounding is that of
// float64, far below float32's: the result is the two-pass variance rounded
// once to float32, NaN and inf propagating as NumPy's do (an inf makes the
// deviations inf - inf). The mean output is the float64 sum rounded to
// float32, divided by n in float32, as the mean kernel's is (its compensated
// float32 sum also errs below an ulp of the sum).
//
// Plain sums instead of Chan's pairwise combination in every group's tree
// and across each work-item's lanes (a float64 division each): mean and std
// of 2^26 floats 85 us instead of 88 on an H200, 20 instead of 23 at 2^21
// (bench/results/nvidia-h200.issue13-session12.md).
#include "codegen/body.hpp"
#include "codegen/warp_shuffle.hpp"

namespace fusecl::codegen {

namespace {

struct MomentEmitter {
  const KernelPlan& plan;
  const ReduceSpec& rs;
  HelperSet& helpers;
  std::string L = std::to_string(group_row_items(rs));  // a row's work-items

  // A work-item per output (short rows, or columns with outputs enough):
  // deviations from the range's first value and their squares summed as
  // group_sums does, with no division per element, and M2 / divisor at the
  // end as (n b - a^2) / (n divisor), one division. A range longer than
  // kMomentThreadValues (ReduceSpec::moment_blocks) is summed in blocks of
  // that many, each around its own first value, met by Chan's update (three
  // divisions a block); that loop nest costs a short range registers and
  // time (var over rows of 12 on an H200: 90 us against 73), so a short
  // range takes one loop. cs sums the values for the mean output. Welford's
  // update, before, took a float64 division per element, which a GPU issues
  // as a routine of a dozen instructions: 133 us over rows of 4 against 90
  // now (bench/RESULTS.md, thirty-ninth session).
  std::string thread_sums(const std::string& I = "  ") const {
    const std::string v = "v" + std::to_string(rs.input), J = I + "  ", K = J + "  ";
    auto step = [&](const std::string& first, const std::string& ind) {
      return ind + "const long p = o * m + r;\n" + emit_reduced_coordinates(plan, "r", ind) + emit_body(plan, 1, "p", ind, helpers) +
             ind + "const double x_ = (double)" + v + ";\n" + ind + "if (r == " + first + ") sh = x_;\n" + ind +
             "const double d_ = x_ - sh;\n" + ind + "sa += d_;\n" + ind + "sb = fma(d_, d_, sb);\n" + ind + "cs += x_;\n";
    };
    std::string b = I + "double cs = 0;\n";
    if (!rs.moment_blocks) {
      b += I + "double sh = 0, sa = 0, sb = 0;\n" + I + "for (long r = 0; r < m; ++r) {\n" + step("0", J) + I + "}\n";
      // Clamped below 0: rounding (NaN stays NaN; m == 0 gives 0 / 0, NaN).
      b += I + "const double n_ = (double)m, u_ = n_ * sb - sa * sa;\n";
      return b + store(I, "u_ < 0 ? 0.0 : u_", "cs", "n_");
    }
    const std::string B = std::to_string(kMomentThreadValues);
    b += I + "long cn = 0;\n" + I + "double cm = 0, cq = 0;\n" + I + "for (long r0 = 0; r0 < m; r0 += " + B + ") {\n";
    b += J + "const long r1 = min(m, r0 + " + B + ");\n" + J + "double sh = 0, sa = 0, sb = 0;\n";
    b += J + "for (long r = r0; r < r1; ++r) {\n" + step("r0", K) + J + "}\n";
    // The block's M2 (clamped) and mean, then Chan's merge; the first
    // block's f_ is 1 and cn 0, so it is taken exactly.
    b += J + "const long nb = r1 - r0;\n" + J + "const double nd = (double)nb, t_ = sb - sa * (sa / nd), mb = sh + sa / nd;\n";
    b += J + "const double f_ = nd / (double)(cn + nb), dl = mb - cm;\n";
    b += J + "cq += (t_ < 0 ? 0.0 : t_) + dl * dl * ((double)cn * f_);\n" + J + "cm += dl * f_;\n" + J + "cn += nb;\n" + I + "}\n";
    return b + store(I, "cq", "cs");
  }

  // W neighbouring rows of M values, a lane each (ReduceSpec::row_lanes
  // with ThreadPerOutput; lane_rows.cpp's rows_in_lanes): the rows loaded
  // in vectors and turned into lanes (reduction_rows_in_lanes), then each
  // lane sums its row as thread_sums does a row in scalars, in float64
  // vectors: the same operations on the same values, lane by lane, so the
  // same results; the W variances (and means) stored as one vector each.
  // The last work-item's rows short of a whole vector take thread_sums.
  std::string lanes_sums() const {
    const int W = plan.width, M = rs.row_lane_length;
    const std::string Ws = std::to_string(W), DW = "double" + Ws, FW = "float" + Ws, v = "v" + std::to_string(rs.input);
    std::string b = "  const long o0_ = (long)get_global_id(0) * " + Ws + ";\n  if (o0_ >= n) return;\n";
    b += "  if (o0_ + " + Ws + " <= n) {\n";
    const RowLanes l = reduction_rows_in_lanes(plan, "    ");
    b += l.load + "    " + DW + " sh = (" + DW + ")(0), sa = sh, sb = sh, cs = sh;\n";
    b += "    #pragma unroll\n    for (int r = 0; r < " + std::to_string(M) + "; ++r) {\n" + l.take +
         emit_body(plan, W, "r", "      ", helpers, &l.rest);
    b += "      const " + DW + " x_ = convert_" + DW + "(" + v + ");\n      if (r == 0) sh = x_;\n";
    b += "      const " + DW + " d_ = x_ - sh;\n      sa += d_;\n      sb = fma(d_, d_, sb);\n      cs += x_;\n    }\n";
    // As moment_store: M2 clamped below 0, over n times the divisor.
    b += "    const double n_ = (double)m;\n    const " + DW + " u_ = n_ * sb - sa * sa;\n";
    std::string var = "(" + pick("u_", "(" + DW + ")(0)", "u_ < 0", W) + ") / (n_ * s" + std::to_string(rs.divisor) + ")";
    if (rs.post_sqrt) var = "sqrt(" + var + ")";
    std::vector<std::string> values{"convert_" + FW + "(" + var + ")"};
    if (rs.moment == 2) values.push_back("convert_" + FW + "(cs) / s" + std::to_string(rs.divisor + 1));
    b += store_values(plan, values, W, "o0_", "    ", helpers);
    return b + "  } else {\n    for (long o = o0_; o < n; ++o) {\n" + thread_sums("      ") + "    }\n  }\n";
  }

  // The results of output o from M2 `q` and sum `s` (float64), M2 over
  // `scale` times the divisor where one is given.
  std::string store(const std::string& ind, const std::string& q, const std::string& s, const std::string& scale = "") const {
    return moment_store(plan, ind, q, s, scale, helpers);
  }

  // Tree of the group's plain sums (shm, shq, shs, and with `counts` shn) into element 0.
  std::string sum_tree(const std::string& ind, bool counts) const {
    std::string s = ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += ind + "for (int s_ = " + L + " / 2; s_ > 0; s_ >>= 1) {\n";
    s += ind + "  if (lid < s_) { shm[lid] += shm[lid + s_]; shq[lid] += shq[lid + s_]; shs[lid] += shs[lid + s_];" +
         (counts ? " shn[lid] += shn[lid + s_];" : "") + " }\n";
    s += ind + "  barrier(CLK_LOCAL_MEM_FENCE);\n" + ind + "}\n";
    return s;
  }

  // The row's sums (sa, sb, and with the mean ss) into (shm, shq, shs)[0]
  // for lid 0 through NVIDIA warps' shuffles (ReduceSpec::row_warp): a tree
  // in each warp down to the row's first lane there, then, where the row has
  // several warps, lid 0 adds the warps' sums in order, after one barrier.
  // Where the tree in local memory takes a barrier a level (six for rows of
  // 1024: 64 work-items of double2), this takes one or none.
  std::string warp_sums(bool mean) const {
    const int T = group_row_items(rs), Wp = rs.row_warp, lanes = std::min(T, Wp), warps = T / lanes;
    std::vector<std::string> xs{"sa", "sb"};
    if (mean) xs.push_back("ss");
    std::string s;
    for (int d = lanes / 2; d > 0; d /= 2)
      for (const auto& x : xs) s += "  " + shuffle_down(helpers, DType::Float64, x + " +=", x, std::to_string(d) + "u") + "\n";
    if (warps == 1) return s + "  if (lid == 0) { shm[0] = sa; shq[0] = sb; shs[0] = ss; }\n";
    s += "  if ((lid & " + std::to_string(Wp - 1) + ") == 0) { const int w_ = lid / " + std::to_string(Wp) +
         "; shm[w_] = sa; shq[w_] = sb; shs[w_] = ss; }\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += "  if (lid == 0)\n    for (int w_ = 1; w_ < " + std::to_string(warps) + "; ++w_) { shm[0] += shm[w_]; shq[0] += shq[w_]; shs[0] += shs[w_]; }\n";
    return s;
  }

  // lid 0's line that turns the tree's sums of `count` deviations (shm[0])
  // and of their squares (shq[0]) into M2 = b - a * a / n, as t_; the caller
  // clamps t_ below 0, which is rounding (NaN stays NaN: inf - inf in the sums).
  static std::string m2_of_sums(const std::string& ind, const std::string& count) {
    return ind + "const double nd = " + count + ", a_ = shm[0], t_ = shq[0] - a_ * (a_ / nd);\n";
  }

  // The group's range [r_begin, r_end) of output o into (shn, shm, shq,
  // shs)[0] (count, mean, M2, sum; lid 0 only). Every work-item sums, in
  // float64, the deviations of its values from one shift common to the
  // group, the range's first value, and their squares: no division per
  // element and none in the group's tree, whose sums simply add. At the end
  // mean = shift + a / n and M2 = b - a * a / n. A shift that is one of the
  // values bounds the cancellation there: n (shift - mean)^2 is at most n
  // times M2, so M2 keeps all but log2(n + 1) of float64's 53 bits (float32
  // needs 24; the scheduler keeps n at most kMomentGroupValues, and the
  // test's worst case puts an outlier first).
  std::string group_sums(int W) const {
    const std::string Ws = std::to_string(W), DW = "double" + Ws, v = "v" + std::to_string(rs.input);
    const bool mean = rs.moment == 2;
    std::string b = "  double sh = 0;\n  if (r_end > r_begin) {\n    const long p = o * m + r_begin;\n";
    b += emit_reduced_coordinates(plan, "r_begin", "    ") + emit_body(plan, 1, "p", "    ", helpers) + "    sh = (double)" + v + ";\n  }\n";
    b += "  double sa = 0, sb = 0, ss = 0;\n  long r_tail = r_begin;\n";
    if (W > 1) {
      // One vector a step, one chain of sums. Two vectors a step (two
      // loads in flight, two chains) took more registers and time on both
      // kinds of device: var of 2^26 floats on an H200 81 us against 72,
      // over rows of 256 75 against 72; of 2^22 on PoCL 3.2-3.6 ms against
      // 1.7-2.3 (bench/RESULTS.md, thirty-ninth session).
      const std::string z = "(" + DW + ")(0)";
      b += "  {\n    const " + DW + " shv = (" + DW + ")(sh);\n    " + DW + " a_ = " + z + ", b_ = " + z + (mean ? ", vs = " + z : "") + ";\n";
      b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
      b += "    for (long q = lid; q < nvec; q += " + L + ") {\n";
      b += "      const long p = o * m + r_begin + q * " + Ws + ";\n";
      b += emit_reduced_coordinates(plan, "r_begin + q * " + Ws, "      ") + emit_body(plan, W, "p", "      ", helpers);
      b += "      const " + DW + " x_ = convert_" + DW + "(" + v + ");\n";
      b += "      const " + DW + " d_ = x_ - shv;\n      a_ += d_;\n      b_ = fma(d_, d_, b_);\n";
      if (mean) b += "      vs += x_;\n";  // the mean's own sum (shift + a would turn an inf shift into NaN)
      b += "    }\n";
      // The values past the last whole vector as the vector ending the
      // range, its lanes before them adding nothing (overlap_block); the
      // scalar loop then only where the range has no whole vector. Var over
      // rows of 40 floats on PoCL at 2^22: 726 us against 840 one by one
      // (fifty-third session).
      std::string last = "      const " + DW + " x_ = select(shv, convert_" + DW + "(" + v + "), k_), d_ = x_ - shv;\n";
      last += "      a_ += d_;\n      b_ = fma(d_, d_, b_);\n";
      if (mean) last += "      vs += select(" + z + ", x_, k_);\n";
      b += overlap_block(plan, DType::Float64, helpers, last);
      for (int j = 0; j < W; ++j) {
        b += "    sa += a_" + lane(j) + "; sb += b_" + lane(j) + ";";
        b += mean ? " ss += vs" + lane(j) + ";\n" : "\n";
      }
      b += "    r_tail = " + std::string(overlap_tail(plan) ? "nvec > 0 ? r_end : " : "") + "r_begin + nvec * " + Ws + ";\n  }\n";
    }
    b += "  for (long r = r_tail + lid; r < r_end; r += " + L + ") {\n    const long p = o * m + r;\n";
    b += emit_reduced_coordinates(plan, "r", "    ") + emit_body(plan, 1, "p", "    ", helpers);
    b += "    const double x_ = (double)" + v + ", d_ = x_ - sh;\n    sa += d_;\n    sb = fma(d_, d_, sb);\n";
    b += mean ? "    ss += x_;\n  }\n" : "  }\n";
    b += rs.row_warp > 0 ? warp_sums(mean) : "  shm[lid] = sa; shq[lid] = sb; shs[lid] = ss;\n" + sum_tree("  ", false);
    b += "  if (lid == 0) {\n" + m2_of_sums("    ", "(double)(r_end - r_begin)");
    b += "    shn[0] = r_end - r_begin; shm[0] = sh + a_ / nd; shq[0] = t_ < 0 ? 0.0 : t_;\n  }\n";
    return b;
  }

  // ColumnBlock in vectors (ReduceSpec::kept_inner): each lane a column,
  // the deviations from the first value of the column's part of the rows
  // (common to the R work-items down it) and their squares summed in float64
  // vectors, the R sums of each column then added in a tree in local memory.
  // Finished as group_sums is, lane by lane; partials at part * n + o
  // (combine_plan). n is a multiple of the width (the scheduler's rule).
  std::string column_sums() const {
    const int W = plan.width;
    const ColumnGroup g = column_group(rs);
    const std::string Ws = std::to_string(W), DW = "double" + Ws, FW = "float" + Ws, v = "v" + std::to_string(rs.input);
    const std::string B = std::to_string(g.across), R = std::to_string(g.rows), S = std::to_string(g.across * g.rows);
    const int reduced = plan.ndim - rs.kept_dims;
    const bool mean = rs.moment == 2;
    std::string b = column_block_prologue(plan);
    if (g.rows > 1) b += "  __local " + DW + " sha[" + S + "], shb[" + S + "], shs[" + S + "];\n";
    b += "  " + DW + " shv = (" + DW + ")(0), sa = shv, sb = shv, ss = shv;\n";
    b += "  if (o < n) {\n" + emit_coordinates(plan, "o", "    ", reduced, plan.ndim);
    b += "    if (r_end > r_begin) {\n      const long p = r_begin * n + o;\n" + emit_coordinates(plan, "r_begin", "      ", 0, reduced) +
         emit_body(plan, W, "p", "      ", helpers) + "      shv = convert_" + DW + "(" + v + ");\n    }\n";
    b += "    #pragma unroll 4\n    for (long r = r_begin + ly; r < r_end; r += " + R + ") {\n      const long p = r * n + o;\n";
    b += emit_coordinates(plan, "r", "      ", 0, reduced) + emit_body(plan, W, "p", "      ", helpers);
    b += "      const " + DW + " x_ = convert_" + DW + "(" + v + "), d_ = x_ - shv;\n      sa += d_;\n      sb = fma(d_, d_, sb);\n";
    b += mean ? "      ss += x_;\n    }\n  }\n" : "    }\n  }\n";
    if (g.rows > 1) {  // every work-item reaches every barrier
      const std::string other = "at + s_ * " + B;
      b += "  const int at = ly * " + B + " + lx;\n  sha[at] = sa; shb[at] = sb; shs[at] = ss;\n  barrier(CLK_LOCAL_MEM_FENCE);\n";
      b += "  for (int s_ = " + R + " / 2; s_ > 0; s_ >>= 1) {\n";
      b += "    if (ly < s_) { sha[at] += sha[" + other + "]; shb[at] += shb[" + other + "]; shs[at] += shs[" + other + "]; }\n";
      b += "    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n  sa = sha[lx]; sb = shb[lx]; ss = shs[lx];\n";
    }
    b += "  if (ly == 0 && o < n) {\n    const double nd = (double)(r_end - r_begin);\n";
    b += "    const " + DW + " t_ = sb - sa * (sa / nd), q_ = " + pick("t_", "(" + DW + ")(0)", "t_ < 0", W) + ";\n";
    if (!rs.two_stage) {
      std::string var = "q_ / s" + std::to_string(rs.divisor);
      if (rs.post_sqrt) var = "sqrt(" + var + ")";
      std::vector<std::string> values{"convert_" + FW + "(" + var + ")"};
      if (mean) values.push_back("convert_" + FW + "(ss) / s" + std::to_string(rs.divisor + 1));
      return b + store_values(plan, values, W, "o", "    ", helpers) + "  }\n";
    }
    b += moment_partial_pointers(rs) + "    const long at_ = part * n + o;\n";
    b += "    vstore" + Ws + "((long" + Ws + ")(r_end - r_begin), 0, pn + at_);\n    vstore" + Ws + "(shv + sa / nd, 0, pm + at_);\n";
    b += "    vstore" + Ws + "(q_, 0, pq + at_);\n    vstore" + Ws + "(ss, 0, ps + at_);\n";
    return b + "  }\n";
  }

  // A work-item per output combining the partials column_sums left at
  // part * n + o, as combine_partial_sums does: deviations from the first
  // part's mean.
  std::string thread_combine() const {
    std::string b = "  const long o = get_global_id(0);\n  if (o >= n) return;\n" + moment_partial_pointers(rs);
    b += "  const double sh = pm[o];\n  double sa = 0, sb = 0, ss = 0;\n  long c = 0;\n";
    b += "  for (long k = 0; k < groups; ++k) {\n    const long at = k * n + o, nk = pn[at];\n";
    b += "    if (nk > 0) {\n      const double f = (double)nk, d = pm[at] - sh;\n      sa = fma(f, d, sa); sb += pq[at] + f * d * d; c += nk;\n    }\n";
    b += "    ss += ps[at];\n  }\n  const double nd = (double)c, t_ = sb - sa * (sa / nd);\n";
    return b + store("  ", "t_ < 0 ? 0.0 : t_", "ss");
  }

  // One group combines output o's partials into (shq, shs)[0] (lid 0 only),
  // as sums of deviations from the mean of the first partial, whose chunk
  // starts the range and so is not empty where the range is not:
  // n_k (m_k - shift) and M2_k + n_k (m_k - shift)^2 add. That shift is the
  // mean of n_0 of the n values, so n (shift - mean)^2 is at most n / n_0
  // times M2: M2 keeps all but about log2(groups + 1) bits more.
  std::string combine_partial_sums(const std::string& ind) const {
    std::string s = ind + "{\n" + ind + "  const double sh = pm[o * groups];\n";
    s += ind + "  double sa = 0, sb = 0, ss = 0;\n" + ind + "  long c = 0;\n";
    s += ind + "  for (long k = lid; k < groups; k += " + L + ") {\n";
    s += ind + "    const long at = o * groups + k, nk = pn[at];\n";
    s += ind + "    if (nk > 0) {\n" + ind + "      const double f = (double)nk, d = pm[at] - sh;\n";
    s += ind + "      sa = fma(f, d, sa); sb += pq[at] + f * d * d; c += nk;\n" + ind + "    }\n";
    s += ind + "    ss += ps[at];\n" + ind + "  }\n";
    s += ind + "  shn[lid] = c; shm[lid] = sa; shq[lid] = sb; shs[lid] = ss;\n" + ind + "}\n" + sum_tree(ind, true);
    s += ind + "if (lid == 0) {\n" + m2_of_sums(ind + "  ", "(double)shn[0]");
    s += ind + "  shq[0] = t_ < 0 ? 0.0 : t_;\n" + ind + "}\n";
    return s;
  }
};

}  // namespace

std::string moment_store(const KernelPlan& plan, const std::string& ind, const std::string& q, const std::string& s, const std::string& scale,
                         HelperSet& helpers) {
  const ReduceSpec& rs = plan.reduce;
  const std::string div = "s" + std::to_string(rs.divisor);
  std::string v = "(" + q + ") / " + (scale.empty() ? div : "((" + scale + ") * " + div + ")");
  if (rs.post_sqrt) v = "sqrt(" + v + ")";
  std::vector<std::string> values{"(float)(" + v + ")"};
  if (rs.moment == 2) values.push_back("(float)(" + s + ") / s" + std::to_string(rs.divisor + 1));
  return store_values(plan, values, 1, "o", ind, helpers);
}

std::string moment_locals(const ReduceSpec& rs) {
  return group_local(rs, "long", "shn") + group_local(rs, "double", "shm") + group_local(rs, "double", "shq") +
         group_local(rs, "double", "shs");
}

std::string moment_partial_pointers(const ReduceSpec& rs) {
  std::string b = "  __global long* pn = (__global long*)scratch;\n"
                  "  __global double* pm = (__global double*)(scratch + n * groups * 8);\n"
                  "  __global double* pq = pm + n * groups;\n"
                  "  __global double* ps = pq + n * groups;\n";
  if (chan_moment(rs)) b += "  __global double* px = ps + n * groups;\n";
  return b;
}

std::string render_moment(const KernelPlan& plan, const std::string& name) {
  const ReduceSpec& rs = plan.reduce;
  if (chan_moment(rs)) return render_moment_chan(plan, name);
  HelperSet helpers;
  MomentEmitter e{plan, rs, helpers};
  const int W = plan.width;
  const std::string Ws = std::to_string(W), L = e.L;

  const std::string sig = param_list(plan);
  const std::string kept = emit_coordinates(plan, "o", "  ", 0, rs.kept_dims);  // once an output
  auto kernel = [&](const std::string& body, bool group) {
    return reduce_kernel_text(plan, name, sig, helpers, body, group ? rs.local_size : 0);
  };

  std::string b;
  if (rs.strategy == ReduceStrategy::ThreadPerOutput && rs.combine) return kernel(e.thread_combine(), false);
  if (rs.strategy == ReduceStrategy::ColumnBlock) {
    const ColumnGroup g = column_group(rs);
    return reduce_kernel_text(plan, name, sig, helpers, e.column_sums(), g.across, g.rows);
  }
  if (rs.strategy == ReduceStrategy::ThreadPerOutput && rs.row_lanes) return kernel(e.lanes_sums(), false);
  if (rs.strategy == ReduceStrategy::ThreadPerOutput) {
    b += "  const long o = get_global_id(0);\n  if (o >= n) return;\n" + kept + e.thread_sums();
    return kernel(b, false);
  }

  b += group_lid(rs);
  if (rs.combine) {
    // The second kernel of a split moment: a group per output.
    b += "  const long o = (long)get_group_id(0);\n" + moment_locals(rs) + moment_partial_pointers(rs);
    b += e.combine_partial_sums("  ");
    b += "  if (lid == 0) {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  b += group_prologue(plan);
  b += moment_locals(rs);
  if (rs.two_stage && rs.finish == SplitFinish::LastGroup) b += "  __local int is_last;\n";
  b += kept + e.group_sums(W);
  if (!rs.two_stage) {
    b += "  if (" + group_store_test(rs) + ") {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  b += moment_partial_pointers(rs);
  b += moment_split_end(rs, "    pn[at] = shn[0]; pm[at] = shm[0]; pq[at] = shq[0]; ps[at] = shs[0];\n",
                        rs.finish == SplitFinish::LastGroup ? e.combine_partial_sums("  ") : "", e.store("    ", "shq[0]", "shs[0]"));
  return kernel(b, true);
}

std::string moment_split_end(const ReduceSpec& rs, const std::string& partial, const std::string& combine, const std::string& store) {
  std::string b = "  if (lid == 0) {\n    const long at = o * groups + part;\n" + partial;
  if (rs.finish == SplitFinish::LastGroup)  // as render_reduce.cpp's split reductions: see there
    b += "    is_last = atomic_fetch_add_explicit(&counters[o], 1u, memory_order_acq_rel, memory_scope_device) == "
         "(uint)(groups - 1);\n";
  b += "  }\n";
  if (rs.finish == SplitFinish::LastGroup) {
    b += "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  if (!is_last) return;\n" + combine;
    b += "  if (lid == 0) {\n" + store + "    atomic_store_explicit(&counters[o], 0u, memory_order_relaxed, memory_scope_device);\n  }\n";
  }
  return b;
}

}  // namespace fusecl::codegen
