// How each elementwise operation is written in OpenCL C, for each dtype, in
// scalar form (width 1) and in vector form (width 2..16): one row per op in
// spelling.cpp, which a static_assert there holds to the ops of op.hpp. The
// semantics are NumPy's and must match tests/support/reference.cpp exactly
// (see README "Semantics").
#pragma once

#include "codegen/helpers.hpp"
#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"

#include <string>

namespace fusecl::codegen {

/// The expression computing `op` on the rendered operands x, y, z of dtype
/// `in` giving dtype `out`, at `width`.
std::string spell(Op op, DType out, DType in, const std::string& x, const std::string& y, const std::string& z,
                  int width, HelperSet& helpers);

/// Whether `op` on `in` has a vector spelling (integer power loops per element).
bool vectorizable(Op op, DType in);

}  // namespace fusecl::codegen
