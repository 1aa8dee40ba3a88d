// The tiled elementwise kernel's CPU form (KernelPlan::tile_registers): a
// body with loads read through a transpose, in blocks turned in registers.
//
// On a CPU a work-group is a loop on one core, and the local-memory form
// (render_tiled.cpp) pays for what a GPU gains from: its staging loads use a
// stride only known at run time, so PoCL gathers them, its second phase
// gathers the tile out of local memory, and every element is tested against
// the edges. There x + transpose(y) over 2048 x 2048 floats took 10-12 ms on
// 2 cores (the copy kernel about 1). Here each work-item owns a T x T block
// (T = 8, 4 for 8-byte elements) of index dimensions X = ndim-1 (the
// output's innermost) and Y = tile_axis (the Tiled loads' innermost):
// - each Tiled load is read as T vectors along Y, one per column of the block
//   (T neighbouring elements of its own memory each: its stride along Y is 1);
// - for each row of the block, lane r of those T vectors is that row's vector
//   along X (`tt<k>`, a vector literal, which the compiler makes shuffles);
// - the body runs on vectors of T along X, every other load reading its
//   vector in place (plan.tile_registers is only chosen where each can:
//   tiling.cpp), and the outputs are stored as vectors.
// Blocks at the edges, and loads whose stride along Y is not 1 (a flip), take
// a path element by element, reading in place. A work-group is 16 x 16 blocks
// (128 x 128 floats), X fastest: consecutive work-items continue each other's
// rows, and a group's reads stay within a few hundred kilobytes. The kernel
// took 2.8-3.3 ms over the 2048 x 2048 floats above, x + y read by the same
// blocks 3.1-3.4 (bench/results/proto43/harness.cpp; bench/RESULTS.md,
// forty-third session).
#include "codegen/body.hpp"

namespace fusecl::codegen {

std::string render_tiled_registers(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const int T = plan.tile, X = plan.ndim - 1, Y = plan.tile_axis;
  const std::string Ts = std::to_string(T), Tm = std::to_string(T - 1), B = std::to_string(kTileBlocks);
  const std::string cx = "c" + std::to_string(X), cy = "c" + std::to_string(Y);
  const std::string dx = "d" + std::to_string(X), dy = "d" + std::to_string(Y);
  const std::string sig = param_list(plan);

  std::vector<std::size_t> tiled;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (plan.instrs[k].access == Access::Tiled && plan.instrs[k].op == Op::Buffer) tiled.push_back(k);

  std::string b;
  // Blocks of T x T; a work-group is kTileBlocks x kTileBlocks of them
  // (launch.cpp), one flat group index over (batch, Y, X), X fastest.
  b += "  const long tx_n = (" + dx + " + " + Tm + ") / " + Ts + ", ty_n = (" + dy + " + " + Tm + ") / " + Ts + ";\n";
  b += "  const long sx_n = (tx_n + " + std::to_string(kTileBlocks - 1) + ") / " + B + ", sy_n = (ty_n + " +
       std::to_string(kTileBlocks - 1) + ") / " + B + ";\n";
  b += "  const int l_ = (int)get_local_id(0);\n";
  b += "  long g_ = (long)get_group_id(0);\n";
  b += "  const long bx_ = (g_ % sx_n) * " + B + " + l_ % " + B + "; g_ /= sx_n;\n";
  b += "  const long by_ = (g_ % sy_n) * " + B + " + l_ / " + B + "; g_ /= sy_n;\n";
  b += tile_batch_coordinates(plan);
  b += "  if (bx_ >= tx_n || by_ >= ty_n) return;\n";
  b += "  const long x0 = bx_ * " + Ts + ", y0 = by_ * " + Ts + ";\n";
  const std::string lin = tile_position(plan);

  // The whole block in vectors: inside the index space, every Tiled load
  // stepping by one element along Y.
  std::string whole = "x0 + " + Ts + " <= " + dx + " && y0 + " + Ts + " <= " + dy;
  for (const auto k : tiled) whole += " && st" + std::to_string(k) + "_" + std::to_string(Y) + " == 1";
  b += "  if (" + whole + ") {\n";
  for (const auto k : tiled) {
    const auto ks = std::to_string(k);
    const std::string VT = cl_type(plan.instrs[k].dtype, T);
    // Column q of the block: coordinates (x0 + q, y0, batch), T elements along Y.
    std::string base = "off" + ks;
    for (int d = 0; d < plan.ndim; ++d) {
      const auto ds = std::to_string(d);
      if (d == Y) base += " + y0";
      else if (d != X) base += " + c" + ds + " * st" + ks + "_" + ds;
    }
    for (int q = 0; q < T; ++q)
      b += "    const " + VT + " a" + ks + "_" + std::to_string(q) + " = vload" + Ts + "(0, in" +
           std::to_string(plan.instrs[k].slot) + " + " + base + " + (x0 + " + std::to_string(q) + ") * st" + ks + "_" +
           std::to_string(X) + ");\n";
  }
  for (int r = 0; r < T; ++r) {
    b += "    {\n      const long " + cx + " = x0, " + cy + " = y0 + " + std::to_string(r) + ";\n";
    b += "      const long i = " + lin + ";\n";
    for (const auto k : tiled) {
      const auto ks = std::to_string(k);
      const std::string VT = cl_type(plan.instrs[k].dtype, T);
      std::string lanes;
      for (int q = 0; q < T; ++q) lanes += (q ? ", " : "") + std::string("a") + ks + "_" + std::to_string(q) + lane(r);
      b += "      const " + VT + " tt" + ks + " = (" + VT + ")(" + lanes + ");\n";
    }
    b += emit_body(plan, T, "i", "      ", helpers);
    b += emit_vector_stores(plan, T, "i", false, "      ");
    b += "    }\n";
  }
  b += "    return;\n  }\n";
  // The edges (and loads that do not step by one along Y): element by element.
  b += "  for (int r_ = 0; r_ < " + Ts + "; ++r_)\n    for (int q_ = 0; q_ < " + Ts + "; ++q_) {\n";
  b += "      const long " + cx + " = x0 + q_, " + cy + " = y0 + r_;\n";
  b += "      if (" + cx + " < " + dx + " && " + cy + " < " + dy + ") {\n";
  b += "        const long i = " + lin + ";\n";
  b += emit_body(plan, 1, "i", "        ", helpers);
  b += emit_stores(plan, "i", "        ");
  b += "      }\n    }\n";

  return program_prelude(plan) + helpers.text() + "\n__kernel __attribute__((reqd_work_group_size(" +
         std::to_string(kTileBlocks * kTileBlocks) + ", 1, 1))) void " + name + "(\n    " + sig + ")\n{\n" + b + "}\n";
}

}  // namespace fusecl::codegen
