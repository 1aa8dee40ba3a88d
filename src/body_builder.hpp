// Kernel bodies from graphs: BodyBuilder walks the nodes a kernel computes
// and produces its instructions (codegen/kernel_plan.hpp) and the argument
// values they read; collapse() then fixes the index space and how each load
// walks it. The planners in scheduler.cpp decide the launch layout on top.
#pragma once

#include "fusecl/array.hpp"
#include "fusecl/error.hpp"
#include "src/scheduler.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fusecl::detail {

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
      codegen::Instr in;
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

  std::int16_t add(const codegen::Instr& in) {
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
    codegen::Instr in;
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
    codegen::Instr in;
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


/// v as the bits of float dtype t (bits_of: fusecl/array.hpp).
inline std::uint64_t float_bits(DType t, double v) { return t == DType::Float32 ? bits_of(float(v)) : bits_of(v); }

// Index dimensions after permuting by `perm` and merging neighbours that every
// load walks through as one (and dropping size-1 ones). `groups[i]` says which
// dimensions may merge (reductions keep kept and reduced dimensions apart).
struct IndexSpace {
  std::vector<std::int64_t> dims;
  std::vector<int> group;
};

/// The index space of b's body over `logical` permuted by `perm`; classifies
/// each load's access on it (and sets strides where strided). With
/// out_strides (the output's, by logical dimension), they are collapsed alike.
IndexSpace collapse(BodyBuilder& b, const Shape& logical, const std::vector<int>& perm, const std::vector<int>& group,
                    std::vector<std::int64_t>* out_strides = nullptr);

/// The vector width: the device's vector size over the widest element type,
/// or 1 where some instruction has no vector form. With strided loads, vectors
/// must stay within one row: every strided load reads its row in place or
/// broadcasts along it, and the innermost dimension is a multiple of the width.
int choose_width(const codegen::KernelPlan& plan, int vector_bytes, std::int64_t inner_dim);

/// w halved until it divides `inner`: the widest vector (of w or fewer
/// lanes) that tiles rows of `inner` elements, so that none leaves its row.
int tiling_width(int w, std::int64_t inner);

/// choose_width's width before it fits the rows: the widest any row allows.
int widest_width(const codegen::KernelPlan& plan, int vector_bytes);

/// The widest element of the plan's buffers in bytes (what its loads read;
/// 1 where it reads none).
int widest_buffer_bytes(const codegen::KernelPlan& plan);

/// Whether an elementwise plan's vectors may cross from one row into the
/// next (KernelPlan::cross_rows): it is strided, its output is contiguous,
/// and every load that follows the rows broadcasts along them (the others
/// are contiguous over the whole index space, or uniform).
bool can_cross_rows(const codegen::KernelPlan& plan);

/// Whether every load of the plan is contiguous or uniform and every
/// generator uniform: what a CPU's rows in lanes read (their W rows are W * m
/// neighbouring elements).
bool contiguous_or_uniform(const codegen::KernelPlan& plan);

/// Whether every vector load of a width-W kernel starts at a multiple of W
/// elements, given that vectors start at positions that are multiples of W.
bool vector_loads_aligned(const codegen::KernelPlan& plan, const KernelArgs& args);

}  // namespace fusecl::detail
