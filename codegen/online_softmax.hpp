// Softmax's pair of reductions in one pass: the maximum m of g and the sum s
// of exp(g - m), as the row kernels' online phase (render_row.cpp) and the
// column blocks' (render_reduce.cpp) compute them, each work-item (each lane
// of a vector) with its own state, then the states merged.
//
// A state x<m, r, s, c> keeps the maximum m of its elements and the sum s
// of exp(g - r), r a reference that moves to g only where g passes it by
// more than 64 (so s stays finite, and is rescaled, rounding once, rarely:
// a rescale at every new maximum would round at every element of a rising
// row), with c the Kahan compensation of s. finish then scales s to m; the
// finished pairs merge as s1 exp(m1 - m) + s2 exp(m2 - m). r starts at the
// lowest finite value, so that -inf elements add exp(-inf) = 0 until a
// finite one comes. The sum is NaN where the maximum is not finite, as
// exp(g - max) makes it in two passes (online_sum).
#pragma once

#include "codegen/spelling.hpp"

#include <string>
#include <vector>

namespace fusecl::codegen {

/// Declares the state x<m, r, s, c> at width w of dtype t (Float32 or Float64),
/// and x<nan>, the NaN its max met (body.hpp's nan_note_*).
std::string online_declare(DType t, const std::string& x, int w, const std::string& ind);
/// Folds g (an expression of width w) into state x.
std::string online_step(DType t, const std::string& g, const std::string& x, int w, const std::string& ind);
/// Folds the vectors gs (expressions of width w, loaded before) into state
/// x as online_step does one by one, but with one test against the
/// reference for the block: the reference moves to the block's maximum. A
/// work-item's loads of a block are in flight together, where a test and
/// branch after each load keeps one in flight (softmax over an H200's rows
/// of 65536 floats: the pair kernel read at two thirds of a sum's rate).
std::string online_block_step(DType t, const std::vector<std::string>& gs, const std::string& x, int w, const std::string& ind);
/// Marks x's max NaN where it met one, then scales x's sum to that maximum
/// (0 where it is -inf: no finite element).
std::string online_finish(DType t, const std::string& x, int w, const std::string& ind);
/// Finishes vector state x (width w > 1) and merges its lanes into the
/// fresh scalar state `into` (its max -inf, its sum 0), as online_finish then
/// a merge a lane would, with one exp a lane where they take three: into's
/// max is the lanes' (NaN where one met NaN) and its sum relative to it.
std::string online_lanes(DType t, const std::string& x, const std::string& into, int w, HelperSet& helpers, const std::string& ind);
/// A row's finished pairs (each of its T work-items' pm, ps; lid the
/// work-item's index in the row) merged into gm_ (the maximum) and gs_ (the
/// sum relative to it), declared for lid 0: the maximum first, then each
/// work-item's sum scaled to it (one exp each), then the sums, where a tree
/// of merges takes two exps a step. Through __local shm and shs of T
/// entries (the row's), a tree a level behind a barrier each; or where
/// `warp` (ReduceSpec::row_warp, 32) through NVIDIA warps' shuffles, a row
/// of T <= warp within one warp, no barrier and no local memory, a longer
/// row's warps meeting in shm and shs (T / warp entries) behind one barrier
/// each.
std::string online_group_combine(DType t, int T, int warp, HelperSet& helpers);
/// The helper merging finished pairs at width w of dtype t,
/// fcl_online_<type>(&m, &s, m2, s2): its name.
std::string online_merge(DType t, int w, HelperSet& helpers);
/// Scalar state x's reference moved to its maximum, after finished pairs
/// merged into x (its sum is relative to that maximum), and its NaN note
/// taken from that maximum.
std::string online_rebase(DType t, const std::string& x, const std::string& ind);
/// The sum of a finished pair (m, s) as the two-pass definition has it: NaN
/// where m is not finite.
std::string online_sum(DType t, const std::string& m, const std::string& s, int w);

}  // namespace fusecl::codegen
