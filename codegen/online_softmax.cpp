#include "codegen/online_softmax.hpp"

#include "codegen/body.hpp"
#include "codegen/warp_shuffle.hpp"

#include <algorithm>

namespace fusecl::codegen {

namespace {

std::string lowest(DType t) { return t == DType::Float64 ? "-DBL_MAX" : "-FLT_MAX"; }

std::string vmax(DType t, const std::string& a, const std::string& b, int w, HelperSet& helpers) {
  return spell(reduce_info(Op::Max).combine, t, t, a, b, "", w, helpers);
}

// State x's reference moved to `to` where `to` passes it by more than 64, its
// sum and compensation rescaled (lane by lane at width w > 1).
std::string move_reference(const std::string& T_, const std::string& to, const std::string& x, int w, const std::string& ind) {
  const std::string r = x + "r", sm = x + "s", c = x + "c", far = "(" + to + " > " + r + " + (" + T_ + ")(64))";
  if (w == 1)
    return ind + "if " + far + " { const " + T_ + " f_ = exp(" + r + " - " + to + "); " + sm + " *= f_; " + c + " *= f_; " + r + " = " + to +
           "; }\n";
  return ind + "if (any" + far + ") {\n" + ind + "  const " + T_ + " f_ = select((" + T_ + ")(1), exp(" + r + " - " + to + "), " + far + ");\n" +
         ind + "  " + sm + " *= f_; " + c + " *= f_; " + r + " = select(" + r + ", " + to + ", " + far + ");\n" + ind + "}\n";
}

// exp(g - r) added to state x's sum, compensated.
std::string add_exp(const std::string& T_, const std::string& g, const std::string& x, const std::string& ind) {
  const std::string r = x + "r", sm = x + "s", c = x + "c";
  return ind + kahan_step(sm, c, "exp(" + g + " - " + r + ")", T_) + "\n";
}

}  // namespace

std::string online_declare(DType t, const std::string& x, int w, const std::string& ind) {
  const std::string T_ = cl_type(t, w);
  return ind + T_ + " " + x + "m = (" + T_ + ")(-INFINITY), " + x + "r = (" + T_ + ")(" + lowest(t) + "), " + x + "s = (" + T_ +
         ")(0), " + x + "c = (" + T_ + ")(0);\n" + nan_note_declare(t, x + "nan", x + "m", w, ind);
}

std::string online_step(DType t, const std::string& g, const std::string& x, int w, const std::string& ind) {
  const std::string T_ = cl_type(t, w);
  // The max steps with fmax, NaN noted apart (body.hpp): online_finish marks it.
  return ind + nan_note_step(Op::Maximum, x + "m", x + "nan", g) + "\n" + move_reference(T_, g, x, w, ind) + add_exp(T_, g, x, ind);
}

std::string online_block_step(DType t, const std::vector<std::string>& gs, const std::string& x, int w, const std::string& ind) {
  const std::string T_ = cl_type(t, w), m = x + "m";
  // The block's maximum: fmax passes over NaN (noted apart, as online_step does).
  std::string b = gs[0];
  for (std::size_t k = 1; k < gs.size(); ++k) b = "fmax(" + b + ", " + gs[k] + ")";
  std::string out = ind + "{\n" + ind + "  const " + T_ + " b_ = " + b + ";\n" + ind + "  " + m + " = fmax(" + m + ", b_);";
  for (const auto& g : gs) out += " " + x + "nan |= isnan(" + g + ");";
  out += "\n" + move_reference(T_, "b_", x, w, ind + "  ") + ind + "}\n";
  for (const auto& g : gs) out += add_exp(T_, g, x, ind);
  return out;
}

std::string online_finish(DType t, const std::string& x, int w, const std::string& ind) {
  const std::string T_ = cl_type(t, w);
  return nan_note_apply(t, x + "m", x + "nan", w, ind) + ind + x + "s = " + pick("(" + x + "s - " + x + "c) * exp(" + x + "r - " + x + "m)", "(" + T_ + ")(0)",
                                 x + "m == (" + T_ + ")(-INFINITY)", w) + ";\n";
}

std::string online_lanes(DType t, const std::string& x, const std::string& into, int w, HelperSet& helpers, const std::string& ind) {
  const std::string T = cl_type(t, 1), TW = cl_type(t, w);
  std::string mx = x + "m" + lane(0);
  for (int j = 1; j < w; ++j) mx = vmax(t, mx, x + "m" + lane(j), 1, helpers);
  std::string sum = "e_" + lane(0);
  for (int j = 1; j < w; ++j) sum += " + e_" + lane(j);
  return nan_note_apply(t, x + "m", x + "nan", w, ind) + ind + "{\n" + ind + "  const " + T + " mx_ = " + mx + ";\n" + ind + "  const " + TW +
         " e_ = " + pick("(" + x + "s - " + x + "c) * exp(" + x + "r - (" + TW + ")(mx_))", "(" + TW + ")(0)", x + "m == (" + TW + ")(-INFINITY)", w) +
         ";\n" + ind + "  " + into + "m = mx_; " + into + "s = " + sum + ";\n" + ind + "}\n";
}

std::string online_group_combine(DType t, int T, int warp, HelperSet& helpers) {
  const std::string TT = cl_type(t, 1), Ts = std::to_string(T), bar = "barrier(CLK_LOCAL_MEM_FENCE);\n";
  // Each work-item's sum scaled to the row's maximum mx_ (one exp).
  const std::string scaled = "pm == mx_ ? ps : ps * exp(pm - mx_)";
  if (warp == 0) {
    std::string b = "  shm[lid] = pm;\n  " + bar + "  for (int s_ = " + Ts + " / 2; s_ > 0; s_ >>= 1) {\n    if (lid < s_) shm[lid] = " +
                    vmax(t, "shm[lid]", "shm[lid + s_]", 1, helpers) + ";\n    " + bar + "  }\n";
    b += "  {\n    const " + TT + " mx_ = shm[0];\n    shs[lid] = " + scaled + ";\n  }\n  " + bar;
    b += "  for (int s_ = " + Ts + " / 2; s_ > 0; s_ >>= 1) {\n    if (lid < s_) shs[lid] += shs[lid + s_];\n    " + bar + "  }\n";
    return b + "  const " + TT + " gm_ = shm[0], gs_ = shs[0];\n";
  }
  // Through shuffles (warp_shuffle.hpp: each one a statement of its own, in
  // uniform control flow): each warp's maximum down to the row's first lane
  // there; a row within one warp takes it from that lane, a row of several
  // warps meets their maxima in local memory, every work-item in the same
  // order. Then the scaled sums the same way down to lid 0.
  const int lanes = std::min(T, warp), warps = T / lanes;
  const std::string Wm = std::to_string(warp - 1), Wp = std::to_string(warp);
  std::string b = "  " + TT + " mx_ = pm, y_;\n";
  for (int d = lanes / 2; d > 0; d /= 2)
    b += "  " + shuffle_down(helpers, t, "y_ =", "mx_", std::to_string(d) + "u") + "\n  mx_ = " + vmax(t, "mx_", "y_", 1, helpers) + ";\n";
  if (warps == 1) {
    // The row's first lane in the warp: rows of the group are consecutive lanes.
    b += "  " + shuffle_index(helpers, t, "mx_ =", "mx_", "(uint)(((int)get_local_id(0) - lid) & " + Wm + ")") + "\n";
  } else {
    b += "  if ((lid & " + Wm + ") == 0) shm[lid / " + Wp + "] = mx_;\n  " + bar;
    b += "  mx_ = shm[0];\n  for (int w_ = 1; w_ < " + std::to_string(warps) + "; ++w_) mx_ = " + vmax(t, "mx_", "shm[w_]", 1, helpers) + ";\n";
  }
  b += "  " + TT + " sx_ = " + scaled + ";\n";
  for (int d = lanes / 2; d > 0; d /= 2) b += "  " + shuffle_down(helpers, t, "y_ =", "sx_", std::to_string(d) + "u") + "\n  sx_ += y_;\n";
  if (warps > 1) {
    b += "  if ((lid & " + Wm + ") == 0) shs[lid / " + Wp + "] = sx_;\n  " + bar;
    b += "  if (lid == 0)\n    for (int w_ = 1; w_ < " + std::to_string(warps) + "; ++w_) sx_ += shs[w_];\n";
  }
  return b + "  const " + TT + " gm_ = mx_, gs_ = sx_;\n";
}

std::string online_merge(DType t, int w, HelperSet& helpers) {
  const std::string T_ = cl_type(t, w), name = "fcl_online_" + T_, one = "(" + T_ + ")(1)";
  const std::string mm = vmax(t, "*m", "m2", w, helpers);
  return helpers.use(name, "static inline void " + name + "(" + T_ + "* m, " + T_ + "* s, " + T_ + " m2, " + T_ + " s2) {\n  const " +
                               T_ + " mm = " + mm + ";\n  *s = *s * " + pick("exp(*m - mm)", one, "*m == mm", w) + " + s2 * " +
                               pick("exp(m2 - mm)", one, "m2 == mm", w) + ";\n  *m = mm;\n}\n");
}

std::string online_rebase(DType t, const std::string& x, const std::string& ind) {
  return ind + x + "r = " + x + "m == -INFINITY ? (" + cl_type(t, 1) + ")(" + lowest(t) + ") : " + x + "m;\n" + ind + x + "nan = isnan(" + x +
         "m);\n";
}

std::string online_sum(DType t, const std::string& m, const std::string& s, int w) {
  return pick(s, "(" + cl_type(t, w) + ")(NAN)", "isfinite(" + m + ") == 0", w);
}

}  // namespace fusecl::codegen
