// How each operation is written in OpenCL C, for each dtype, in scalar form
// (width 1) and in vector form (width 2..16). The semantics are NumPy's and
// must match tests/support/reference.cpp exactly (see README "Semantics").
#pragma once

#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"

#include <map>
#include <string>

namespace fusecl::codegen {

/// OpenCL C type of a dtype at a vector width: "float", "float4", "uchar" for bool.
std::string cl_type(DType t, int width = 1);

/// Helper functions a kernel needs, by name, in the order first requested
/// (so the source is deterministic).
class HelperSet {
 public:
  /// Adds the helper if new and returns its name.
  std::string use(const std::string& name, const std::string& definition);
  std::string text() const;

 private:
  std::map<std::string, std::size_t> index_;
  std::string text_;
};

/// The expression computing `op` on the rendered operands x, y, z of dtype
/// `in` giving dtype `out`, at `width`.
std::string spell(Op op, DType out, DType in, const std::string& x, const std::string& y, const std::string& z,
                  int width, HelperSet& helpers);

/// Whether `op` on `in` has a vector spelling (integer power loops per element).
bool vectorizable(Op op, DType in);

}  // namespace fusecl::codegen
