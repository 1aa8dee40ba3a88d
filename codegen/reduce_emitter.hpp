// The reduction renderer's state, shared by its files (private to codegen/):
// render_reduce.cpp (each strategy's kernel, the trees, the split
// reductions' partials), render_reduce_vectors.cpp (a work-item's range in
// vectors: compensated chains, halves, arg-reductions, the overlapping tail,
// rows in lanes) and render_reduce_online.cpp (softmax's pair in one pass).
#pragma once

#include "codegen/body.hpp"
#include "codegen/warp_shuffle.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace fusecl::codegen {

struct ReduceEmitter {
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

  // out0[o]: the index, or the value with the plan's finish (render_finish.cpp).
  std::string store(const std::string& ind, const std::string& acc, const std::string& idx) const {
    if (arg) return ind + "out0[o] = " + idx + ";\n";
    const FinishValue f = codegen::finish_value(plan, acc, 1, ind, helpers);
    return f.statements + ind + "out0[o] = " + f.value + ";\n";
  }
};

/// A GroupPerOutput work-item's range in vectors of plan.width (W > 1),
/// folded into its scalar acc (and comp, idx) for the tree: compensated
/// chains (ReduceSpec::chains), an arg-reduction's lanes with their indices,
/// or one vector accumulator, the elements past the last whole vector as
/// one overlapping vector (overlap_tail) or through `tail`, the scalar step
/// at r. L: the row's work-items.
std::string group_vectors(const ReduceEmitter& e, const std::string& L, const std::string& tail);
/// A GPU row's vectors in uniform blocks (ReduceSpec::blocks): each of the
/// row's L work-items takes as many blocks of B vectors, q0_ + lid + k L for
/// k < B, all loaded before any is folded: whole blocks while the row has
/// them, then one last block whose vectors past the row's end (nvec) read
/// its last vector and take `identity` instead. load(q, ind) gives vector
/// q's position, coordinates and loads (its body's value `v`), kept in g<k>_
/// of vector type `type`; fold(gs, ind) folds a block's g<k>_ into the
/// work-item's state.
using VectorAt = std::function<std::string(const std::string& q, const std::string& ind)>;
using BlockFold = std::function<std::string(const std::vector<std::string>& gs, const std::string& ind)>;
std::string uniform_blocks(int B, const std::string& L, const std::string& type, const std::string& v, const std::string& identity,
                           const VectorAt& load, const BlockFold& fold);
/// ThreadPerOutput with ReduceSpec::row_lanes: W rows a work-item, a lane
/// each; `rows_left` takes the last work-item's rows short of a vector.
std::string lanes_rows(const ReduceEmitter& e, const std::string& rows_left);
/// Softmax's pair (ReduceSpec::online) down the columns (ColumnBlock) and
/// over rows a group each (GroupPerOutput): render_reduce_online.cpp.
std::string online_columns(const ReduceEmitter& e);
std::string online_groups(const ReduceEmitter& e);

/// An arg-reduction's values in vectors, each lane with its index (ints of
/// the value's size, so that select takes both: render_reduce_vectors.cpp):
/// the index type, the mask of the lanes where `v`, later in each lane's
/// order, replaces `acc`, and the mask of the lanes where (y, iy) is better
/// than (x, ix) in better()'s order, wherever they come from (an index < 0:
/// no element).
std::string arg_index_type(const ReduceSpec& rs, int W);
/// The better() helper of an arg-reduction (render_reduce.cpp): whether
/// (b, ib) replaces (a, ia): an index < 0 is no element, NaN wins, the lower
/// index settles ties. Its name, the helper added to `helpers`.
std::string arg_better(const ReduceSpec& rs, HelperSet& helpers);
std::string arg_takes(const ReduceEmitter& e, const std::string& v, const std::string& acc);
std::string arg_better_mask(const ReduceEmitter& e, const std::string& x, const std::string& ix, const std::string& y,
                            const std::string& iy);
/// A vector of W lanes `a` with its indices `ia` met in halves down to two
/// lanes (better()'s order lane by lane: a lane with no element loses, NaN
/// wins, the lower index settles ties): one block opened at `ind` a level
/// (W / 2 down to 2; the caller closes them after taking the last two
/// lanes), a and ia renamed to the last level's.
std::string arg_halves(const ReduceEmitter& e, int W, const std::string& ind, std::string& a, std::string& ia);

}  // namespace fusecl::codegen
