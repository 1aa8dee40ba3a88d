// The lanes form's whole vectors (ReduceSpec::row_lanes, render_row.cpp): a
// work-item's W rows of M elements are W * M neighbouring elements, so they
// are loaded as M vectors of W and turned, in registers, into M vectors of
// lanes (lane j of vector r: row j's element r) with shuffles; the phases
// then run in the register form over those, and the outputs, M vectors of
// lanes, are turned back into M vectors of neighbouring elements and stored
// whole. A lane-by-lane gather or scatter costs an insert or extract and a
// scalar access per element; this costs a load or store per W elements and
// about one shuffle per element each way.
#include "codegen/row_render.hpp"

namespace fusecl::codegen::row {

namespace {

// The unsigned type of t's element size, at width w: shuffle's mask.
std::string mask_type(DType t, int w) {
  const int bytes = size_of(t);
  return std::string(bytes == 1 ? "uchar" : bytes == 2 ? "ushort" : bytes == 4 ? "uint" : "ulong") + std::to_string(w);
}

// A vector of W lanes, lane l taken from lane at[l].second of source vector
// at[l].first (named by `name`), as a chain of shuffle and shuffle2 (one
// source vector each, in the order the lanes first name them).
std::string lanes_from(const std::vector<std::pair<int, int>>& at, const std::function<std::string(int)>& name, const std::string& mask) {
  const int W = int(at.size());
  std::vector<int> order;
  for (const auto& [src, lane_] : at)
    if (std::find(order.begin(), order.end(), src) == order.end()) order.push_back(src);
  std::string e;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::string m = "(" + mask + ")(";
    for (int l = 0; l < W; ++l) {
      const bool here = at[std::size_t(l)].first == order[i];
      const int pick = i == 0 ? (here ? at[std::size_t(l)].second : 0) : (here ? W + at[std::size_t(l)].second : l);
      m += (l ? ", " : "") + std::to_string(pick);
    }
    m += ")";
    e = i == 0 ? "shuffle(" + name(order[i]) + ", " + m + ")" : "shuffle2(" + e + ", " + name(order[i]) + ", " + m + ")";
  }
  return e;
}

}  // namespace

std::string lanes_loads(const RowRender& rr, const std::vector<char>& first) {
  const KernelPlan& plan = rr.plan;
  const int W = plan.width, M = plan.reduce.row_lane_length;
  std::string s;
  for (std::size_t k = 0; k < first.size(); ++k) {
    if (!first[k]) continue;
    const Instr& in = plan.instrs[k];
    const std::string T = cl_type(in.dtype, W), K = std::to_string(k), src = "in" + std::to_string(in.slot) + " + off" + K + " + base";
    s += "  {\n";
    for (int i = 0; i < M; ++i)
      s += "    const " + T + " b" + std::to_string(i) + "_ = vload" + std::to_string(W) + "(" + std::to_string(i) + ", " + src + ");\n";
    for (int r = 0; r < M; ++r) {
      // Lane j of vector r: element j * M + r of the block, lane (j * M + r) % W of load (j * M + r) / W.
      std::vector<std::pair<int, int>> at;
      for (int j = 0; j < W; ++j) at.push_back({(j * M + r) / W, (j * M + r) % W});
      s += "    rc" + K + "[" + std::to_string(r) + "] = " +
           lanes_from(at, [](int i) { return "b" + std::to_string(i) + "_"; }, mask_type(in.dtype, W)) + ";\n";
    }
    s += "  }\n";
  }
  return s;
}

std::string lanes_outputs(RowRender& rr, const std::vector<char>& need, const std::string& ind) {
  const KernelPlan& plan = rr.plan;
  const int W = plan.width, M = plan.reduce.row_lane_length;
  std::string s = ind + "{\n";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    s += ind + "  " + cl_type(plan.instrs[std::size_t(plan.outputs[j])].dtype, W) + " ro" + std::to_string(j) + "_[" + std::to_string(M) + "];\n";
  s += rr.head(ind + "  ", W) + rr.body(need, ind + "    ", W);
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    s += ind + "    ro" + std::to_string(j) + "_[k] = v" + std::to_string(plan.outputs[j]) + ";\n";
  s += ind + "  }\n";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j) {
    const std::string J = std::to_string(j);
    const DType t = plan.instrs[std::size_t(plan.outputs[j])].dtype;
    for (int i = 0; i < M; ++i) {
      // Element i * W + l of the block: row (i * W + l) / M's element (i * W + l) % M.
      std::vector<std::pair<int, int>> at;
      for (int l = 0; l < W; ++l) at.push_back({(i * W + l) % M, (i * W + l) / M});
      s += ind + "  vstore" + std::to_string(W) + "(" + lanes_from(at, [&](int r) { return "ro" + J + "_[" + std::to_string(r) + "]"; }, mask_type(t, W)) +
           ", " + std::to_string(i) + ", out" + J + " + base);\n";
    }
  }
  return s + ind + "}\n";
}

}  // namespace fusecl::codegen::row
