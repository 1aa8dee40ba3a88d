#include "codegen/body.hpp"
#include "codegen/divider.hpp"

#include "codegen/reciprocal.hpp"

namespace fusecl::codegen {

namespace {

std::string address(const KernelPlan& plan, std::size_t k, const std::string& pos) {
  const Instr& in = plan.instrs[k];
  const std::string off = "off" + std::to_string(k);
  switch (in.access) {
    case Access::Contiguous: return off + " + " + pos;
    case Access::Uniform: return off;
    case Access::Strided: case Access::StridedRow: case Access::StridedRowBroadcast: case Access::Tiled: {
      std::string a = off;
      for (int d = 0; d < plan.ndim; ++d) a += " + c" + std::to_string(d) + " * st" + std::to_string(k) + "_" + std::to_string(d);
      return a;
    }
  }
  return off;
}

std::string generate(const Instr& in, std::size_t k, const std::string& ix) {
  const std::string g = "g" + std::to_string(k) + "_";
  const std::string T = cl_type(in.dtype);
  switch (in.gen) {
    case GenKind::Arange:
      if (is_float(in.dtype)) return "(" + g + "0 + (" + T + ")(" + ix + ") * " + g + "1)";
      return "(" + T + ")(" + g + "0 + (" + ix + ") * " + g + "1)";
    case GenKind::Linspace:
      return "(((" + ix + ") == " + g + "3 - 1) ? " + g + "2 : " + g + "0 + (" + T + ")(" + ix + ") * " + g + "1)";
    case GenKind::Eye:
      return "(" + T + ")((((" + ix + ") % " + g + "0) - ((" + ix + ") / " + g + "0)) == " + g + "1)";
    case GenKind::Uniform:
      return std::string(in.dtype == DType::Float64 ? "fusecl_uniform_d" : "fusecl_uniform_f") + "((ulong)(" + ix + "), " + g + "0)";
    case GenKind::Normal:
      return std::string(in.dtype == DType::Float64 ? "fusecl_normal_d" : "fusecl_normal_f") + "((ulong)(" + ix + "), " + g + "0)";
  }
  return "0";
}

// A generator at `width` consecutive indices starting at ix: the same values,
// bit for bit, as the scalar form at each index (Philox is integer arithmetic).
std::string generate_vector(const Instr& in, std::size_t k, const std::string& ix, int width) {
  const std::string W = std::to_string(width);
  const std::string g = "g" + std::to_string(k) + "_";
  std::string lanes = "(long" + W + ")(";
  for (int j = 0; j < width; ++j) lanes += (j ? ", " : "") + std::to_string(j);
  lanes += ")";
  const std::string idx = "((long" + W + ")" + ix + " + " + lanes + ")";
  const std::string T = cl_type(in.dtype, width);
  switch (in.gen) {
    case GenKind::Arange:
      if (is_float(in.dtype)) return "(" + g + "0 + convert_" + T + "(" + idx + ") * " + g + "1)";
      return "convert_" + T + "(" + g + "0 + " + idx + " * " + g + "1)";
    case GenKind::Uniform:
      return std::string(in.dtype == DType::Float64 ? "fusecl_uniform_d" : "fusecl_uniform_f") + W + "(" + idx + ", " + g + "0)";
    case GenKind::Normal:
      return std::string(in.dtype == DType::Float64 ? "fusecl_normal_d" : "fusecl_normal_f") + W + "(" + idx + ", " + g + "0)";
    default: return "";  // the scheduler keeps other generators scalar
  }
}

// A load broadcast along rows in a vector that may cross into the next row
// (KernelPlan::cross_rows): the first row's value, and where the vector
// reaches the next row (k_ < W: lanes k_ and up), that row's value in those
// lanes. render_elementwise declares k_ and the next row's coordinates x<d>_.
std::string cross_row_load(const KernelPlan& plan, std::size_t k, const std::string& T, const std::string& buf,
                           const std::string& addr, int width) {
  std::string next = "off" + std::to_string(k);
  for (int d = 0; d + 1 < plan.ndim; ++d)
    next += " + x" + std::to_string(d) + "_ * st" + std::to_string(k) + "_" + std::to_string(d);
  const std::string first = "(" + T + ")(" + buf + "[" + addr + "])";
  return "(k_ < " + std::to_string(width) + ") ? select(" + first + ", (" + T + ")(" + buf + "[" + next + "]), " +
         lane_test(plan.instrs[k].dtype, width, ">=", "k_") + ") : " + first;
}

}  // namespace

std::string emit_coordinates(const KernelPlan& plan, const std::string& pos, const std::string& indent, int first, int last) {
  if (plan.ndim == 0 || first >= last) return "";
  const std::string r = first == 0 ? "r_" : "r" + std::to_string(first) + "_";
  // Every position and dimension within 32 bits (KernelPlan::index32), and a
  // division to do: one coordinate alone stays the position itself, so that a
  // loop over it keeps its 64-bit induction (the softmax pair's loop down a
  // middle axis lost 4 us on an H200 to a truncation in it).
  const bool narrow = plan.index32 && last - first > 1;
  const std::string to_long = narrow ? "(long)" : "";
  std::string s = indent + (narrow ? "uint " : "long ") + r + " = " + (narrow ? "(uint)(" + pos + ")" : pos) + ";\n";
  for (int d = last - 1; d > first; --d) {
    const auto ds = std::to_string(d);
    if (narrow) {
      // The quotient through the dimension's divider (divider.hpp) on GPUs,
      // by division on CPUs (FCL_CPU: launch.cpp's build options), the
      // remainder from it. On the 2-core PoCL machine, softmax's output over
      // axis 1 of 64 x 256 x 256 floats took 1780 us through mul_hi against
      // 1190 dividing, 1011 through a 64-bit multiply against 923
      // (bench/RESULTS.md, thirty-sixth session).
      const std::string q = r + "q" + ds;
      s += "#ifdef FCL_CPU\n" + indent + "const uint " + q + " = " + r + " / (uint)d" + ds + ";\n#else\n";
      s += indent + "const uint " + q + " = " + emit_divide(r, "dv" + ds) + ";\n#endif\n";
      s += indent + "const long c" + ds + " = (long)(" + r + " - " + q + " * (uint)d" + ds + "); " + r + " = " + q + ";\n";
    } else {
      s += indent + "const long c" + ds + " = " + r + " % d" + ds + "; " + r + " /= d" + ds + ";\n";
    }
  }
  return s + indent + "const long c" + std::to_string(first) + " = " + to_long + r + ";\n";
}

std::string emit_coordinates(const KernelPlan& plan, const std::string& pos, const std::string& indent) {
  return emit_coordinates(plan, pos, indent, 0, plan.ndim);
}

std::string emit_reduced_coordinates(const KernelPlan& plan, const std::string& r, const std::string& indent) {
  return emit_coordinates(plan, r, indent, plan.reduce.kept_dims, plan.ndim);
}

std::string emit_stores(const KernelPlan& plan, const std::string& pos, const std::string& indent) {
  std::string at = pos;
  if (plan.out_strided) {
    at = "outoff";
    for (int d = 0; d < plan.ndim; ++d) at += " + c" + std::to_string(d) + " * ost" + std::to_string(d);
  }
  std::string s;
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    s += indent + "out" + std::to_string(j) + "[" + at + "] = v" + std::to_string(plan.outputs[j]) + ";\n";
  return s;
}

std::string emit_vector_stores(const KernelPlan& plan, int width, const std::string& pos, bool aligned,
                               const std::string& indent) {
  std::string s;
  for (std::size_t j = 0; j < plan.outputs.size(); ++j) {
    const std::string v = "v" + std::to_string(plan.outputs[j]), out = "out" + std::to_string(j);
    if (aligned)
      s += indent + "*(__global " + cl_type(plan.instrs[std::size_t(plan.outputs[j])].dtype, width) + "*)(" + out + " + " + pos +
           ") = " + v + ";\n";
    else
      s += indent + "vstore" + std::to_string(width) + "(" + v + ", 0, " + out + " + " + pos + ");\n";
  }
  return s;
}

// render_row.cpp declares ls_0, ls_1, ..., each lane's offset from the vector's first row.
std::string emit_lane_load(const std::string& type, const std::string& buf, const std::string& pos, int width) {
  std::string e = "(" + type + ")(";
  for (int j = 0; j < width; ++j) e += (j ? ", " : "") + buf + "[" + pos + " + ls_" + std::to_string(j) + "]";
  return e + ")";
}

std::string emit_lane_store(const std::string& v, const std::string& buf, const std::string& pos, int width, const std::string& indent) {
  std::string s;
  for (int j = 0; j < width; ++j) {
    const std::string at = buf + "[" + pos + " + ls_" + std::to_string(j) + "] = " + v + lane(j) + ";";
    s += indent + (j == 0 ? at : "if (" + std::to_string(j) + " < nv_) " + at) + "\n";
  }
  return s;
}

std::string emit_lane_stores(const KernelPlan& plan, int width, const std::string& pos, const std::string& indent) {
  std::string s;
  for (std::size_t j = 0; j < plan.outputs.size(); ++j)
    s += emit_lane_store("v" + std::to_string(plan.outputs[j]), "out" + std::to_string(j), pos, width, indent);
  return s;
}

std::string scalar_value(int slot, const std::string& T, int width) {
  return width == 1 ? "s" + std::to_string(slot) : "(" + T + ")(s" + std::to_string(slot) + ")";
}

std::string spell_entry(const std::vector<Instr>& instrs, std::size_t k, const std::string& prefix, const std::string& suffix,
                        int width, HelperSet& helpers) {
  const Instr& in = instrs[k];
  auto v = [&](std::int16_t i) { return i >= 0 ? prefix + std::to_string(i) + suffix : std::string(); };
  return spell(in.op, in.dtype, operand_dtype(instrs, in), v(in.a), v(in.b), v(in.c), width, helpers);
}

std::string emit_body(const KernelPlan& plan, int width, const std::string& pos, const std::string& indent,
                      HelperSet& helpers, const std::vector<char>* only, const Reciprocals* reciprocals) {
  std::string s;
  const std::string W = std::to_string(width);
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    if (only && !(*only)[k]) continue;
    const Instr& in = plan.instrs[k];
    const std::string T = cl_type(in.dtype, width);
    std::string e;
    switch (in.op) {
      case Op::Buffer: {
        const std::string buf = "in" + std::to_string(in.slot);
        const std::string addr = address(plan, k, pos);
        if (in.access == Access::Tiled && plan.tile_registers)
          // A CPU's block (render_tiled_registers.cpp): its vector of this
          // row, turned in registers (tt<k>); an element read in place on
          // the block's path element by element.
          e = width > 1 ? "tt" + std::to_string(k) : buf + "[" + addr + "]";
        else if (in.access == Access::Tiled)
          // Staged in local memory by the tiled renderer (render_tiled.cpp),
          // which names this element's place in the tile tr_ (along the
          // output's innermost axis) and tc_ (along the load's own).
          e = "t" + std::to_string(k) + "[tr_ * " + std::to_string(plan.tile + 1) + " + tc_]";
        else if (width == 1) e = buf + "[" + addr + "]";
        else if (in.access == Access::Contiguous && plan.reduce.row_lanes) e = emit_lane_load(T, buf, addr, width);
        else if ((in.access == Access::Contiguous || in.access == Access::StridedRow) && plan.aligned)
          // A vector pointer may be assumed aligned: one wide load (vloadN need not be).
          e = "*(__global const " + T + "*)(" + buf + " + " + addr + ")";
        else if (in.access == Access::Contiguous || in.access == Access::StridedRow)
          e = "vload" + W + "(0, " + buf + " + " + addr + ")";
        else if (in.access == Access::StridedRowBroadcast && plan.cross_rows)
          e = cross_row_load(plan, k, T, buf, addr, width);
        else e = "(" + T + ")(" + buf + "[" + addr + "])";  // uniform across the vector
        break;
      }
      case Op::Scalar:
        e = scalar_value(in.slot, T, width);
        break;
      case Op::Generate: {
        if (width == 1 || in.access != Access::Contiguous) {
          const std::string g = generate(in, k, "(" + address(plan, k, pos) + ")");
          e = width == 1 ? g : "(" + T + ")(" + g + ")";  // uniform: one value for the vector
        } else {
          e = generate_vector(in, k, "(" + address(plan, k, pos) + ")", width);
        }
        break;
      }
      default: {
        if (reciprocals && (*reciprocals->marked)[k])
          e = reciprocal_divide(helpers, width, "v" + std::to_string(in.a), "v" + std::to_string(in.b), reciprocals->range, reciprocals->lanes);
        else
          e = spell_entry(plan.instrs, k, "v", "", width, helpers);
      }
    }
    s += indent + "const " + T + " v" + std::to_string(k) + " = " + e + ";\n";
  }
  return s;
}

std::string lane(int j) {
  static const char* hex = "0123456789abcdef";
  return std::string(".s") + hex[j];
}

std::string lane_test(DType t, int w, const std::string& op, const std::string& bound) {
  const DType flag = detail::signed_of_size(size_of(t));
  const std::string IT = cl_type(flag, w);
  std::string lanes;
  for (int j = 0; j < w; ++j) lanes += (j ? ", " : "") + std::to_string(j);
  return "(" + IT + ")(" + lanes + ") " + op + " (" + IT + ")((" + cl_type(flag) + ")" + bound + ")";
}

std::string pick(const std::string& a, const std::string& b, const std::string& cond, int w) {
  return w > 1 ? "select(" + a + ", " + b + ", " + cond + ")" : "((" + cond + ") ? " + b + " : " + a + ")";
}

namespace {
std::string flag_type(DType t, int w) { return w > 1 ? cl_type(detail::signed_of_size(size_of(t)), w) : std::string("int"); }
}  // namespace

bool nan_noted(Op combine, DType t) { return is_float(t) && (combine == Op::Maximum || combine == Op::Minimum); }

std::string nan_note_declare(DType t, const std::string& flag, const std::string& acc, int w, const std::string& indent) {
  return indent + flag_type(t, w) + " " + flag + " = isnan(" + acc + ");\n";
}

std::string nan_note_step(Op combine, const std::string& acc, const std::string& flag, const std::string& v) {
  return acc + " = " + (combine == Op::Maximum ? "fmax(" : "fmin(") + acc + ", " + v + "); " + flag + " |= isnan(" + v + ");";
}

std::string nan_note_apply(DType t, const std::string& acc, const std::string& flag, int w, const std::string& indent) {
  return indent + acc + " = " + pick(acc, "(" + cl_type(t, w) + ")(NAN)", flag + " != (" + flag_type(t, w) + ")(0)", w) + ";\n";
}

}  // namespace fusecl::codegen
