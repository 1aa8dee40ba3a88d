// The tiled elementwise kernel (KernelPlan::tile): a body with loads read
// through a transpose. Read in place, such a load walks its own memory with
// a large stride while neighbouring work-items write neighbouring outputs, so
// either the reads or the writes are scattered. Here each work-group owns a
// tile x tile square of index dimensions X = ndim-1 (the output's innermost)
// and Y = tile_axis (the Tiled loads' innermost): it first copies each Tiled
// load's square into local memory with neighbouring work-items reading
// neighbouring elements along Y, then, after a barrier, computes the square
// with neighbouring work-items at neighbouring outputs along X, taking the
// Tiled values out of local memory transposed. Other loads are read in place.
#include "codegen/body.hpp"

namespace fusecl::codegen {

std::string tile_batch_coordinates(const KernelPlan& plan) {
  const int X = plan.ndim - 1, Y = plan.tile_axis;
  std::string b;
  for (int d = plan.ndim - 1; d >= 0; --d) {
    if (d == X || d == Y) continue;
    const auto ds = std::to_string(d);
    b += "  const long c" + ds + " = g_ % d" + ds + "; g_ /= d" + ds + ";\n";
  }
  return b;
}

std::string tile_position(const KernelPlan& plan) {
  std::string lin = "c0";
  for (int d = 1; d < plan.ndim; ++d) lin = "(" + lin + ") * d" + std::to_string(d) + " + c" + std::to_string(d);
  return lin;
}

std::string render_tiled(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const int T = plan.tile, R = tile_rows(plan), P = T + 1;  // P: one element of padding against bank conflicts
  const int X = plan.ndim - 1, Y = plan.tile_axis;
  const std::string Ts = std::to_string(T), Rs = std::to_string(R), Ps = std::to_string(P);
  const std::string cx = "c" + std::to_string(X), cy = "c" + std::to_string(Y);
  const std::string dx = "d" + std::to_string(X), dy = "d" + std::to_string(Y);
  const std::string sig = param_list(plan);

  std::string b;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (plan.instrs[k].access == Access::Tiled && plan.instrs[k].op == Op::Buffer)
      b += "  __local " + cl_type(plan.instrs[k].dtype) + " t" + std::to_string(k) + "[" + std::to_string(T * P) + "];\n";
  b += "  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);\n";
  // One flat group index over (batch, Y tiles, X tiles), X fastest: some
  // devices bound the groups along dimensions 1 and 2 to 65535.
  b += "  const long tx_n = (" + dx + " + " + std::to_string(T - 1) + ") / " + Ts + ";\n";
  b += "  const long ty_n = (" + dy + " + " + std::to_string(T - 1) + ") / " + Ts + ";\n";
  b += "  long g_ = (long)get_group_id(0);\n";
  b += "  const long x0 = (g_ % tx_n) * " + Ts + "; g_ /= tx_n;\n";
  b += "  const long y0 = (g_ % ty_n) * " + Ts + "; g_ /= ty_n;\n";
  b += tile_batch_coordinates(plan);
  // Two forms, by device (FCL_CPU: launch.cpp's build options), each the one
  // measured fastest there:
  // - GPUs: each work-item's loads come first, all of them, in loops of a
  //   constant count with no bound test between them, so they are in flight
  //   together (on an H200, x + transpose(y) over 8192 x 8192 floats: 208 us
  //   against 298 with a test before each load). They read from coordinates
  //   clamped into the index space (the edges' extra values are never used),
  //   and only the stores test the edges. (Tiles inside the index space
  //   without the clamps, on a path of their own, measured no faster: 219 us.)
  // - CPUs (PoCL): a loop from the work-item's row and a test per element.
  //   PoCL vectorizes that across work-items; the GPU form's clamped
  //   coordinates become gathers and scatters, and its constant-count loops
  //   are not vectorized (2^22 floats on 2 cores: 13 ms against 8.6).
  // Every work-item reaches the barrier between the phases.
  const std::string U = std::to_string(T / R);
  const std::string lin = tile_position(plan);
  // Phase 1 stages the tiles, read along Y; phase 2 computes the outputs,
  // written along X (other loads read in place), in the CPU's form or the GPU's.
  auto phase = [&](int n, bool cpu, const std::string& ind) {
    const std::string x = n == 1 ? "x0 + j" : "x0 + lx", y = n == 1 ? "y0 + lx" : "y0 + j";
    std::string p;
    if (cpu)
      p = ind + "for (int j = ly; j < " + Ts + "; j += " + Rs + ") {\n" + ind + "  const long " + cx + " = " + x + ", " + cy + " = " + y +
          ";\n" + ind + "  if (" + cx + " < " + dx + " && " + cy + " < " + dy + ") {\n";
    else  // a comparison, not min(): PoCL calls a library function for min of longs
      p = ind + "for (int u = 0; u < " + U + "; ++u) {\n" + ind + "  const int j = ly + u * " + Rs + ";\n" + ind + "  {\n" + ind +
          "    const long " + cx + " = " + x + " < " + dx + " ? " + x + " : " + dx + " - 1, " + cy + " = " + y + " < " + dy + " ? " + y +
          " : " + dy + " - 1;\n";
    const std::string in2 = ind + "    ";
    if (n == 1) {
      for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
        const Instr& in = plan.instrs[k];
        if (in.access != Access::Tiled || in.op != Op::Buffer) continue;
        const auto ks = std::to_string(k);
        std::string addr = "off" + ks;
        for (int d = 0; d < plan.ndim; ++d) addr += " + c" + std::to_string(d) + " * st" + ks + "_" + std::to_string(d);
        p += in2 + "t" + ks + "[j * " + Ps + " + lx] = in" + std::to_string(in.slot) + "[" + addr + "];\n";
      }
    } else {
      p += in2 + "const int tr_ = lx, tc_ = j;\n" + in2 + "const long i = " + lin + ";\n" + emit_body(plan, 1, "i", in2, helpers);
      // Tiled plans have contiguous outputs (tiling.cpp), stored at i.
      if (cpu)
        p += emit_stores(plan, "i", in2);
      else
        p += in2 + "if (" + x + " < " + dx + " && " + y + " < " + dy + ") {\n" + emit_stores(plan, "i", in2 + "  ") + in2 + "}\n";
    }
    return p + ind + "  }\n" + ind + "}\n";
  };
  auto both = [&](int n) { return "#ifdef FCL_CPU\n" + phase(n, true, "  ") + "#else\n" + phase(n, false, "  ") + "#endif\n"; };
  b += both(1) + "  barrier(CLK_LOCAL_MEM_FENCE);\n" + both(2);

  return program_prelude(plan) + helpers.text() + "\n__kernel __attribute__((reqd_work_group_size(" + Ts + ", " + Rs +
         ", 1))) void " + name + "(\n    " + sig + ")\n{\n" + b + "}\n";
}

}  // namespace fusecl::codegen
