// The lanes form's whole vectors (ReduceSpec::row_lanes, render_row.cpp): a
// work-item's W rows of M elements are W * M neighbouring elements, so they
// are loaded as M vectors of W and turned, in registers, into M vectors of
// lanes (lane j of vector r: row j's element r) with shuffles; the phases
// then run in the register form over those, and the outputs, M vectors of
// lanes, are turned back into M vectors of neighbouring elements and stored
// whole. A lane-by-lane gather or scatter costs an insert or extract and a
// scalar access per element; this a load or store per W elements and the
// shuffles the compiler makes of the vector literals, at most an insert or
// extract per element.
#include "codegen/row_render.hpp"

namespace fusecl::codegen {

namespace {

// A vector of type `type` whose lane l is lane at[l].second of source
// vector at[l].first (named by `name`): a vector literal of the lanes, which
// the compiler turns into shuffles. (OpenCL's shuffle2, a library function
// on PoCL, took 21 ms where this takes 0.6 for softmax over rows of 31 at
// 2^22 on PoCL 5.0: bench/RESULTS.md, twenty-seventh session.)
std::string lanes_from(const std::vector<std::pair<int, int>>& at, const std::function<std::string(int)>& name, const std::string& type) {
  std::string e = "(" + type + ")(";
  for (std::size_t l = 0; l < at.size(); ++l) e += (l ? ", " : "") + name(at[l].first) + lane(at[l].second);
  return e + ")";
}

}  // namespace

std::string rows_into_lanes(const std::string& type, int W, int M, const std::string& src, const std::string& dst, const std::string& ind) {
  std::string s;
  for (int i = 0; i < M; ++i)
    s += ind + "const " + type + " b" + std::to_string(i) + "_ = vload" + std::to_string(W) + "(" + std::to_string(i) + ", " + src + ");\n";
  for (int r = 0; r < M; ++r) {
    // Lane j of vector r: element j * M + r of the block, lane (j * M + r) % W of load (j * M + r) / W.
    std::vector<std::pair<int, int>> at;
    for (int j = 0; j < W; ++j) at.push_back({(j * M + r) / W, (j * M + r) % W});
    s += ind + dst + "[" + std::to_string(r) + "] = " + lanes_from(at, [](int i) { return "b" + std::to_string(i) + "_"; }, type) + ";\n";
  }
  return s;
}

RowLanes reduction_rows_in_lanes(const KernelPlan& plan, const std::string& ind) {
  const int W = plan.width, M = plan.reduce.row_lane_length;
  RowLanes l{"", "", std::vector<char>(plan.instrs.size(), 1)};
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const Instr& in = plan.instrs[k];
    if (in.op != Op::Buffer || in.access != Access::Contiguous) continue;
    l.rest[k] = 0;
    const std::string T = cl_type(in.dtype, W), K = std::to_string(k);
    l.load += ind + T + " rc" + K + "[" + std::to_string(M) + "];\n" + ind + "{\n" +
              rows_into_lanes(T, W, M, "in" + std::to_string(in.slot) + " + off" + K + " + o0_ * " + std::to_string(M), "rc" + K, ind + "  ") +
              ind + "}\n";
    l.take += ind + "  const " + T + " v" + K + " = rc" + K + "[r];\n";
  }
  return l;
}

namespace row {

std::string lanes_loads(const RowRender& rr, const std::vector<char>& first) {
  const KernelPlan& plan = rr.plan;
  const int W = plan.width, M = plan.reduce.row_lane_length;
  std::string s;
  for (std::size_t k = 0; k < first.size(); ++k) {
    if (!first[k]) continue;
    const Instr& in = plan.instrs[k];
    const std::string T = cl_type(in.dtype, W), K = std::to_string(k), src = "in" + std::to_string(in.slot) + " + off" + K + " + base";
    s += "  {\n" + rows_into_lanes(T, W, M, src, "rc" + K, "    ") + "  }\n";
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
      s += ind + "  vstore" + std::to_string(W) + "(" + lanes_from(at, [&](int r) { return "ro" + J + "_[" + std::to_string(r) + "]"; }, cl_type(t, W)) +
           ", " + std::to_string(i) + ", out" + J + " + base);\n";
    }
  }
  return s + ind + "}\n";
}

}  // namespace row

}  // namespace fusecl::codegen
