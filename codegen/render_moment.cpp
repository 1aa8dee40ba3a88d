// Moment kernels (ReduceSpec::moment): var or std of a float32 body in one
// pass over it, and with moment == 2 its mean too, where the graph's
// two-pass definition (mean, then the mean of squared deviations) reads the
// input twice and takes two or three kernels more.
//
// Accuracy: each work-item sums, in float64 and per vector lane, deviations
// from the lane's first value and their squares (or, element by element,
// runs Welford's update), and counts, means and sums of squared
// deviations meet in Chan's pairwise combination, in a tree across the group
// and the groups. In float64 nothing a float32 input holds can overflow (the
// squares of FLT_MAX are far from DBL_MAX), and the rounding is that of
// float64, far below float32's: the result is the two-pass variance rounded
// once to float32, NaN and inf propagating as NumPy's do (an inf makes the
// deviations inf - inf). The mean output is the float64 sum rounded to
// float32, divided by n in float32, as the mean kernel's is (its compensated
// float32 sum also errs below an ulp of the sum).
#include "codegen/body.hpp"

namespace fusecl::codegen {

namespace {

// Chan et al.'s combination of (n, mean, M2) with (nb, mb, qb); an empty
// side leaves the other unchanged (0 * inf would make NaN of nothing).
const char* k_chan = R"(static inline void fcl_chan(long* n, double* m, double* q, long nb, double mb, double qb) {
  if (nb == 0) return;
  if (*n == 0) { *n = nb; *m = mb; *q = qb; return; }
  const long t = *n + nb;
  const double d = mb - *m, f = (double)nb / (double)t;
  *m += d * f;
  *q += qb + d * d * (double)(*n) * f;
  *n = t;
}
)";

std::string lane(int j) {
  static const char* hex = "0123456789abcdef";
  return std::string(".s") + hex[j];
}

struct MomentEmitter {
  const KernelPlan& plan;
  const ReduceSpec& rs;
  HelperSet& helpers;
  std::string L = std::to_string(rs.local_size);

  // One value `x` (float64) folded into the running (cn, cm, cq, cs).
  static std::string welford(const std::string& x, const std::string& ind) {
    return ind + "{ const double x_ = " + x + "; cn += 1; const double d_ = x_ - cm; cm += d_ / (double)cn; cq += d_ * (x_ - cm); cs += x_; }\n";
  }

  std::string scalar_step(const std::string& ind) const {
    return ind + "const long p = o * m + r;\n" + emit_coordinates(plan, "p", ind) + emit_body(plan, 1, "p", ind, helpers) +
           welford("(double)v" + std::to_string(rs.input), ind);
  }

  static std::string locals(const std::string& size) {
    return "  __local long shn[" + size + "];\n  __local double shm[" + size + "], shq[" + size + "], shs[" + size + "];\n";
  }

  // Tree of the group's (shn, shm, shq, shs) into element 0.
  std::string tree(const std::string& ind) const {
    std::string s = ind + "shn[lid] = cn; shm[lid] = cm; shq[lid] = cq; shs[lid] = cs;\n";
    s += ind + "barrier(CLK_LOCAL_MEM_FENCE);\n";
    s += ind + "for (int s_ = " + L + " / 2; s_ > 0; s_ >>= 1) {\n";
    s += ind + "  if (lid < s_) {\n";
    s += ind + "    long n_ = shn[lid]; double m_ = shm[lid], q_ = shq[lid];\n";
    s += ind + "    fcl_chan(&n_, &m_, &q_, shn[lid + s_], shm[lid + s_], shq[lid + s_]);\n";
    s += ind + "    shn[lid] = n_; shm[lid] = m_; shq[lid] = q_; shs[lid] += shs[lid + s_];\n";
    s += ind + "  }\n" + ind + "  barrier(CLK_LOCAL_MEM_FENCE);\n" + ind + "}\n";
    return s;
  }

  // The results of output o from M2 `q` and sum `s` (float64).
  std::string store(const std::string& ind, const std::string& q, const std::string& s) const {
    const std::string div = "s" + std::to_string(rs.divisor);
    std::string v = "(" + q + ") / " + div;
    if (rs.post_sqrt) v = "sqrt(" + v + ")";
    std::string out = ind + "out0[o] = (float)(" + v + ");\n";
    if (rs.moment == 2) out += ind + "out1[o] = (float)(" + s + ") / s" + std::to_string(rs.divisor + 1) + ";\n";
    return out;
  }

  // Partials in scratch, per (o, part): counts, then means, M2s and sums.
  static std::string partial_pointers() {
    return "  __global long* pn = (__global long*)scratch;\n"
           "  __global double* pm = (__global double*)(scratch + n * groups * 8);\n"
           "  __global double* pq = pm + n * groups;\n"
           "  __global double* ps = pq + n * groups;\n";
  }

  // One group combines output o's partials into element 0 of the locals.
  std::string combine_partials(const std::string& ind) const {
    std::string s = ind + "cn = 0; cm = 0; cq = 0; cs = 0;\n";
    s += ind + "for (long k = lid; k < groups; k += " + L + ") {\n";
    s += ind + "  fcl_chan(&cn, &cm, &cq, pn[o * groups + k], pm[o * groups + k], pq[o * groups + k]);\n";
    s += ind + "  cs += ps[o * groups + k];\n" + ind + "}\n";
    return s + tree(ind);
  }
};

}  // namespace

std::string render_moment(const KernelPlan& plan, const std::string& name) {
  const ReduceSpec& rs = plan.reduce;
  HelperSet helpers;
  helpers.use("fcl_chan", k_chan);
  MomentEmitter e{plan, rs, helpers};
  const int W = plan.width;
  const std::string Ws = std::to_string(W), L = e.L;
  const std::string v = "v" + std::to_string(rs.input);

  std::string sig;
  const auto ps = params(plan);
  for (std::size_t i = 0; i < ps.size(); ++i) sig += (i ? ",\n    " : "") + param_declaration(plan, ps[i]);
  const std::string init = "  long cn = 0;\n  double cm = 0, cq = 0, cs = 0;\n";
  auto kernel = [&](const std::string& body, bool group) {
    const std::string attr = group ? "__attribute__((reqd_work_group_size(" + L + ", 1, 1)))\n" : "";
    return program_prelude(plan) + helpers.text() + "\n__kernel " + attr + "void " + name + "(\n    " + sig + ")\n{\n" + body + "}\n";
  };

  std::string b;
  if (rs.strategy == ReduceStrategy::ThreadPerOutput) {
    b += "  const long o = get_global_id(0);\n  if (o >= n) return;\n" + init;
    b += "  for (long r = 0; r < m; ++r) {\n" + e.scalar_step("    ") + "  }\n";
    b += e.store("  ", "cq", "cs");
    return kernel(b, false);
  }

  b += "  const int lid = (int)get_local_id(0);\n";
  if (rs.combine) {
    // The second kernel of a split moment: a group per output.
    b += "  const long o = (long)get_group_id(0);\n" + MomentEmitter::locals(L) + init + MomentEmitter::partial_pointers();
    b += e.combine_partials("  ");
    b += "  if (lid == 0) {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  if (rs.two_stage) {
    b += "  const long o = (long)get_group_id(0) / groups, part = (long)get_group_id(0) % groups;\n";
    b += "  const long chunk = ((m + groups - 1) / groups + " + Ws + " - 1) / " + Ws + " * " + Ws + ";\n";
    b += "  const long r_begin = min(m, part * chunk), r_end = min(m, r_begin + chunk);\n";
  } else {
    b += "  const long o = (long)get_group_id(0);\n  const long r_begin = 0, r_end = m;\n";
  }
  b += MomentEmitter::locals(L);
  if (rs.two_stage && rs.finish == SplitFinish::LastGroup) b += "  __local int is_last;\n";
  b += init;
  if (W > 1) {
    // Per lane, sums of the deviations from a shift, the lane's first value,
    // and of their squares (no division per element, and each sum a chain of
    // one float64 operation); every lane has seen the same number of values.
    // Two such sets, for vectors q and q + L, keep two loads in flight per
    // work-item (a reduction over a long range is bound by the loads a device
    // has in flight). At the end, per lane, mean = shift + a / n and M2 =
    // b - a * a / n meet in Chan's combination. Shifting by one of the
    // lane's own values bounds the cancellation in b - a * a / n: (shift -
    // mean)^2 is at most n times the lane's variance, so M2 keeps all but
    // about log2(n * n) of float64's 53 bits, where float32 needs 24.
    const std::string DW = "double" + Ws;
    b += "  {\n    " + DW + " sh = (" + DW + ")(0), a0 = (" + DW + ")(0), b0 = (" + DW + ")(0), a1 = (" + DW + ")(0), b1 = (" + DW +
         ")(0), vs = (" + DW + ")(0);\n    long c = 0;\n";
    b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
    b += "    if (lid < nvec) {\n      const long p = o * m + r_begin + (long)lid * " + Ws + ";\n";
    b += emit_coordinates(plan, "p", "      ") + emit_body(plan, W, "p", "      ", helpers);
    b += "      sh = convert_" + DW + "(" + v + ");\n    }\n";
    b += "    for (long q0 = lid; q0 < nvec; q0 += 2 * " + L + ") {\n";
    for (int u = 0; u < 2; ++u) {
      const std::string U = std::to_string(u);
      b += u == 0 ? "      {\n        const long q = q0;\n" : "      if (q0 + " + L + " < nvec) {\n        const long q = q0 + " + L + ";\n";
      b += "        const long p = o * m + r_begin + q * " + Ws + ";\n";
      b += emit_coordinates(plan, "p", "        ");
      b += emit_body(plan, W, "p", "        ", helpers);
      b += "        const " + DW + " x_ = convert_" + DW + "(" + v + ");\n";
      b += "        const " + DW + " d_ = x_ - sh;\n        c += 1;\n        a" + U + " += d_;\n        b" + U + " = fma(d_, d_, b" + U + ");\n";
      if (rs.moment == 2) b += "        vs += x_;\n";  // the mean's sum (shift + a would turn an inf shift into NaN)
      b += "      }\n";
    }
    b += "    }\n";
    // q_ below 0 is rounding (NaN stays NaN: inf - inf in the sums).
    b += "    if (c > 0) {\n      const double nc = (double)c;\n      const " + DW + " a_ = a0 + a1, m_ = sh + a_ / nc, t_ = (b0 + b1) - a_ * (a_ / nc);\n";
    b += "      const " + DW + " q_ = select(t_, (" + DW + ")(0), t_ < 0);\n";
    for (int j = 0; j < W; ++j) b += "      fcl_chan(&cn, &cm, &cq, c, m_" + lane(j) + ", q_" + lane(j) + ");\n";
    b += "    }\n";
    if (rs.moment == 2)
      for (int j = 0; j < W; ++j) b += "    cs += vs" + lane(j) + ";\n";
    b += "    for (long r = r_begin + nvec * " + Ws + " + lid; r < r_end; r += " + L + ") {\n" + e.scalar_step("      ") + "    }\n  }\n";
  } else {
    b += "  for (long r = r_begin + lid; r < r_end; r += " + L + ") {\n" + e.scalar_step("    ") + "  }\n";
  }
  b += e.tree("  ");
  if (!rs.two_stage) {
    b += "  if (lid == 0) {\n" + e.store("    ", "shq[0]", "shs[0]") + "  }\n";
    return kernel(b, true);
  }
  b += MomentEmitter::partial_pointers();
  b += "  if (lid == 0) {\n";
  b += "    const long at = o * groups + part;\n    pn[at] = shn[0]; pm[at] = shm[0]; pq[at] = shq[0]; ps[at] = shs[0];\n";
  if (rs.finish == SplitFinish::LastGroup)  // as render_reduce.cpp's split reductions: see there
    b += "    is_last = atomic_fetch_add_explicit(&counters[o], 1u, memory_order_acq_rel, memory_scope_device) == "
         "(uint)(groups - 1);\n";
  b += "  }\n";
  if (rs.finish == SplitFinish::LastGroup) {
    b += "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n  if (!is_last) return;\n";
    b += e.combine_partials("  ");
    b += "  if (lid == 0) {\n" + e.store("    ", "shq[0]", "shs[0]") +
         "    atomic_store_explicit(&counters[o], 0u, memory_order_relaxed, memory_scope_device);\n  }\n";
  }
  return kernel(b, true);
}

}  // namespace fusecl::codegen
