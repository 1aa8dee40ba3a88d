// A row's partials meeting within NVIDIA warps (ReduceSpec::row_warp): the
// work-items of a row are consecutive lanes, so a row of T <= 32 work-items
// lies in one warp, and its partials meet through shfl.sync
// (warp_shuffle.hpp) with no local memory and no barrier: a tree down to the row's
// first lane (lane l merges lane l + d's, d = T/2, ..., 1), whose value then
// goes to every lane of the row, so every work-item holds the same bits, as
// in local memory. A row of more work-items meets in each warp so, then the
// warps' first lanes' partials in local memory, after one barrier, each
// work-item merging them in the same order.
//
// Why: in local memory each work-item of a row of 32 reads 12 partials, in
// two levels with two barriers. An H200, 2^26 floats, softmax over rows of
// 257: 159 us against 173 (and 233 in one level of 32 reads); over rows of
// 2047 (128 work-items) 148 against 163.
#include "codegen/row_render.hpp"
#include "codegen/warp_shuffle.hpp"

#include <algorithm>

namespace fusecl::codegen::row {

std::string warp_meet(const RowRender& rr, const Meet& mt, const std::string& x) {
  if (mt.parts.empty() || !std::all_of(mt.parts.begin(), mt.parts.end(), [](const auto& p) { return shufflable(p.second); }))
    return "";
  const int T = std::stoi(rr.T), W = rr.plan.reduce.row_warp;
  const int lanes = std::min(T, W);  // of the row in each warp
  std::string s = "    {\n      " + mt.declare("y_") + "\n";
  for (int d = lanes / 2; d > 0; d /= 2) {
    for (const auto& [suffix, t] : mt.parts)
      s += "      " + shuffle_down(rr.helpers, t, "y_" + suffix + " =", x + suffix, std::to_string(d) + "u") + "\n";
    s += "      " + mt.combine(x, "y_") + "\n";
  }
  s += "    }\n";
  if (T <= W) {
    // The row's first lane's value to every lane of the row.
    const std::string first = "(uint)((lid - sl) & " + std::to_string(W - 1) + ")";
    for (const auto& [suffix, t] : mt.parts) s += "    " + shuffle_index(rr.helpers, t, x + suffix + " =", x + suffix, first) + "\n";
    return s;
  }
  // Each warp's first lane's partial, then every work-item merges the row's T / W of them in order.
  const std::string Ws = std::to_string(W);
  s += "    if ((lid & " + std::to_string(W - 1) + ") == 0) { " + mt.put("lid", x) + " }\n";
  s += "    barrier(CLK_LOCAL_MEM_FENCE);\n";
  s += "    " + mt.get(x, "lid - sl") + "\n";
  return s + "    for (int j = 1; j < " + std::to_string(T / W) + "; ++j) " + mt.merge(x, "lid - sl + j * " + Ws) + "\n";
}

}  // namespace fusecl::codegen::row
