// Internal to the row kernels' renderers (render_row.cpp, and
// render_row_split.cpp for rows split over segments): how a row kernel's
// phases are rendered, and how its work-items' partials meet.
#pragma once

#include "codegen/body.hpp"
#include "fusecl/result_type.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace fusecl::codegen::row {

// Which instructions computing `targets` are evaluated at each element: their
// operands, transitively, stopping at reductions (held per row already, and
// marked 2) and at `held` (a value at hand: what only it reads is not
// needed). Operands come before their instructions: one backward sweep.
std::vector<char> per_element(const KernelPlan& plan, const std::vector<std::int16_t>& targets, int held = -1);

// What the register form keeps between phases, where more than one phase
// computes it: loads (the row is read once), and the results of
// transcendental functions (softmax's exp(x - max), which its sum and its
// output both read, is computed once per element: a GPU's full-precision exp
// is some ten instructions); cheaper values are computed again from kept
// ones.
// With ReduceSpec::row_recompute only loads are kept.
inline bool kept(const Instr& in, const KernelPlan& plan) {
  return in.op == Op::Buffer || (!plan.reduce.row_recompute && is_transcendental(in.op));
}

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
  // The output phase's divisions through a reciprocal (reciprocal.hpp), while
  // its first pass is rendered; null elsewhere.
  const Reciprocals* reciprocals = nullptr;
  // The loop being rendered (whole vectors in registers, row length
  // constant, the last chunk partial) computes every chunk, the one past the
  // row's end on the row's last vector again (its load repeats it), and
  // declares in_ instead of leaving the loop there: its reduction's update
  // and its stores happen under in_. render_row_loops.cpp (masked_phase)
  // and render_row.cpp (the output loop) say which loops.
  bool masked = false;
  // By instruction: values kept in a masked loop, so held for every chunk,
  // the one past the row's end too (an output loop reading them can be masked).
  std::vector<char> whole{};

  bool registers() const { return plan.reduce.row_chunks > 0; }
  bool grid() const { return plan.reduce.combine; }
  bool columns() const { return plan.reduce.row_columns; }
  bool lanes() const { return plan.reduce.row_lanes; }
  int width() const { return plan.width; }
  int split() const { return plan.reduce.row_split; }
  bool skew() const { return plan.reduce.row_skew && registers(); }
  bool staged() const { return plan.reduce.row_staged > 0 && registers(); }
  // Rows starting mid-sector take their vectors rotated by one (ReduceSpec::row_rotate).
  bool rotates() const {
    return plan.reduce.row_rotate && registers() && width() > 1 && !columns() && !lanes() && !skew() && !staged() && !split() && !grid();
  }
  // Where vector q (r at the loads) of row o starts: rotated by rot_, the
  // parity of the row's first vector, where the row takes rotation (the
  // last vector's successor is the row's first; positions past the row's
  // end, which store nothing, stay past it).
  std::string vector_at(const std::string& row, const std::string& q) const {
    const std::string W = std::to_string(width());
    if (!rotates()) return row + " * m + " + q + " * " + W;
    return row + " * m + (" + q + " + rot_) * " + W + " - (" + q + " + rot_ == m / " + W + " ? m : 0)";
  }
  // In registers with the row's length a constant: the chunks at the start
  // of every work-item's that lie wholly in its row, which test nothing
  // (render_row.cpp; -1: every chunk tests the row's end, and rows past
  // the last test it too).
  long long full_chunks() const;

  // The test of the row's end at chunk k, position x of e (elements or vectors).
  std::string end_test(const std::string& ind, const std::string& x, const std::string& e) const {
    const long long full = full_chunks();
    if (full < 0) return ind + "  if (" + x + " >= mo" + e + ") break;\n";
    if (full >= std::stoll(K)) return "";
    const std::string past = "k >= " + std::to_string(full) + " && " + x + " >= m" + e;
    return masks() ? ind + "  const bool in_ = !(" + past + ");\n" : ind + "  if (" + past + ") break;\n";
  }
  // Whether a loop here can be masked: whole vectors in registers, the row's
  // length a constant (full_chunks() is -1 for the other forms), the last
  // chunk partial and the only one that is (K rounded up to a power of two
  // leaves chunks past every work-item's row: computing them is waste).
  bool maskable() const { return registers() && width() > 1 && full_chunks() >= 0 && full_chunks() + 1 == std::stoll(K); }
  // Whether the loop head() opens now declares in_ (masked) instead of leaving the loop.
  bool masks() const { return masked && maskable(); }

  // Where this work-item's positions of its row start: split rows start at
  // their segment's sg0_, a multiple of 16 (so of any width); in vectors of
  // `width` with `vectors`.
  std::string start(bool vectors) const {
    if (!split()) return "sl";
    return vectors ? "(sg0_ / " + std::to_string(width()) + " + sl)" : "(sg0_ + sl)";
  }

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
      return ind + (lanes() ? "#pragma unroll\n" + ind : std::string()) + "for (int k = 0; k < " + K + "; ++k) {\n" + ind +
             "  const long r = " + start(false) + " + (long)k * " + T + ";\n" + ind + "  if (r >= mo) break;\n" + ind +
             (lanes() ? "  const long p = base + r;\n" : "  const long p = base + r * rs;\n");
    if (lanes())  // whole rows unrolled where their length is a constant (render_row.cpp)
      return ind + "#pragma unroll\n" + ind + "for (long r = " + start(false) + "; r < mo; r += " + T + ") {\n" + ind + "  const long p = base + r;\n";
    if (columns())
      return ind + "#pragma unroll 4\n" + ind + "for (long r = " + start(false) + "; r < mo; r += " + T + ") {\n" + ind + "  const long p = base + r * rs;\n";
    if (grid()) {  // the whole array is the row: every group takes every L-th block of L
      const std::string start = "(long)get_group_id(0) * " + T + " + lid", step = "(long)get_num_groups(0) * " + T;
      if (w > 1)
        return ind + "for (long q = " + start + "; q < m / " + W + "; q += " + step + ") {\n" + ind + "  const long p = q * " +
               W + ";\n";
      const std::string from = width() > 1 ? "m / " + W + " * " + W + " + " : "";
      return ind + "for (long r = " + from + start + "; r < m; r += " + step + ") {\n" + ind + "  const long p = r;\n" +
             emit_coordinates(plan, "p", ind + "  ");
    }
    if (w > 1 && skew())
      // Vector q of the row's nv_ from its aligned start (a_ lanes before
      // its first element); lanes lo_ to hi_ - 1 are the row's (skew_mask;
      // kf_, kl_ and tl_: render_row.cpp's prologue).
      return ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long q = sl + (long)k * " + T + ";\n" + ind +
             "  if (q >= nv_) break;\n" + ind + "  const long p = o * m - a_ + q * " + W + ";\n" + ind +
             "  const int lo_ = k == kf_ ? (int)a_ : 0, hi_ = k == kl_ ? tl_ : " + W + ";\n";
    if (registers() && w > 1)  // whole vectors only: the scheduler asks that rows be a multiple of w (or row_skew)
      return ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long q = " + start(true) + " + (long)k * " + T + ";\n" +
             end_test(ind, "q", " / " + W) + ind + "  const long p = " + vector_at("o", "q") + ";\n";
    if (w > 1)
      return ind + "for (long q = " + start(true) + "; q < mo / " + W + "; q += " + T + ") {\n" + ind + "  const long p = o * m + q * " + W + ";\n";
    if (registers())
      s = ind + "for (int k = 0; k < " + K + "; ++k) {\n" + ind + "  const long r = " + start(false) + " + (long)k * " + T + ";\n" +
          end_test(ind, "r", "");
    else
      s = ind + "for (long r = " + (width() > 1 ? "mo / " + W + " * " + W + " + sl" : start(false)) + "; r < mo; r += " + T + ") {\n";
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
        } else if (kept(plan.instrs[k], plan) && phases_of[k] > 1) {
          held[k] = 1;
          post += ind + rc + " = " + v + ";\n";
        }
      }
    return pre + emit_body(plan, w, "p", ind, helpers, &need, reciprocals) + post;
  }
};

// render_row_loops.cpp: whether reduction k's loop over whole vectors is
// masked (RowRender::masked; `need`: per_element of its input), and whether
// a sum's loop adds without Kahan's compensation.
bool masked_phase(const RowRender& rr, std::size_t k, const std::vector<char>& need);
bool plain_sum(const RowRender& rr, const std::vector<char>& need);
/// How many compensated chains the sum over `need` keeps (render_row_loops.cpp).
int sum_chains(const RowRender& rr, const std::vector<char>& need);

// The skewed register form (ReduceSpec::row_skew; render_row_skew.cpp).
/// Its prologue's lines: where the work-item's row starts in its first
/// vector (a_), its vectors (nv_), and which of the work-item's are part full.
std::string skew_prologue(const RowRender& rr);
/// Whether each lane of the vector at hand, as a mask for values of t's
/// size, is its row's (lo_ <= j < hi_, set by RowRender::head).
std::string skew_mask(DType t, int w);
/// The outputs at p: whole vectors where every lane is the row's, else lane
/// by lane, the row's only (the rest are other rows').
std::string skew_stores(const KernelPlan& plan, int w, const std::string& indent);
/// The loads `first` marks, into rc<k>[k], each work-item's vectors of its
/// row from the row's aligned start.
std::string skew_loads(const RowRender& rr, const std::vector<char>& first);

// Rows staged through local memory (ReduceSpec::row_staged; render_row_stage.cpp).
/// Whether load k is staged: a contiguous load of a staged plan.
bool staged_load(const KernelPlan& plan, std::size_t k);
/// The local memory of the staging arrays: the loads `first` marks that are
/// staged, and every output.
std::size_t stage_local_bytes(const KernelPlan& plan, const std::vector<char>& first);
/// The kernel's staging: its span, the staging arrays, and the staged loads
/// `first` marks read into theirs, then a barrier.
std::string stage_loads(const RowRender& rr, const std::vector<char>& first);
/// Staged load k's element r of this work-item's row, as v<k>.
std::string stage_read(const KernelPlan& plan, std::size_t k);
/// The outputs at element r, into their staging arrays.
std::string stage_stores(const KernelPlan& plan, const std::string& indent);
/// A barrier, then each output's span from its staging array.
std::string stage_flush(const KernelPlan& plan);

// How the partial results of a row's (in the column form, a vector's) work-
// items meet in local memory, as statements on a partial named x: `put`
// stores x in slot i, `get` sets x to slot i's, `merge` combines slot i's
// into x, `declare` declares x.
struct Meet {
  std::function<std::string(const std::string& i, const std::string& x)> put;
  std::function<std::string(const std::string& x, const std::string& i)> get, merge;
  std::function<std::string(const std::string& x)> declare;
  // For shuffles within a warp (warp_meet): the partial's scalar parts, as
  // (suffix of x, dtype), none where it cannot shuffle; `combine` merges the
  // partial named y into x.
  std::vector<std::pair<std::string, DType>> parts;
  std::function<std::string(const std::string& x, const std::string& y)> combine;
};

/// Reduction k's partials, one value each in sh<k>, at width w.
Meet plain_meet(RowRender& rr, std::size_t k, int w);
/// Combines the work-items' partials (this one's named x) so that every
/// work-item of a row (a vector of columns) ends with the row's in x, each
/// in the same order (render_row.cpp).
std::string meet_partials(const RowRender& rr, const Meet& mt, const std::string& x);
/// meet_partials through a warp's shuffles (ReduceSpec::row_warp,
/// render_row_warp.cpp); empty where the partial's parts cannot shuffle.
std::string warp_meet(const RowRender& rr, const Meet& mt, const std::string& x);
/// By instruction: the other reduction of softmax's pair (max k1, then sum
/// k2 of exp(g - r<k1>), over the same float g), -1 elsewhere.
std::vector<int> online_pairs(const KernelPlan& plan);
/// The (max, sum) pairs of softmax's k1 and k2 at width w, as x<m>, x<s>,
/// in sh<k1> and sh<k2>.
Meet pair_meet(RowRender& rr, std::size_t k1, std::size_t k2, int w);
/// Softmax's max k1 and sum k2 in one pass over the row (render_row_online.cpp).
std::string online_phase(RowRender& rr, std::size_t k1, std::size_t k2);

// The lanes form's whole vectors (render_row_lanes.cpp), in the register
// form: the loads `first` marks, into rc<k>[r] through the block's vectors;
// the outputs (`need`: what they read), through the block's vectors into
// theirs.
std::string lanes_loads(const RowRender& rr, const std::vector<char>& first);
std::string lanes_outputs(RowRender& rr, const std::vector<char>& need, const std::string& ind);

// Rows split over segments (ReduceSpec::row_split, render_row_split.cpp).
/// By instruction: the other reduction of a pair whose partials merge, -1
/// elsewhere: softmax's (online_pairs), and a variance's, the mean k1 of a
/// float g and then a sum or mean k2 of (g - r<k1>) * (g - r<k1>);
/// `variance`, if given, marks the k2 of the latter.
std::vector<int> split_pairs(const KernelPlan& plan, std::vector<char>* variance = nullptr);
/// The work-item's row o, its segment's start sg0_ and end sg1_ (clamped to m),
/// and mo: sg1_, or 0 where the work-item has no segment (o == n) or an empty one.
std::string split_prologue(const RowRender& rr);
/// The partials kernel's end: each segment's reductions' partial results,
/// stored by its first work-item.
std::string split_stores(RowRender& rr);
/// The output kernel's phases: each reduction (a pair, where split_pairs
/// pairs it) from its row's partials, left in r<k>.
std::string split_phases(RowRender& rr);

}  // namespace fusecl::codegen::row
