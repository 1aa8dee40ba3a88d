// Pairs of reductions that one kernel computes together, as the graph holds
// them: a variance as make_moment builds it, with its mean, and softmax's
// maximum with its sum of exp(x - max). Only the graph's form is matched
// here; the scheduler decides whether a kernel takes the pair.
#pragma once

#include "src/scheduler.hpp"

#include <vector>

namespace fusecl::detail {

/// Whether `view` only broadcasts its input, a reduction over `axes` with
/// kept dimensions, back along them (as x - mean(x, axes, true) reads it).
bool broadcast_back(const Node& view, const std::vector<int>& axes);

/// A pair's two reductions read one array x; the second reads the first.
struct ReductionPair {
  const NodePtr* x = nullptr;      // null: no pair
  const NodePtr* first = nullptr;  // the mean, the max
};

/// `v` as make_moment builds a var/std: the mean of (x - m) * (x - m), m the
/// mean of float32 or float64 x over v's axes (broadcast back), computed in v's body.
ReductionPair variance_pair(const Node& v, const PendingOutputs* pending);

/// `s` as a softmax has it: the sum of exp(x - m), m the max of float32 or
/// float64 x over s's axes (broadcast back), computed in s's body, all of
/// x's dtype.
ReductionPair softmax_pair(const Node& s, const PendingOutputs* pending);

}  // namespace fusecl::detail
