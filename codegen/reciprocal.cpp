#include "codegen/reciprocal.hpp"

#include <algorithm>
#include <cstdio>

namespace fusecl::codegen {

std::vector<char> reciprocal_divisions(const KernelPlan& plan) {
  std::vector<char> uniform(plan.instrs.size(), 0), marked(plan.instrs.size(), 0);
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const Instr& in = plan.instrs[k];
    if (is_row_reduction(in) || in.op == Op::Scalar) {
      uniform[k] = 1;
    } else if (in.op != Op::Buffer && in.op != Op::Generate) {
      bool u = true;
      for (const std::int16_t o : {in.a, in.b, in.c})
        if (o >= 0 && !uniform[std::size_t(o)]) u = false;
      uniform[k] = u;
    }
    marked[k] = in.op == Op::Div && in.dtype == DType::Float32 && in.b >= 0 && uniform[std::size_t(in.b)] &&
                plan.instrs[std::size_t(in.a)].dtype == DType::Float32 && plan.instrs[std::size_t(in.b)].dtype == DType::Float32;
  }
  return marked;
}

bool has_reciprocal_divisions(const KernelPlan& plan) {
  const std::vector<char> m = reciprocal_divisions(plan);
  return std::find(m.begin(), m.end(), 1) != m.end();
}

namespace {

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08xu", unsigned(v));
  return buf;
}

}  // namespace

std::string reciprocal_divide(HelperSet& h, int width, const std::string& a, const std::string& b, const std::string& range,
                              const std::string& lanes) {
  const bool masked = !lanes.empty() && width > 1;
  const std::string T = cl_type(DType::Float32, width), U = cl_type(DType::UInt32, width),
                    name = "fcl_rdiv_" + T + (masked ? "_m" : "");
  std::string d = "inline " + T + " " + name + "(const " + T + " a, const " + T + " b, uint* range" +
                  (masked ? ", const " + cl_type(DType::Int32, width) + " keep" : std::string()) + ") {\n";
  d += "  const " + T + " z = select((" + T + ")(NAN), (" + T + ")(1.0f) / b, isgreaterequal(fabs(b), (" + T + ")(0x1p" +
       std::to_string(kReciprocalDivisorLow) + "f)) & islessequal(fabs(b), (" + T + ")(0x1p" + std::to_string(kReciprocalDivisorHigh) +
       "f)));\n";
  d += "  const " + T + " q = a * z, q1 = fma(fma(-q, b, a), z, q);\n";
  d += "  const " + U + " t = " + (masked ? "select((" + U + ")(0), " : std::string()) + "(as_" + U + "(q1) << 1) - " + hex(kReciprocalLow) +
       (masked ? ", keep)" : "") + ";\n";
  // The largest lane, in halves (a vector's max is one instruction a lane).
  std::string cur = "t";
  for (int w = width; w > 1; w /= 2) {
    const std::string next = "t" + std::to_string(w / 2);
    d += "  const " + cl_type(DType::UInt32, w / 2) + " " + next + " = max(" + cur + (w == 2 ? ".s0" : ".lo") + ", " + cur +
         (w == 2 ? ".s1" : ".hi") + ");\n";
    cur = next;
  }
  d += "  *range = max(*range, " + cur + ");\n  return q1;\n}\n";
  return h.use(name, d) + "(" + a + ", " + b + ", &" + range + (masked ? ", " + lanes : std::string()) + ")";
}

std::string reciprocal_redo(const std::string& range) { return range + " > " + hex(kReciprocalSpan); }

}  // namespace fusecl::codegen
