#include "src/scheduler.hpp"

#include "codegen/spelling.hpp"
#include "fusecl/error.hpp"
#include "src/row_fusion.hpp"
#include "src/tiling.hpp"
#include "src/views.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <type_traits>
#include <string>
#include <unordered_map>

namespace fusecl::detail {

using codegen::Access;
using codegen::Instr;

const NodePtr& body_root(const NodePtr& root) { return root->op == Op::Contiguous ? root->inputs[0] : root; }

namespace {

// Walks a kernel body once, producing hash-consed instructions and the
// arguments they read. Load layouts are recorded in the body's logical shape
// and permuted / collapsed afterwards.
class BodyBuilder {
 public:
  BodyBuilder(const Shape& logical, const PendingOutputs* pending)
      : logical_(logical), pending_(pending), epoch_(next_walk_epoch()) {
    plan.instrs.reserve(32);
    args.offsets.reserve(32);
    args.strides.reserve(32);
    args.gen_params.reserve(32);
    logical_strides.reserve(32);
  }

  // The instruction computing n. Instructions are added in the post-order
  // of a depth-first walk (inputs a, b, c before their node), kept on an
  // explicit stack so that a deep body needs no deep recursion.
  std::int16_t visit(const NodePtr& root) {
    if (root->mark == epoch_) return root->mark_value;
    if (!is_fused(*root, pending_)) return finish(*root, operand(*root));
    struct Frame {
      Node* node;
      std::size_t next;  // the next input to visit
      std::int16_t v[3];
    };
    std::vector<Frame> stack{{root.get(), 0, {-1, -1, -1}}};
    for (;;) {
      Frame& f = stack.back();
      const std::size_t arity = std::min<std::size_t>(f.node->inputs.size(), 3);
      if (f.next < arity) {
        Node& in = *f.node->inputs[f.next];
        if (in.mark == epoch_) f.v[f.next++] = in.mark_value;
        else if (!is_fused(in, pending_)) f.v[f.next++] = finish(in, operand(in));
        else stack.push_back({&in, 0, {-1, -1, -1}});  // f is not used after this
        continue;
      }
      Instr in;
      in.op = f.node->op;
      in.dtype = f.node->dtype;
      in.a = f.v[0];
      in.b = f.v[1];
      in.c = f.v[2];
      const std::int16_t r = finish(*f.node, add(in));
      stack.pop_back();
      if (stack.empty()) return r;
      Frame& parent = stack.back();
      parent.v[parent.next++] = r;
    }
  }

  codegen::KernelPlan plan;
  KernelArgs args;
  std::vector<std::vector<std::int64_t>> logical_strides;  // by instruction, for loads
  // Row kernels (plan_row): these reductions, read directly or through their
  // broadcast views, are computed in the kernel, one instruction each.
  const std::vector<const Node*>* row_reductions = nullptr;
  // Grid form: the schedule output holding the partial results of the one
  // reduction (an earlier kernel's), which this kernel combines; -1: none.
  int row_partials = -1;

 private:
  // The instruction of a node that is not elementwise: a load or a scalar.
  std::int16_t operand(const Node& n) {
    if (row_reductions) {
      const Node* r = n.op == Op::View ? n.inputs[0].get() : &n;
      if (std::find(row_reductions->begin(), row_reductions->end(), r) != row_reductions->end()) return row_reduction(*r);
    }
    if (n.op == Op::Scalar) return scalar(n);
    if (n.op == Op::View) {
      const Node& target = *n.inputs[0];
      if (target.op == Op::Scalar) return scalar(target);
      return load(target, n.view().strides, n.view().offset, n.shape);
    }
    if (is_evaluated(n, pending_) || n.op == Op::Generate) return load(n, contiguous_strides(n.shape), 0, n.shape);
    throw Error("internal: unevaluated " + std::string(op_name(n.op)) + " inside a kernel body");
  }

  std::int16_t finish(Node& n, std::int16_t r) {
    n.mark = epoch_;
    n.mark_value = r;
    return r;
  }

  std::int16_t add(const Instr& in) {
    // Operations are hash-consed (loads and scalars are not): an index by
    // their bytes (Instr has no padding) keeps this constant time per
    // instruction in large bodies.
    const bool shared = in.op != Op::Buffer && in.op != Op::Generate && in.op != Op::Scalar;
    std::string key;
    if (shared) {
      key.assign(reinterpret_cast<const char*>(&in), sizeof in);
      if (auto it = ops_.find(key); it != ops_.end()) return it->second;
    }
    if (plan.instrs.size() >= 32000) throw Error("internal: kernel body too large");
    if (shared) ops_.emplace(std::move(key), std::int16_t(plan.instrs.size()));
    plan.instrs.push_back(in);
    args.offsets.push_back(0);
    args.strides.emplace_back();
    args.gen_params.push_back({});
    logical_strides.emplace_back();
    return std::int16_t(plan.instrs.size() - 1);
  }

  std::int16_t scalar(const Node& s) {
    auto [it, fresh] = scalar_slots_.try_emplace(&s, std::int16_t(plan.scalar_dtypes.size()));
    if (fresh) {
      args.scalar_nodes.push_back({it->second, &s});
      plan.scalar_dtypes.push_back(s.dtype);
      args.scalars.push_back(s.bits());
    }
    Instr in;
    in.op = Op::Scalar;
    in.dtype = s.dtype;
    in.slot = it->second;
    // One instruction per scalar slot.
    auto [at, added] = scalar_instrs_.try_emplace(in.slot, std::int16_t(-1));
    if (added) at->second = add(in);
    return at->second;
  }

  std::int16_t load(const Node& target, const std::vector<std::int64_t>& strides, std::int64_t offset, const Shape& shape) {
    // Strides over the body's logical shape: a 0-d value is broadcast everywhere.
    std::vector<std::int64_t> st(std::size_t(logical_.ndim()), 0);
    if (shape.ndim() != 0) {
      if (shape != logical_) throw Error("internal: load of shape " + shape.str() + " in a body of shape " + logical_.str());
      st = strides;
    }
    for (const auto& [key, idx] : loads_)
      if (key.target == &target && key.offset == offset && logical_strides[std::size_t(idx)] == st) return idx;
    Instr in;
    in.op = target.op;
    in.dtype = target.dtype;
    const int pending = pending_ ? pending_->find(target) : -1;
    if (pending >= 0) {
      // Read like a buffer: the runner allocates it before this kernel runs.
      in.op = Op::Buffer;
      in.slot = slot(pending_slots_, pending, target.dtype, InputBuffer{nullptr, pending});
    } else if (target.op == Op::Buffer) {
      in.slot = slot(buffer_slots_, target.buffer().get(), target.dtype, InputBuffer{target.buffer(), -1});
    } else if (target.op == Op::Generate) {
      in.gen = target.gen().kind;
    } else {
      throw Error("internal: unevaluated " + std::string(op_name(target.op)) + " read by a kernel body");
    }
    const std::int16_t idx = add(in);
    args.offsets[std::size_t(idx)] = offset;
    logical_strides[std::size_t(idx)] = st;
    if (target.op == Op::Generate) args.gen_params[std::size_t(idx)] = gen_args(target);
    loads_.push_back({LoadKey{&target, offset}, idx});
    return idx;
  }

  static std::array<std::uint64_t, 4> gen_args(const Node& g);
  std::int16_t row_reduction(const Node& r);
  std::unordered_map<const Node*, std::int16_t> row_instrs_;  // reduction -> its instruction

  // The buffer slot of `key`, added on first use.
  template <class Key>
  std::int16_t slot(std::unordered_map<Key, std::int16_t>& slots, std::type_identity_t<Key> key, DType dtype, InputBuffer input) {
    auto [it, fresh] = slots.try_emplace(key, std::int16_t(plan.buffer_dtypes.size()));
    if (fresh) {
      plan.buffer_dtypes.push_back(dtype);
      args.inputs.push_back(std::move(input));
    }
    return it->second;
  }

  struct LoadKey {
    const Node* target;
    std::int64_t offset;
  };
  Shape logical_;
  const PendingOutputs* pending_;
  std::uint32_t epoch_;
  std::unordered_map<const Node*, std::int16_t> scalar_slots_;
  std::unordered_map<std::int16_t, std::int16_t> scalar_instrs_;  // scalar slot -> its instruction
  std::unordered_map<std::string, std::int16_t> ops_;             // operation bytes -> instruction
  std::unordered_map<const rt::DeviceBuffer*, std::int16_t> buffer_slots_;
  std::unordered_map<int, std::int16_t> pending_slots_;  // schedule output -> slot
  std::vector<std::pair<LoadKey, std::int16_t>> loads_;
};

template <class T>
std::uint64_t bits_of(T v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

std::uint64_t float_bits(DType t, double v) { return t == DType::Float32 ? bits_of(float(v)) : bits_of(v); }

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

// Index dimensions after permuting by `perm` and merging neighbours that every
// load walks through as one (and dropping size-1 ones). `groups[i]` says which
// dimensions may merge (reductions keep kept and reduced dimensions apart).
struct IndexSpace {
  std::vector<std::int64_t> dims;
  std::vector<int> group;
};

IndexSpace collapse(BodyBuilder& b, const Shape& logical, const std::vector<int>& perm, const std::vector<int>& group,
                    std::vector<std::int64_t>* out_strides = nullptr) {
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

// The vector width: the device's vector size over the widest element type,
// or 1 where some instruction has no vector form. With strided loads, vectors
// must stay within one row: every strided load reads its row in place or
// broadcasts along it, and the innermost dimension is a multiple of the width.
int choose_width(const codegen::KernelPlan& plan, int vector_bytes, std::int64_t inner_dim) {
  if (plan.out_strided) return 1;
  int widest = 1;
  for (const auto& in : plan.instrs) {
    if (in.op == Op::Buffer && in.access == Access::Strided) return 1;
    if (in.op == Op::Generate) {
      const bool vector_form = in.gen == GenKind::Arange || in.gen == GenKind::Uniform || in.gen == GenKind::Normal;
      if (!vector_form || (in.access != Access::Contiguous && in.access != Access::Uniform)) return 1;
    }
    if (op_class(in.op) != OpClass::Leaf) {
      const DType operand = in.op == Op::Where ? plan.instrs[std::size_t(in.b)].dtype : plan.instrs[std::size_t(in.a)].dtype;
      if (!codegen::vectorizable(in.op, operand)) return 1;
    }
    widest = std::max(widest, size_of(in.dtype));
  }
  int w = std::clamp(vector_bytes / widest, 1, 16);
  int p = 1;
  while (p * 2 <= w) p *= 2;
  if (plan.ndim != 0)
    while (p > 1 && inner_dim % p != 0) p /= 2;
  return p;
}

// Whether every vector load of a width-W kernel starts at a multiple of W
// elements, given that vectors start at positions that are multiples of W.
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

}  // namespace

ScheduledKernel plan_elementwise(std::span<const NodePtr> roots, const DeviceTuning& tuning, const OutLayout* out_layout,
                                 const PendingOutputs* pending) {
  const Shape& shape = roots.front()->shape;
  BodyBuilder b(shape, pending);
  for (const auto& r : roots) {
    const NodePtr& body = body_root(r);
    std::int16_t v = b.visit(body);
    // A 0-d or uniform value still needs its own output slot per root.
    b.plan.outputs.push_back(v);
  }
  std::vector<int> perm(std::size_t(shape.ndim())), group(std::size_t(shape.ndim()), 0);
  for (int i = 0; i < shape.ndim(); ++i) perm[std::size_t(i)] = i;
  std::vector<std::int64_t> ost;
  if (out_layout) ost = out_layout->strides;
  IndexSpace sp = collapse(b, shape, perm, group, out_layout ? &ost : nullptr);
  const bool strided = out_layout || std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided ? std::uint8_t(sp.dims.size()) : 0;
  if (strided) b.args.dims = sp.dims;
  if (out_layout) {
    b.plan.out_strided = true;
    b.args.out_offset = out_layout->offset;
    b.args.out_strides = std::move(ost);
  }
  b.plan.width = std::uint8_t(choose_width(b.plan, tuning.vector_bytes, sp.dims.empty() ? 1 : sp.dims.back()));
  b.plan.aligned = vector_loads_aligned(b.plan, b.args);
  b.args.count = shape.size();
  const char* tiling = choose_tiling(b.plan, b.args, tuning);
  return {std::move(b.plan), std::move(b.args), tiling};
}

namespace {

// A reduction kernel for `root` over `x`: root's input, or for a moment
// kernel (moment 1 or 2, see codegen::ReduceSpec) the float32 array whose
// var/std root is (and, with moment 2, whose mean `mean` is).
ScheduledKernel plan_reduction(const Node& root, const NodePtr& x, int moment, const Node* mean, const DeviceTuning& tuning,
                               const PendingOutputs* pending) {
  const Shape& logical = x->shape;
  BodyBuilder b(logical, pending);
  auto& rs = b.plan.reduce;
  b.plan.kind = codegen::KernelKind::Reduce;
  rs.op = root.op;
  rs.acc = x->dtype;
  rs.out = root.dtype;
  rs.input = b.visit(x);
  rs.post_sqrt = root.reduce().post_sqrt;
  rs.moment = std::uint8_t(moment);
  if (moment) {
    // The variance's divisor in float64 (it divides the float64 sum of squares),
    // the mean's as the mean kernel has it.
    rs.divisor = std::int16_t(b.plan.scalar_dtypes.size());
    b.plan.scalar_dtypes.push_back(DType::Float64);
    b.args.scalars.push_back(float_bits(DType::Float64, root.reduce().divisor));
    if (moment == 2) {
      b.plan.scalar_dtypes.push_back(rs.acc);
      b.args.scalars.push_back(float_bits(rs.acc, mean->reduce().divisor));
    }
  } else if (reduce_info(root.op).finish == Finish::Mean) {
    rs.divisor = std::int16_t(b.plan.scalar_dtypes.size());
    b.plan.scalar_dtypes.push_back(rs.acc);
    b.args.scalars.push_back(float_bits(rs.acc, root.reduce().divisor));
  }

  // Index space: kept axes first, reduced axes last, never merged across.
  std::vector<int> perm, group;
  std::int64_t n = 1, m = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < logical.ndim(); ++i) {
      const bool reduced = std::binary_search(root.reduce().axes.begin(), root.reduce().axes.end(), i);
      if (reduced != (pass == 1)) continue;
      perm.push_back(i);
      group.push_back(pass);
      (reduced ? m : n) *= logical.dims()[std::size_t(i)];
    }
  IndexSpace sp = collapse(b, logical, perm, group);
  const bool strided = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided ? std::uint8_t(sp.dims.size()) : 0;
  if (strided) b.args.dims = sp.dims;
  b.args.count = n;
  b.args.reduce_count = m;

  // A work-item per output where the reduced range is short, or read across
  // rows while there are enough outputs to fill the device (then neighbouring
  // work-items read neighbouring elements); otherwise a work-group per output,
  // split over several groups when there are too few outputs to keep the
  // device busy.
  const int L = tuning.local_size;
  rs.local_size = std::uint16_t(L);
  const bool arg = reduce_info(rs.op).finish == Finish::Index;
  // "Across rows": some load steps through the reduced range with a stride other
  // than 0 or 1 (a column reduction); a work-group would read it scattered.
  const bool across_rows = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return i.access == Access::Strided && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  // Between the two, a column reduction with at least a block of outputs:
  // a work-group per block of neighbouring outputs reads each row's block
  // together, where a group per output would read one element per row.
  const std::int64_t block = codegen::kColumnBlock, block_items = block * codegen::kColumnRows;
  if (m <= 16 || (across_rows && n >= std::int64_t(tuning.target_groups) * 64)) {
    rs.strategy = codegen::ReduceStrategy::ThreadPerOutput;
    b.plan.width = 1;
  } else if (across_rows && n >= block && tuning.column_blocks &&
             tuning.max_work_group_size >= std::size_t(block_items)) {
    rs.strategy = codegen::ReduceStrategy::ColumnBlock;
    b.plan.width = 1;
    // Too few blocks to keep the device busy: split the rows into parts
    // (of at least 64 rows a work-item), combined by a second kernel.
    const std::int64_t blocks = (n + block - 1) / block;
    std::int64_t g = 1;
    if (blocks < tuning.target_groups) {
      const std::int64_t want = (tuning.target_groups + blocks - 1) / blocks;
      const std::int64_t useful = std::max<std::int64_t>(1, m / (std::int64_t(codegen::kColumnRows) * 64));
      g = std::clamp<std::int64_t>(std::min(want, useful), 1, 4096);
    }
    rs.two_stage = g > 1;
    if (rs.two_stage) rs.finish = codegen::SplitFinish::SecondKernel;
    b.args.groups = g;
    if (rs.two_stage) b.args.scratch_bytes = std::size_t((arg ? n * g * 8 : 0) + n * g * size_of(rs.acc));
  } else {
    rs.strategy = codegen::ReduceStrategy::GroupPerOutput;
    b.plan.width = arg ? 1 : std::uint8_t(choose_width(b.plan, tuning.vector_bytes, sp.dims.empty() ? 1 : sp.dims.back()));
    // Vectors start at o * m + r with r a multiple of the width.
    b.plan.aligned = (m % b.plan.width == 0 || n == 1) && vector_loads_aligned(b.plan, b.args);
    // Short rows: a smaller group, so the tree in local memory does not dominate.
    int local = L;
    while (local > 32 && std::int64_t(local) * b.plan.width * 8 > m) local /= 2;
    rs.local_size = std::uint16_t(local);
    std::int64_t g = 1;
    if (n > 0 && n < tuning.target_groups) {  // n == 0: no outputs, nothing is launched
      const std::int64_t want = (tuning.target_groups + n - 1) / n;
      const std::int64_t useful = std::max<std::int64_t>(1, m / (std::int64_t(rs.local_size) * b.plan.width * 8));
      g = std::clamp<std::int64_t>(std::min(want, useful), 1, 4096);
    }
    // A moment's group sums at most kMomentGroupValues values, whatever the
    // number of outputs (its accuracy bound; a CPU's few groups per output
    // would otherwise sum rows of any length in one).
    if (moment && n > 0) {
      const std::int64_t per = codegen::kMomentGroupValues;
      g = std::max(g, std::min<std::int64_t>(4096, (m + per - 1) / per));
    }
    rs.two_stage = g > 1;
    if (rs.two_stage) rs.finish = tuning.split_finish;
    b.args.groups = g;
    // Partials (render_reduce.cpp): arg-reductions' indices, then the values;
    // a moment's (render_moment.cpp): a count and three float64s each.
    if (rs.two_stage)
      b.args.scratch_bytes = moment ? std::size_t(n * g * 32) : std::size_t((arg ? n * g * 8 : 0) + n * g * size_of(rs.acc));
  }
  return {std::move(b.plan), std::move(b.args)};
}

}  // namespace

ScheduledKernel plan_reduce(const NodePtr& root, const DeviceTuning& tuning, const PendingOutputs* pending) {
  return plan_reduction(*root, root->inputs[0], 0, nullptr, tuning, pending);
}

std::optional<ScheduledKernel> plan_moment(const Node& var, const NodePtr& x, const Node* mean, const DeviceTuning& tuning,
                                           const PendingOutputs* pending) {
  DeviceTuning t = tuning;  // the width rule applies to the loads; moment_width caps it (scheduler.hpp says why)
  t.vector_bytes = std::min(t.vector_bytes, 4 * std::max(1, tuning.moment_width));
  auto k = plan_reduction(var, x, mean ? 2 : 1, mean, t, pending);
  if (k.plan.reduce.strategy == codegen::ReduceStrategy::ColumnBlock) return std::nullopt;
  return k;
}

ScheduledKernel plan_row(std::span<const NodePtr> roots, const std::vector<const Node*>& reductions, const std::vector<int>& axes,
                         const DeviceTuning& tuning, const PendingOutputs* pending, const RowPartials* partials) {
  const Shape& shape = roots.front()->shape;
  BodyBuilder b(shape, pending);
  b.row_reductions = &reductions;
  if (partials) b.row_partials = partials->output;
  b.plan.kind = codegen::KernelKind::Row;
  for (const auto& root : roots) b.plan.outputs.push_back(b.visit(body_root(root)));

  // Index space as a reduction's: kept axes first, the row's axes last, never
  // merged across; the output, in the root's C order, is stored through
  // strides where that order differs (a row along an outer axis).
  std::vector<int> perm, group;
  std::int64_t n = 1, m = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < shape.ndim(); ++i) {
      const bool in_row = std::binary_search(axes.begin(), axes.end(), i);
      if (in_row != (pass == 1)) continue;
      perm.push_back(i);
      group.push_back(pass);
      (in_row ? m : n) *= shape.dims()[std::size_t(i)];
    }
  std::vector<std::int64_t> ost = contiguous_strides(shape);
  const IndexSpace sp = collapse(b, shape, perm, group, &ost);
  std::vector<std::int64_t> contiguous(sp.dims.size());
  std::int64_t acc = 1;
  for (std::size_t i = sp.dims.size(); i-- > 0;) {
    contiguous[i] = acc;
    acc *= sp.dims[i];
  }
  const bool out_strided = ost != contiguous;
  const bool strided = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided || out_strided ? std::uint8_t(sp.dims.size()) : 0;
  if (b.plan.ndim) b.args.dims = sp.dims;
  if (out_strided) {
    b.plan.out_strided = true;
    b.args.out_strides = std::move(ost);
  }
  // Work-items step through their row one element each: neighbours read
  // neighbours (coalesced on a GPU). Each row gets the work-items that give
  // each about tuning.elements_per_item elements, at most a group (of at most
  // tuning.row_group_cap); short rows share a group, so that few work-items
  // idle and the trees stay short. Where a work-item has at most
  // tuning.row_register_elements elements they stay in its registers between
  // the phases (the register form).
  b.plan.width = 1;
  const std::int64_t L = std::max(1, std::min(tuning.local_size, tuning.row_group_cap));
  std::int64_t per_row = 1;
  while (per_row < std::min<std::int64_t>(L, tuning.row_items_cap) && per_row * tuning.elements_per_item < m) per_row *= 2;
  std::int64_t rows = L / per_row;
  while (rows > 1 && rows / 2 >= n) rows /= 2;  // no group larger than the rows there are
  // A work-item per row (CPUs): groups enough for every compute unit.
  if (per_row == 1 && tuning.row_items_cap == 1)
    while (rows > 1 && (n + rows - 1) / rows < tuning.target_groups) rows /= 2;
  const std::int64_t chunks = (m + per_row - 1) / per_row;
  std::int64_t k = 1;
  while (k < chunks) k *= 2;
  const bool in_registers = k <= std::max(1, tuning.row_register_elements);
  b.plan.reduce.local_size = std::uint16_t(per_row * rows);
  b.plan.reduce.rows_per_group = std::uint16_t(rows);
  b.plan.reduce.row_chunks = std::uint8_t(in_registers ? k : 0);
  if (in_registers && b.plan.ndim == 0 && !partials) {
    // The register form in whole vectors: a work-item's elements are k / w
    // vectors of w neighbours, w * T apart, loaded and stored through vector
    // pointers (a GPU's 16-byte loads: softmax over rows of 1024 on an H200
    // 143 us against 155 element by element). Every row must start on a
    // multiple of w, and every load.
    const int w = row_width(b.plan, tuning.vector_bytes);
    b.plan.width = std::uint8_t(w);
    if (w > 1 && k >= w && m % w == 0 && vector_loads_aligned(b.plan, b.args)) {
      b.plan.aligned = true;
      b.plan.reduce.row_chunks = std::uint8_t(k / w);
    } else {
      b.plan.width = 1;
    }
  }
  b.plan.reduce.row_fanin = std::uint8_t(tuning.row_fanin);
  b.args.count = m == 0 ? 0 : n;  // rows; empty rows have no elements to store
  b.args.reduce_count = m;
  if (partials) {
    // Grid form: one row, the whole array, over as many groups as fill the
    // device (each combines the partials first, so not more than that).
    b.plan.reduce.combine = true;
    b.plan.reduce.local_size = std::uint16_t(L);
    b.plan.reduce.rows_per_group = 1;
    b.plan.reduce.row_chunks = 0;
    b.args.groups = partials->groups;
    b.args.count = std::clamp<std::int64_t>((m + L - 1) / L, m == 0 ? 0 : 1, std::int64_t(tuning.target_groups) * 4);
  }
  // A row that loops steps through it in vectors where every load is
  // contiguous or uniform (CPUs gain most from explicit vectors).
  if (b.plan.reduce.row_chunks == 0 && b.plan.ndim == 0) b.plan.width = std::uint8_t(row_width(b.plan, tuning.vector_bytes));
  return {std::move(b.plan), std::move(b.args)};
}

}  // namespace fusecl::detail
