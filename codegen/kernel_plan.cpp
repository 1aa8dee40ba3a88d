#include "codegen/kernel_plan.hpp"

#include <algorithm>

namespace fusecl::codegen {

bool KernelPlan::uses_fp64() const {
  for (const auto& i : instrs)
    if (i.dtype == DType::Float64) return true;
  for (auto d : buffer_dtypes)
    if (d == DType::Float64) return true;
  if (kind == KernelKind::Reduce && reduce.moment) return true;  // float64 accumulators
  if (kind == KernelKind::Reduce && (reduce.acc == DType::Float64 || reduce.out == DType::Float64)) return true;
  for (const auto& i : finish)
    if (i.dtype == DType::Float64) return true;
  return false;
}

std::vector<std::int16_t> finish_scalar_slots(const KernelPlan& plan) {
  std::vector<std::int16_t> slots;
  for (const auto& i : plan.finish)
    if (i.op == Op::Scalar && std::find(slots.begin(), slots.end(), i.slot) == slots.end()) slots.push_back(i.slot);
  return slots;
}

int tile_rows(const KernelPlan& p) { return p.tile ? kTileWorkItems / p.tile : 1; }

std::string signature(const KernelPlan& p) {
  std::string s;
  append_reflected(s, p);
  return s;
}

bool uses_c11_atomics(const KernelPlan& p) {
  return p.kind == KernelKind::Reduce && p.reduce.two_stage && !p.reduce.combine && p.reduce.finish == SplitFinish::LastGroup;
}

KernelPlan combine_plan(const KernelPlan& p) {
  KernelPlan c;
  c.kind = KernelKind::Reduce;
  c.reduce = p.reduce;
  c.reduce.combine = true;
  c.reduce.row_warp = 0;  // the partials meet in local memory
  c.reduce.rows_per_group = 1;
  // Partials at o * groups + part: a group per output combines them; a
  // column block's in vectors and softmax's pair's, at part * n + o: a
  // work-item per output.
  const bool part_major = (p.reduce.strategy == ReduceStrategy::ColumnBlock && p.reduce.kept_inner) || p.reduce.online;
  c.reduce.strategy = part_major ? ReduceStrategy::ThreadPerOutput : ReduceStrategy::GroupPerOutput;
  c.reduce.input = -1;  // no body: the values are the partials
  c.reduce.divisor = -1;
  if (reduce_info(p.reduce.op).finish == Finish::Mean) {
    c.reduce.divisor = 0;
    c.scalar_dtypes.push_back(p.scalar_dtypes.at(std::size_t(p.reduce.divisor)));
    if (p.reduce.moment == 2) c.scalar_dtypes.push_back(p.scalar_dtypes.at(std::size_t(p.reduce.divisor + 1)));
  }
  // The finish is computed where this kernel stores; its scalars follow the
  // divisor, in finish_scalar_slots' order (launch.cpp's combine_kernel).
  c.finish = p.finish;
  const auto slots = finish_scalar_slots(p);
  const auto first = std::int16_t(c.scalar_dtypes.size());
  for (const std::int16_t s : slots) c.scalar_dtypes.push_back(p.scalar_dtypes.at(std::size_t(s)));
  for (auto& i : c.finish)
    if (i.op == Op::Scalar) i.slot = std::int16_t(first + (std::find(slots.begin(), slots.end(), i.slot) - slots.begin()));
  return c;
}

std::size_t param_bytes(const KernelPlan& p) {
  std::size_t bytes = 0;
  for (const Param& q : params(p)) {
    switch (q.role) {
      case ParamRole::Scalar: bytes += std::size_t(size_of(p.scalar_dtypes[std::size_t(q.index)])); break;
      case ParamRole::GenParam: {
        const Instr& i = p.instrs[std::size_t(q.index)];
        bytes += std::size_t(size_of(gen_param_dtype(i.gen, i.dtype, q.sub)));
        break;
      }
      default: bytes += 8;  // buffers (cl_mem) and longs
    }
  }
  return bytes;
}

int gen_param_count(GenKind kind) {
  switch (kind) {
    case GenKind::Arange: return 2;    // start, step
    case GenKind::Linspace: return 4;  // start, step, stop, count
    case GenKind::Eye: return 2;       // cols, k
    case GenKind::Uniform: case GenKind::Normal: return 1;  // seed
  }
  return 0;
}

ParamList params(const KernelPlan& p) {
  ParamList out;
  const bool reduce = p.kind == KernelKind::Reduce;
  const std::size_t n_outputs = reduce ? std::size_t(reduce_outputs(p)) : p.outputs.size();
  for (std::size_t i = 0; i < n_outputs; ++i) out.push_back({ParamRole::Output, std::int16_t(i)});
  for (std::size_t i = 0; i < p.buffer_dtypes.size(); ++i) out.push_back({ParamRole::Input, std::int16_t(i)});
  for (std::size_t i = 0; i < p.scalar_dtypes.size(); ++i) out.push_back({ParamRole::Scalar, std::int16_t(i)});
  out.push_back({ParamRole::Count});
  if (p.kind == KernelKind::Row) {
    out.push_back({ParamRole::ReduceCount});  // the row's length
    // The grid form: partials per reduction; split rows: segments per row.
    if (p.reduce.combine || p.reduce.row_split) out.push_back({ParamRole::Groups});
    if (p.reduce.row_columns) out.push_back({ParamRole::RowStride});
  }
  if (reduce) {
    out.push_back({ParamRole::ReduceCount});
    if (p.reduce.two_stage) {
      if (p.reduce.finish != SplitFinish::Consumer) out.push_back({ParamRole::Scratch});
      out.push_back({ParamRole::Groups});
      if (uses_c11_atomics(p)) out.push_back({ParamRole::Counters});
    }
  }
  for (int d = 0; d < p.ndim; ++d) out.push_back({ParamRole::Dim, std::int16_t(d)});
  // 32-bit coordinates divide by every dimension but the first (body.cpp's emit_coordinates).
  if (p.index32)
    for (int d = 1; d < p.ndim; ++d) out.push_back({ParamRole::Divider, std::int16_t(d)});
  if (p.out_strided) {
    out.push_back({ParamRole::OutOffset});
    for (int d = 0; d < p.ndim; ++d) out.push_back({ParamRole::OutStride, std::int16_t(d)});
  }
  for (std::size_t k = 0; k < p.instrs.size(); ++k) {
    const Instr& i = p.instrs[k];
    if (i.op != Op::Buffer && i.op != Op::Generate) continue;
    out.push_back({ParamRole::Offset, std::int16_t(k)});
    if (is_strided(i.access))
      for (int d = 0; d < p.ndim; ++d) out.push_back({ParamRole::Stride, std::int16_t(k), std::int16_t(d)});
    if (i.op == Op::Generate)
      for (int g = 0; g < gen_param_count(i.gen); ++g) out.push_back({ParamRole::GenParam, std::int16_t(k), std::int16_t(g)});
  }
  return out;
}

}  // namespace fusecl::codegen

namespace fusecl::codegen {
DType gen_param_dtype(GenKind kind, DType out, int g) {
  switch (kind) {
    case GenKind::Arange: return is_float(out) ? out : DType::Int64;
    case GenKind::Linspace: return g == 3 ? DType::Int64 : out;
    case GenKind::Eye: return DType::Int64;
    case GenKind::Uniform: case GenKind::Normal: return DType::UInt64;
  }
  return DType::Int64;
}
}  // namespace fusecl::codegen
