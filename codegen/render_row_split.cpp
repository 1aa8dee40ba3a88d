// Row kernels split over segments of their rows (ReduceSpec::row_split):
// rows too long to stay on chip in one work-group (a softmax over rows of
// 50257, or down columns of 8192), computed by two kernels of segments that
// each hold in registers. The partials kernel (1) computes each segment's
// reductions and stores their partial results; the output kernel (2) has
// each segment combine its row's partials, every segment in the same order
// (so every segment of a row holds the same values), then compute the
// outputs over the segment. The row is read twice and written once, each
// kernel with all of a work-item's loads in flight together, where a group
// looping over a whole row re-reads it with one load in flight at a time.
//
// Partials merge plainly (a sum's sums, a max's maxima) but for two pairs
// whose second reduction reads the first:
// - softmax's max m and sum s of exp(g - m): a segment's (m_i, s_i), s_i
//   relative to its own maximum, merge into sum_i s_i exp(m_i - m), m the
//   maximum of the m_i;
// - a variance's mean and sum of squared deviations: a segment's sum S_i and
//   M2_i = sum (g - S_i / n_i)^2 over its n_i elements merge as
//   sum_i M2_i + n_i (S_i / n_i - mean)^2, exact for any mean, so no
//   segment's deviations are taken from a far-off reference (M2_i is as
//   accurate as the one-kernel form's, from its own mean).
// Segments are ceil(ceil(m / S) / 16) * 16 elements (rows) long, so that
// every segment but the last starts on a multiple of any vector width; both
// kernels and the scheduler compute that length alike.
#include "codegen/online_softmax.hpp"
#include "codegen/row_render.hpp"

namespace fusecl::codegen {

namespace row {

std::vector<int> split_pairs(const KernelPlan& plan, std::vector<char>* variance) {
  std::vector<int> partner = online_pairs(plan);
  if (variance) variance->assign(plan.instrs.size(), 0);
  auto at = [&](std::int16_t i) -> const Instr* { return i >= 0 ? &plan.instrs[std::size_t(i)] : nullptr; };
  for (std::size_t k2 = 0; k2 < plan.instrs.size(); ++k2) {
    const Instr& ss = plan.instrs[k2];
    if (!is_row_reduction(ss) || (ss.op != Op::Sum && ss.op != Op::Mean) || partner[k2] >= 0 || !is_float(ss.dtype)) continue;
    const Instr* sq = at(ss.a);
    const Instr* d = sq && sq->op == Op::Mul && sq->a == sq->b ? at(sq->a) : nullptr;
    const Instr* mean = d && d->op == Op::Sub ? at(d->b) : nullptr;
    if (!mean || !is_row_reduction(*mean) || mean->op != Op::Mean || mean->a != d->a || mean->a < 0 || mean->b == 1 ||
        partner[std::size_t(d->b)] >= 0 || sq->dtype != ss.dtype || d->dtype != ss.dtype || mean->dtype != ss.dtype)
      continue;
    partner[std::size_t(d->b)] = int(k2);
    partner[k2] = d->b;
    if (variance) (*variance)[k2] = 1;
  }
  return partner;
}

std::string split_prologue(const RowRender& rr) {
  const KernelPlan& plan = rr.plan;
  // The output kernel takes the groups in reverse: the partials kernel read
  // the last segments last, so they are what the device's cache still holds
  // when the output kernel starts.
  std::string b = rr.split() == 2 ? "  const long g_ = (long)get_num_groups(0) - 1 - (long)get_group_id(0);\n"
                                  : "  const long g_ = (long)get_group_id(0);\n";
  if (rr.columns()) {
    // As the column form's: neighbouring work-items take neighbouring
    // vectors of columns, here of the same segment (segment-major).
    const std::string C = std::to_string(plan.reduce.rows_per_group);
    b += "  const int c_ = lid % " + C + ", sl = lid / " + C + ";\n";
    b += "  const long og = g_ * " + C + " + c_;\n";
  } else {
    b += "  const int sl = lid % " + rr.T + ";\n";
    b += "  const long og = g_ * " + std::to_string(plan.reduce.rows_per_group) + " + lid / " + rr.T + ";\n";
  }
  // Segment seg_ of row o (o == n: past the last segment, in the last group).
  b += "  const long o = og < n * groups ? og % n : n, seg_ = og / n;\n";
  b += "  const long ls_ = ((m + groups - 1) / groups + 15) / 16 * 16;\n";
  b += "  const long sg0_ = seg_ * ls_, sg1_ = sg0_ + ls_ < m ? sg0_ + ls_ : m;\n";
  b += "  const long mo = o < n && sg0_ < sg1_ ? sg1_ : 0;\n";
  if (rr.columns()) {
    const std::string W = std::to_string(plan.width);
    b += "  const long base = o / (rs / " + W + ") * m * rs + o % (rs / " + W + ") * " + W + ";\n";
  }
  return b;
}

namespace {

// The width of a split kernel's partials: a vector of columns in the column form.
int partial_width(const RowRender& rr) { return rr.columns() ? rr.width() : 1; }

// Partial j of reduction k for this work-item's row (of its last row, past it).
std::string partial(const RowRender& rr, std::size_t k, const std::string& j) {
  const std::string in = "in" + std::to_string(rr.plan.instrs[k].c), at = j + " * n + oq_";
  const int w = partial_width(rr);
  return w > 1 ? "vload" + std::to_string(w) + "(" + at + ", " + in + ")" : in + "[" + at + "]";
}

// The loop over this work-item's share of its row's partials; close with "}".
std::string partials_head(const RowRender& rr) {
  return "    for (long j = sl; j < groups; j += " + rr.T + ") {\n";
}

// Reduction k from its partials, plainly combined.
std::string plain_phase(RowRender& rr, std::size_t k) {
  const Instr& red = rr.plan.instrs[k];
  const ReduceInfo& info = reduce_info(red.op);
  const int w = partial_width(rr);
  const std::string A = cl_type(red.dtype, w), ks = std::to_string(k);
  std::string value = "acc" + ks;
  if (info.finish == Finish::Mean) value = "(" + value + ") / s" + std::to_string(red.slot);
  if (red.b == 1) value = "sqrt(" + value + ")";
  std::string s = "  " + A + " acc" + ks + ";\n  {\n    " + A + " acc = (" + A + ")(" + reduce_identity(info.identity, red.dtype) + ");\n";
  s += partials_head(rr) + "      acc = " + spell(info.combine, red.dtype, red.dtype, "acc", partial(rr, k, "j"), "", w, rr.helpers) +
       ";\n    }\n";
  s += meet_partials(rr, plain_meet(rr, k, w), "acc");
  return s + "    acc" + ks + " = acc;\n  }\n  const " + A + " r" + ks + " = " + value + ";\n";
}

// Softmax's sum k2 from the segments' sums s_i, each relative to its
// segment's maximum m_i (partials of k1, whose phase came first and left the
// row's maximum in r<k1>): sum_i s_i exp(m_i - max), an exp per segment and
// plain sums (merging the pairs as online_phase's work-items do took two
// exps per merge, at every level of the combine: an H200's softmax over axis
// 0 of 8192 x 8192 ran at 750 us so). NaN where the max is not finite, as in
// two passes.
std::string softmax_sum_phase(RowRender& rr, std::size_t k1, std::size_t k2) {
  const Instr& red = rr.plan.instrs[k2];
  const int w = partial_width(rr);
  const std::string A = cl_type(red.dtype, w), ks = std::to_string(k2), r1 = "r" + std::to_string(k1);
  std::string s = "  " + A + " acc" + ks + ";\n  {\n    " + A + " acc = (" + A + ")(0);\n" + partials_head(rr);
  s += "      const " + A + " m_ = " + partial(rr, k1, "j") + ";\n";
  s += "      acc += " + partial(rr, k2, "j") + " * " + pick("exp(m_ - " + r1 + ")", "(" + A + ")(1)", "m_ == " + r1, w) + ";\n    }\n";
  s += meet_partials(rr, plain_meet(rr, k2, w), "acc");
  s += "    acc" + ks + " = acc;\n  }\n";
  return s + "  const " + A + " r" + ks + " = " + online_sum(red.dtype, r1, "acc" + ks, w) + ";\n";
}

// A variance's sum of squared deviations k2 from r<k1>, the row's mean (its
// phase came first): each segment's M2_i + n_i (S_i / n_i - mean)^2.
std::string variance_phase(RowRender& rr, std::size_t k1, std::size_t k2) {
  const Instr& red = rr.plan.instrs[k2];
  const int w = partial_width(rr);
  const std::string A = cl_type(red.dtype, w), S = cl_type(red.dtype, 1), ks = std::to_string(k2);
  std::string value = "acc" + ks;
  if (reduce_info(red.op).finish == Finish::Mean) value = "(" + value + ") / s" + std::to_string(red.slot);
  if (red.b == 1) value = "sqrt(" + value + ")";
  std::string s = "  " + A + " acc" + ks + ";\n  {\n    " + A + " acc = (" + A + ")(0);\n" + partials_head(rr);
  s += "      const long nj = m - j * ls_ < ls_ ? m - j * ls_ : ls_;\n";
  s += "      if (nj > 0) {\n        const " + A + " d_ = " + partial(rr, k1, "j") + " / (" + S + ")nj - r" + std::to_string(k1) +
       ";\n        acc += " + partial(rr, k2, "j") + " + (" + S + ")nj * d_ * d_;\n      }\n    }\n";
  s += meet_partials(rr, plain_meet(rr, k2, w), "acc");
  return s + "    acc" + ks + " = acc;\n  }\n  const " + A + " r" + ks + " = " + value + ";\n";
}

}  // namespace

std::string split_phases(RowRender& rr) {
  std::vector<char> variance;
  const std::vector<int> partner = split_pairs(rr.plan, &variance);
  std::string s = "  const long oq_ = o < n ? o : n - 1;\n";  // past the last row: the last row's partials, unused
  for (std::size_t k = 0; k < rr.plan.instrs.size(); ++k) {
    if (!is_row_reduction(rr.plan.instrs[k])) continue;
    // A pair's first (softmax's max, a variance's mean) is plain.
    if (partner[k] < 0 || partner[k] > int(k)) s += plain_phase(rr, k);
    else if (variance[k]) s += variance_phase(rr, std::size_t(partner[k]), k);
    else s += softmax_sum_phase(rr, std::size_t(partner[k]), k);
  }
  return s;
}

std::string split_stores(RowRender& rr) {
  const KernelPlan& plan = rr.plan;
  std::vector<char> variance;
  const std::vector<int> partner = split_pairs(plan, &variance);
  const int w = partial_width(rr);
  std::string s = "  if (sl == 0 && o < n) {\n";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j) {
    const auto k = std::size_t(plan.outputs[j]);
    std::string v = "acc" + std::to_string(k);
    // Softmax's sum where its segment's max is -inf (every element -inf):
    // 0, the sum relative to any finite maximum (two passes took exp(-inf -
    // -inf), NaN, there).
    const int k1 = partner[k];
    if (k1 >= 0 && k1 < int(k) && !variance[k])
      v = pick(v, "(" + cl_type(plan.instrs[k].dtype, w) + ")(0)", "acc" + std::to_string(k1) + " == -INFINITY", w);
    const std::string out = "out" + std::to_string(j);
    s += w > 1 ? "    vstore" + std::to_string(w) + "(" + v + ", og, " + out + ");\n" : "    " + out + "[og] = " + v + ";\n";
  }
  return s + "  }\n";
}

}  // namespace row

bool row_splittable(const KernelPlan& plan) {
  const std::vector<int> partner = row::split_pairs(plan);
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const Instr& in = plan.instrs[k];
    if (!is_row_reduction(in) || in.a < 0) continue;
    const std::vector<char> need = row::per_element(plan, {in.a});
    for (std::size_t r = 0; r < need.size(); ++r)
      if (need[r] == 2 && int(r) != partner[k]) return false;  // reads a reduction other than its pair's first
  }
  return true;
}

}  // namespace fusecl::codegen
