#include "src/body_builder.hpp"

#include "codegen/spelling.hpp"
#include "fusecl/error.hpp"
#include "src/views.hpp"

#include <algorithm>

namespace fusecl::detail {

using codegen::Access;
using codegen::Instr;



// A reduction of a row kernel: its input's body (the same rows, so the same
// logical shape), then the reduction as one instruction (kernel_plan.hpp).
// visit() re-enters here: the nesting is as deep as the reductions are.
std::int16_t BodyBuilder::row_reduction(const Node& r) {
  if (const auto it = row_instrs_.find(&r); it != row_instrs_.end()) return it->second;
  Instr in;
  in.op = r.op;
  in.dtype = r.dtype;
  if (row_partials >= 0)
    in.c = slot(pending_slots_, row_partials, r.inputs[0]->dtype, InputBuffer{nullptr, row_partials});
  else
    in.a = visit(r.inputs[0]);
  in.b = r.reduce().post_sqrt ? 1 : -1;
  const bool mean = reduce_info(r.op).finish == Finish::Mean;
  const std::uint64_t divisor = mean ? float_bits(r.inputs[0]->dtype, r.reduce().divisor) : 0;
  // The same reduction built twice (a layer norm's mean, and var's own) is
  // one phase; only the divisor's slot tells two otherwise equal ones apart.
  for (const auto& [node, k] : row_instrs_) {
    const Instr& o = plan.instrs[std::size_t(k)];
    if (o.op == in.op && o.dtype == in.dtype && o.a == in.a && o.b == in.b && o.c == in.c &&
        (!mean || args.scalars[std::size_t(o.slot)] == divisor)) {
      row_instrs_.emplace(&r, k);
      return k;
    }
  }
  if (mean) {
    in.slot = std::int16_t(plan.scalar_dtypes.size());
    plan.scalar_dtypes.push_back(r.inputs[0]->dtype);
    args.scalars.push_back(divisor);
  }
  const std::int16_t k = add(in);
  row_instrs_.emplace(&r, k);
  return k;
}

std::array<std::uint64_t, 4> BodyBuilder::gen_args(const Node& g) {
  const GenParams& p = g.gen();
  switch (p.kind) {
    case GenKind::Arange:
      if (is_float(g.dtype)) return {float_bits(g.dtype, p.start), float_bits(g.dtype, p.step), 0, 0};
      return {bits_of(std::int64_t(p.start)), bits_of(std::int64_t(p.step)), 0, 0};
    case GenKind::Linspace:
      return {float_bits(g.dtype, p.start), float_bits(g.dtype, p.step), float_bits(g.dtype, p.stop),
              bits_of(std::int64_t(g.shape.size()))};
    case GenKind::Eye: return {bits_of(std::int64_t(g.shape.dims()[1])), bits_of(p.k), 0, 0};
    case GenKind::Uniform: case GenKind::Normal: return {p.seed, 0, 0, 0};
  }
  return {};
}

IndexSpace collapse(BodyBuilder& b, const Shape& logical, const std::vector<int>& perm, const std::vector<int>& group,
                    std::vector<std::int64_t>* out_strides) {
  IndexSpace sp;
  std::vector<std::int64_t> ost;
  std::vector<std::vector<std::int64_t>> st(b.plan.instrs.size());
  auto is_load = [&](std::size_t k) { return b.plan.instrs[k].op == Op::Buffer || b.plan.instrs[k].op == Op::Generate; };
  for (std::size_t pi = 0; pi < perm.size(); ++pi) {
    const int i = perm[pi], g = group[pi];
    const std::int64_t d = logical.dims()[std::size_t(i)];
    if (d == 1) continue;
    // Dimension i folds into the one before it when, for every load, the outer
    // stride equals this stride times this size.
    bool merge = !sp.dims.empty() && sp.group.back() == g;
    for (std::size_t k = 0; merge && k < st.size(); ++k)
      if (is_load(k) && st[k].back() != b.logical_strides[k][std::size_t(i)] * d) merge = false;
    if (merge && out_strides && ost.back() != (*out_strides)[std::size_t(i)] * d) merge = false;
    if (out_strides) {
      if (merge) ost.back() = (*out_strides)[std::size_t(i)];
      else ost.push_back((*out_strides)[std::size_t(i)]);
    }
    for (std::size_t k = 0; k < st.size(); ++k) {
      if (!is_load(k)) continue;
      const std::int64_t s = b.logical_strides[k][std::size_t(i)];
      if (merge) st[k].back() = s;
      else st[k].push_back(s);
    }
    if (merge) {
      sp.dims.back() *= d;
    } else {
      sp.dims.push_back(d);
      sp.group.push_back(g);
    }
  }
  // Classify each load on the collapsed space.
  std::vector<std::int64_t> contiguous(sp.dims.size());
  std::int64_t acc = 1;
  for (std::size_t i = sp.dims.size(); i-- > 0;) {
    contiguous[i] = acc;
    acc *= sp.dims[i];
  }
  bool strided = false;
  for (std::size_t k = 0; k < st.size(); ++k) {
    Instr& in = b.plan.instrs[k];
    if (in.op != Op::Buffer && in.op != Op::Generate) continue;
    const bool zero = std::all_of(st[k].begin(), st[k].end(), [](std::int64_t s) { return s == 0; });
    if (zero) in.access = Access::Uniform;
    else if (st[k] == contiguous) in.access = Access::Contiguous;
    else {
      const std::int64_t inner = st[k].back();
      in.access = inner == 1 ? Access::StridedRow : inner == 0 ? Access::StridedRowBroadcast : Access::Strided;
      strided = true;
      b.args.strides[k] = st[k];
    }
  }
  if (!strided) {
    for (auto& s : b.args.strides) s.clear();
  }
  if (out_strides) *out_strides = std::move(ost);
  return sp;
}

int widest_width(const codegen::KernelPlan& plan, int vector_bytes) {
  if (plan.out_strided) return 1;
  int widest = 1;
  for (const auto& in : plan.instrs) {
    if (in.op == Op::Buffer && in.access == Access::Strided) return 1;
    if (in.op == Op::Generate) {
      const bool vector_form = in.gen == GenKind::Arange || in.gen == GenKind::Uniform || in.gen == GenKind::Normal;
      if (!vector_form || (in.access != Access::Contiguous && in.access != Access::Uniform)) return 1;
    }
    if (op_class(in.op) != OpClass::Leaf) {
      if (!codegen::vectorizable(in.op, codegen::operand_dtype(plan.instrs, in))) return 1;
    }
    widest = std::max(widest, size_of(in.dtype));
  }
  int w = std::clamp(vector_bytes / widest, 1, 16);
  int p = 1;
  while (p * 2 <= w) p *= 2;
  return p;
}

int widest_buffer_bytes(const codegen::KernelPlan& plan) {
  int widest = 1;
  for (const auto& in : plan.instrs)
    if (in.op == Op::Buffer) widest = std::max(widest, size_of(in.dtype));
  return widest;
}

int tiling_width(int w, std::int64_t inner) {
  while (w > 1 && inner % w != 0) w /= 2;
  return w;
}

int choose_width(const codegen::KernelPlan& plan, int vector_bytes, std::int64_t inner_dim) {
  const int p = widest_width(plan, vector_bytes);
  return plan.ndim != 0 ? tiling_width(p, inner_dim) : p;
}

bool contiguous_or_uniform(const codegen::KernelPlan& plan) {
  return std::none_of(plan.instrs.begin(), plan.instrs.end(), [](const codegen::Instr& in) {
    return (in.op == Op::Buffer && in.access != Access::Contiguous && in.access != Access::Uniform) ||
           (in.op == Op::Generate && in.access != Access::Uniform);
  });
}

bool can_cross_rows(const codegen::KernelPlan& plan) {
  if (plan.kind != codegen::KernelKind::Elementwise || plan.ndim == 0 || plan.out_strided) return false;
  bool broadcast = false;
  for (const auto& in : plan.instrs) {
    if (in.op != Op::Buffer && in.op != Op::Generate) continue;
    if (in.access == Access::StridedRowBroadcast && in.op == Op::Buffer) broadcast = true;
    else if (in.access != Access::Contiguous && in.access != Access::Uniform) return false;
  }
  return broadcast;
}

bool vector_loads_aligned(const codegen::KernelPlan& plan, const KernelArgs& args) {
  const int w = plan.width;
  if (w <= 1) return false;
  for (std::size_t k = 0; k < plan.instrs.size(); ++k) {
    const Instr& in = plan.instrs[k];
    if (in.op != Op::Buffer) continue;
    if (in.access != Access::Contiguous && in.access != Access::StridedRow) continue;
    if (args.offsets[k] % w != 0) return false;
    if (in.access == Access::StridedRow)
      for (std::size_t d = 0; d + 1 < args.strides[k].size(); ++d)
        if (args.strides[k][d] % w != 0) return false;
  }
  return true;
}

}  // namespace fusecl::detail
