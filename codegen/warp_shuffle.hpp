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
/// x (of shufflable dtype t) from lane (this lane + d); past the warp, this lane's own.
std::string shuffle_down(HelperSet& h, DType t, const std::string& x, const std::string& d);
/// x (of shufflable dtype t) from lane l of the warp.
std::string shuffle_index(HelperSet& h, DType t, const std::string& x, const std::string& l);

}  // namespace fusecl::codegen
