// The skewed register form (ReduceSpec::row_skew, render_row.cpp): a row
// kernel holding rows that are no multiple of the vector width W in its
// work-items' registers, in vectors. Row o's elements are flat positions
// o * m to o * m + m - 1; its vectors start at the multiple of W at or below
// o * m (a_ = o * m % W lanes before its first element), so every vector
// load is aligned, and it takes nv_ = (a_ + m + W - 1) / W of them. Only the
// first and the last reach past the row, into other rows: the phases add the
// reductions' identity in those lanes, the outputs store the row's lanes one
// by one there, and a reciprocal's range test leaves them out. Without it
// such rows were held an element at a time (scalar loads), and on GPUs rows
// of more than 4096 of them took today's kernels instead
// (DeviceTuning::row_odd_elements).
#include "codegen/row_render.hpp"

namespace fusecl::codegen::row {

std::string skew_mask(DType t, int w) { return "((" + lane_test(t, w, ">=", "lo_") + ") & (" + lane_test(t, w, "<", "hi_") + "))"; }

std::string skew_prologue(const RowRender& rr) {
  // The row's first element is lane a_ of its first vector, and it takes
  // nv_ vectors. The first is part full where a_ > 0 (work-item 0's k = 0:
  // kf_), the last where tl_ > 0 (tl_ lanes; the work-item that takes it,
  // its k: kl_); -1 where this work-item has no such vector. A phase tests
  // k against them (k is a constant where its loop is unrolled), not its
  // vector's position: the masks' 64-bit arithmetic at every vector took
  // softmax over rows of 1001 on an H200 from 146 to 206 us.
  const std::string W = std::to_string(rr.width());
  return "  const long a_ = o < n ? o * m % " + W + " : 0, nv_ = o < n ? (a_ + m + " + W + " - 1) / " + W + " : 0;\n" +
         "  const int tl_ = (int)((a_ + m) % " + W + "), kf_ = sl == 0 && a_ > 0 ? 0 : -1,\n" +
         "            kl_ = tl_ > 0 && nv_ > 0 && (nv_ - 1) % " + rr.T + " == sl ? (int)((nv_ - 1) / " + rr.T + ") : -1;\n";
}

std::string skew_stores(const KernelPlan& plan, int w, const std::string& indent) {
  std::string part;
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    for (int l = 0; l < w; ++l) {
      const std::string L = std::to_string(l);
      part += indent + "  if (lo_ <= " + L + " && " + L + " < hi_) out" + std::to_string(j) + "[p + " + L + "] = v" +
              std::to_string(plan.outputs[j]) + lane(l) + ";\n";
    }
  return indent + "if (lo_ == 0 && hi_ == " + std::to_string(w) + ") {\n" + emit_vector_stores(plan, w, "p", plan.aligned, indent + "  ") +
         indent + "} else {\n" + part + indent + "}\n";
}

std::string skew_loads(const RowRender& rr, const std::vector<char>& first) {
  const KernelPlan& plan = rr.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W);
  // Rows past the last (the last group's) load the last row, and a work-
  // item's vectors past its row's last that one; the phases skip them.
  // Other rows' lanes are loaded as they are (the phases leave them out).
  // Only the last row's last vector can pass the array's end (where n * m
  // is no multiple of W): that row loads lane by lane, each lane past the
  // end the row's last element. The branch is per row, so that every other
  // row's loads are one straight run (a branch per vector, both ways writing
  // the register, took softmax over rows of 1001 on an H200 from 158 to 199 us).
  std::string b = "  {\n    const long oc = o < n ? o : n - 1;\n";
  b += "    const long b0_ = oc * m - oc * m % " + Ws + ", lv_ = (oc * m % " + Ws + " + m + " + Ws + " - 1) / " + Ws + " - 1;\n";
  auto loop = [&](const std::string& body) {
    return "      for (int k = 0; k < " + rr.K + "; ++k) {\n        const long rk_ = sl + (long)k * " + rr.T + ", r = rk_ < lv_ ? rk_ : lv_;\n" +
           "        const long p = b0_ + r * " + Ws + ";\n" + body + "      }\n";  // not min(): see render_tiled.cpp
  };
  std::string whole = emit_body(plan, W, "p", "        ", rr.helpers, &first), part;
  for (std::size_t k = 0; k < first.size(); ++k) {
    if (!first[k]) continue;
    whole += "        rc" + std::to_string(k) + "[k] = v" + std::to_string(k) + ";\n";
    const Instr& in = plan.instrs[k];  // a contiguous load (the scheduler's condition: no coordinates)
    std::string e = "(" + cl_type(in.dtype, W) + ")(";
    for (int j = 0; j < W; ++j) {
      const std::string at = "p + " + std::to_string(j);
      e += (j ? ", " : "") + std::string("in") + std::to_string(in.slot) + "[off" + std::to_string(k) + " + (" + at + " < n * m ? " + at +
           " : n * m - 1)]";
    }
    part += "        rc" + std::to_string(k) + "[k] = " + e + ");\n";
  }
  b += "    if (b0_ + (lv_ + 1) * " + Ws + " <= n * m) {\n" + loop(whole) + "    } else {\n" + loop(part) + "    }\n  }\n";
  return b;
}

}  // namespace fusecl::codegen::row
