#include "src/tiling.hpp"

#include <algorithm>
#include <cstdlib>

namespace fusecl::detail {

using codegen::Access;

namespace {

// The index dimension along which load k steps by one element (forwards or
// backwards), when that is not the innermost one and the innermost stride
// is neither 0 (a broadcast: one address for the whole row) nor +-1; else -1.
int transposed_axis(const codegen::KernelPlan& plan, const KernelArgs& args, std::size_t k) {
  const auto& in = plan.instrs[k];
  if (in.op != Op::Buffer || in.access != Access::Strided) return -1;
  const auto& st = args.strides[k];
  const int inner = int(st.size()) - 1;
  if (inner < 1 || st[std::size_t(inner)] == 0 || std::llabs(st[std::size_t(inner)]) == 1) return -1;
  for (int d = inner - 1; d >= 0; --d)  // the innermost such dimension: deterministic
    if (std::llabs(st[std::size_t(d)]) == 1) return d;
  return -1;
}

// Whether every load but the transposed ones reads a block row's vector
// along the innermost axis in place: contiguous, uniform, a row read in
// place or broadcast along it, or generated at the flat position (random
// draws aside: their vector helpers come with the plan's own width).
bool reads_vectors_in_place(const codegen::KernelPlan& plan, const KernelArgs& args) {
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const auto& in = plan.instrs[k];
    if (in.op == Op::Generate && (in.access != Access::Contiguous || in.gen == GenKind::Uniform || in.gen == GenKind::Normal))
      return false;
    if (in.op != Op::Buffer || transposed_axis(plan, args, k) >= 0) continue;
    if (in.access == Access::Strided) return false;
  }
  return true;
}

}  // namespace

const char* choose_tiling(codegen::KernelPlan& plan, const KernelArgs& args, const DeviceTuning& tuning) {
  if (plan.kind != codegen::KernelKind::Elementwise || plan.ndim < 2) return nullptr;
  int axis = -1, widest = 0;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const int a = transposed_axis(plan, args, k);
    if (a < 0) continue;
    if (axis >= 0 && a != axis) return "transposed reads untiled: operands disagree on their innermost axis";
    axis = a;
    widest = std::max(widest, size_of(plan.instrs[k].dtype));
  }
  if (axis < 0) return nullptr;
  if (plan.out_strided) return "transposed reads untiled: strided output";
  if (!tuning.tile_transposes) return "transposed reads untiled: tiles switched off";
  const std::int64_t dx = args.dims.back(), dy = args.dims[std::size_t(axis)];
  if (dx < kMinTileAxis || dy < kMinTileAxis) return "transposed reads untiled: a tile axis shorter than 16";
  // 32 x 32 tiles (8 rows of work-items, 4 elements each); 16 x 16 for 8-byte
  // elements, whose tiles would take twice the local memory.
  const int T = widest >= 8 ? 16 : 32;
  if (tuning.max_work_group_size < std::size_t(codegen::kTileWorkItems))
    return "transposed reads untiled: work-groups too small";
  // The plan tiled `tile` x `tile`: its transposed loads staged (Tiled), the
  // rest of the kernel element by element.
  auto take = [&](int tile, bool registers) {
    for (std::size_t k = 0; k < plan.instrs.size(); ++k)
      if (transposed_axis(plan, args, k) >= 0) plan.instrs[k].access = Access::Tiled;
    plan.tile = std::uint8_t(tile);
    plan.tile_axis = std::uint8_t(axis);
    plan.tile_registers = registers;
    plan.width = 1;
    plan.aligned = false;
  };
  if (tuning.tile_registers && reads_vectors_in_place(plan, args)) {
    // A CPU's blocks turned in registers (render_tiled_registers.cpp): 8 x 8,
    // 4 x 4 where a transposed load has 8-byte elements (one 32-byte vector
    // a column either way).
    take(widest >= 8 ? 4 : 8, true);
    return widest >= 8 ? "tiled 4x4 in registers" : "tiled 8x8 in registers";
  }
  std::uint64_t bytes = 0;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k)
    if (transposed_axis(plan, args, k) >= 0) bytes += std::uint64_t(T) * std::uint64_t(T + 1) * std::uint64_t(size_of(plan.instrs[k].dtype));
  if (bytes > tuning.local_mem_bytes / 2) return "transposed reads untiled: tiles over half the local memory";
  take(T, false);
  return T == 32 ? "tiled 32x32 through local memory" : "tiled 16x16 through local memory";
}

}  // namespace fusecl::detail
