// Rows staged through local memory (ReduceSpec::row_staged, render_row.cpp):
// a row kernel held element by element whose group's rows are one span of
// the array, flat positions sb_ to se_ - 1 (rows g * R to g * R + R - 1 of
// m elements; the last group's end at the last row). Its work-items first
// read the span of each contiguous load into local memory together, in
// aligned vectors of row_staged bytes (from the multiple of the width at or
// below the span's start: d<k>_ lanes before it), then each takes its
// elements from there into its registers, as the element form takes them
// from memory. Its outputs go to local memory the same way, and after a
// barrier the group stores each span in vectors, lane by lane only where a
// vector holds another group's elements (the span's first and last).
// Without it a work-item's loads are its row's elements, T apart: over rows
// of 5 floats a warp's load takes 32 elements from 640 bytes, and its
// stores as many; its loads and stores are now the span's neighbours (an
// H200, 2^26 floats, softmax over rows of 5: 189 us against 296 in skewed
// vectors; plan_row.cpp's stage_rows says where it is taken, and
// bench/RESULTS.md, thirty-second session, what was measured).
#include "codegen/row_render.hpp"

namespace fusecl::codegen::row {

namespace {

// Lanes of a staging vector of values of dtype t.
int stage_width(const KernelPlan& plan, DType t) { return std::max(1, int(plan.reduce.row_staged) / size_of(t)); }

// Vectors of width w a group's span takes at most: R * m <= local * K
// elements, from up to w - 1 lanes before its start.
int stage_vectors(const KernelPlan& plan, int w) {
  const int span = int(plan.reduce.local_size) * int(plan.reduce.row_chunks);
  return (span + 2 * w - 2) / w;
}

std::string N(long long v) { return std::to_string(v); }

// Declares a staging array (name<>v, its vectors, and name<>, its values)
// for values of dtype t.
std::string stage_array(const KernelPlan& plan, const std::string& name, DType t) {
  const int w = stage_width(plan, t);
  return "  __local " + cl_type(t, w) + " " + name + "v[" + N(stage_vectors(plan, w)) + "];\n  __local " + cl_type(t, 1) + "* const " +
         name + " = (__local " + cl_type(t, 1) + "*)" + name + "v;\n";
}

// The loop over this work-item's staging vectors i of a span of nv_ (body:
// statements at i).
std::string each_vector(const KernelPlan& plan, int w, const std::string& ind, const std::string& body) {
  const int L = plan.reduce.local_size, J = (stage_vectors(plan, w) + L - 1) / L;
  return ind + "for (int j = 0; j < " + N(J) + "; ++j) {\n" + ind + "  const int i = lid + j * " + N(L) + ";\n" + ind + "  if (i >= nv_) break;\n" +
         body + ind + "}\n";
}

}  // namespace

bool staged_load(const KernelPlan& plan, std::size_t k) {
  return plan.reduce.row_staged > 0 && plan.instrs[k].op == Op::Buffer && plan.instrs[k].access == Access::Contiguous;
}

std::size_t stage_local_bytes(const KernelPlan& plan, const std::vector<char>& first) {
  if (plan.reduce.row_staged == 0) return 0;
  std::size_t bytes = 0;
  auto add = [&](DType t) { bytes += std::size_t(stage_vectors(plan, stage_width(plan, t))) * std::size_t(stage_width(plan, t) * size_of(t)); };
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (first[k] && staged_load(plan, k)) add(plan.instrs[k].dtype);
  for (const auto o : plan.outputs) add(plan.instrs[std::size_t(o)].dtype);
  return bytes;
}

std::string stage_loads(const RowRender& rr, const std::vector<char>& first) {
  const KernelPlan& plan = rr.plan;
  const std::string R = N(plan.reduce.rows_per_group);
  // The span, and where this work-item's row (the last row, past it) starts in it.
  std::string b = "  const long sb_ = (long)get_group_id(0) * " + R + " * m, se_ = min(sb_ + " + R + " * m, n * m);\n";
  b += "  const int sr_ = (int)(((o < n ? o : n - 1) - (long)get_group_id(0) * " + R + ") * m);\n";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j) {
    const DType t = plan.instrs[std::size_t(plan.outputs[j])].dtype;
    b += stage_array(plan, "so" + N(long(j)), t);
    b += "  const int e" + N(long(j)) + "_ = (int)(sb_ % " + N(stage_width(plan, t)) + ");\n";
  }
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    if (!first[k] || !staged_load(plan, k)) continue;
    const Instr& in = plan.instrs[k];
    const int w = stage_width(plan, in.dtype);
    const std::string K = N(long(k)), W = N(w), T1 = cl_type(in.dtype, 1), buf = "in" + N(in.slot), off = "off" + K;
    b += stage_array(plan, "st" + K, in.dtype);
    b += "  const int d" + K + "_ = (int)((" + off + " + sb_) % " + W + ");\n";
    // Whole vectors where the span's last ends within the array (reading
    // before its first element, or past its last into the next group's, is
    // reading the array); else lane by lane up to its end, zeros past it.
    b += "  {\n    const long a_ = " + off + " + sb_ - d" + K + "_, e_ = " + off + " + n * m;\n";
    b += "    const int nv_ = (int)((d" + K + "_ + se_ - sb_ + " + W + " - 1) / " + W + ");\n";
    b += "    if (a_ + (long)nv_ * " + W + " <= e_) {\n";
    b += each_vector(plan, w, "      ", "        st" + K + "v[i] = *(__global const " + cl_type(in.dtype, w) + "*)(" + buf + " + a_ + (long)i * " + W + ");\n");
    b += "    } else {\n";
    std::string lanes;
    for (int l = 0; l < w; ++l) {
      const std::string at = "a_ + (long)i * " + W + " + " + N(l);
      lanes += "        st" + K + "[i * " + W + " + " + N(l) + "] = " + at + " < e_ ? " + buf + "[" + at + "] : (" + T1 + ")(0);\n";
    }
    b += each_vector(plan, w, "      ", lanes) + "    }\n  }\n";
  }
  return b + "  barrier(CLK_LOCAL_MEM_FENCE);\n";
}

std::string stage_read(const KernelPlan& plan, std::size_t k) {
  const std::string K = N(long(k));
  return "const " + cl_type(plan.instrs[k].dtype, 1) + " v" + K + " = st" + K + "[sr_ + (int)r + d" + K + "_];\n";
}

std::string stage_stores(const KernelPlan& plan, const std::string& indent) {
  std::string s;
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    s += indent + "so" + N(long(j)) + "[sr_ + (int)r + e" + N(long(j)) + "_] = v" + N(plan.outputs[j]) + ";\n";
  return s;
}

std::string stage_flush(const KernelPlan& plan) {
  std::string b = "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  for (std::size_t j = 0; j < plan.outputs.size(); ++j) {
    const DType t = plan.instrs[std::size_t(plan.outputs[j])].dtype;
    const int w = stage_width(plan, t);
    const std::string J = N(long(j)), W = N(w), out = "out" + J;
    std::string lanes;
    for (int l = 0; l < w; ++l) {
      const std::string at = "q + " + N(l);
      lanes += "        if (" + at + " >= sb_ && " + at + " < se_) " + out + "[" + at + "] = so" + J + "[i * " + W + " + " + N(l) + "];\n";
    }
    b += "  {\n    const long a_ = sb_ - e" + J + "_;\n    const int nv_ = (int)((e" + J + "_ + se_ - sb_ + " + W + " - 1) / " + W + ");\n";
    b += each_vector(plan, w, "    ",
                     "      const long q = a_ + (long)i * " + W + ";\n      if (q >= sb_ && q + " + W + " <= se_) {\n        *(__global " +
                         cl_type(t, w) + "*)(" + out + " + q) = so" + J + "v[i];\n      } else {\n" + lanes + "      }\n");
    b += "  }\n";
  }
  return b;
}

}  // namespace fusecl::codegen::row
