// Values moved between the lanes of an NVIDIA warp (32 work-items) through
// shfl.sync, as inline PTX: NVIDIA's OpenCL compiler takes it, and its
// driver offers no sub-group functions. Every lane of the warp must take
// part (the mask is the whole warp): callers shuffle in uniform control flow
// in groups of whole warps. A driver that refuses the PTX fails the build;
// launch.cpp then builds the plan without warps (ReduceSpec::row_warp 0).
#pragma once

#include "codegen/helpers.hpp"
#include "fusecl/dtype.hpp"

#include <string>

namespace fusecl::codegen {

/// Values of 4 and 8 bytes shuffle, as one or two 32-bit words.
bool shufflable(DType t);

// A shuffle is handed out only as a whole statement, `lhs <shuffle>;`, with
// lhs ending in its assignment ("const float y_ =", "acc +="): so none can
// sit inside a conditional, where it would run in some lanes only (a
// maximum of ints spells its operands twice, as `(a >= b) ? a : b`, and so
// gave an H200 wrong maxima).

/// `lhs x';`, x' the value of x (of shufflable dtype t) in lane (this lane +
/// d); past the warp, this lane's own.
std::string shuffle_down(HelperSet& h, DType t, const std::string& lhs, const std::string& x, const std::string& d);
/// `lhs x';`, x' the value of x (of shufflable dtype t) in lane l of the warp.
std::string shuffle_index(HelperSet& h, DType t, const std::string& lhs, const std::string& x, const std::string& l);

}  // namespace fusecl::codegen
