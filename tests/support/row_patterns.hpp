// Row kernels' test patterns (tests/test_row_fusion.cpp, tests/test_row_layouts.cpp):
// reduce-then-use expressions with a long double host reference per row, the
// rows of an array along an axis, and inputs with edge values in some rows.
#pragma once

#include "support/host_array.hpp"

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cstdint>
#include <functional>
#include <vector>

namespace fusecl::test {

using LD = long double;
inline constexpr LD eps = FLT_EPSILON;

/// Flat indices of every row along `axis` of `dims`, row by row.
std::vector<std::vector<std::int64_t>> rows_of(const Dims& dims, int axis);

/// Inputs in [lo, hi] with different values in every element, and, where
/// asked, edge values in a few rows: +-0 and a subnormal (row 0), +inf (row
/// 1), -inf (row 2), NaN (row 3).
std::vector<float> inputs(const Dims& dims, int axis, std::uint64_t seed, double lo, double hi, bool edges);

LD row_max(const std::vector<float>& h, const std::vector<std::int64_t>& row);
LD row_mean(const std::vector<float>& h, const std::vector<std::int64_t>& row);

/// |got - want| within `tol` (NaN matches NaN, infinities must be equal).
bool close(float got, LD want, LD tol);

struct Pattern {
  const char* name;
  int kernels;  // when the rows fit
  std::function<Array<float>(const Array<float>&, int)> device;
  // Reference for one row: writes `want` and tolerances for each element.
  std::function<void(const std::vector<float>&, const std::vector<std::int64_t>&, std::vector<LD>&, std::vector<LD>&)> host;
  double lo, hi;
};

/// x - max, x - mean, x / sum, softmax, layer norm, softmax of a layer-normed row.
std::vector<Pattern> patterns();

/// `got`, pat's device result on input h of shape d (rows along `axis`),
/// against its host reference, element by element (a Catch2 REQUIRE each).
void check_rows(const Pattern& pat, const std::vector<float>& h, const std::vector<float>& got, const Dims& d, int axis);

}  // namespace fusecl::test
