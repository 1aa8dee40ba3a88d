// Row fusion (row_fusion.hpp): which roots one row kernel computes, and the
// vector width of one that loops over its rows.
#include "src/row_fusion.hpp"

#include "codegen/spelling.hpp"
#include "src/views.hpp"

#include <algorithm>

namespace fusecl::detail {

namespace {

class RowFinder {
 public:
  RowFinder(const Shape& shape, const PendingOutputs* pending)
      : shape_(shape), pending_(pending), epoch_(next_walk_epoch()) {}

  // Walks the body below `root`; false where it cannot be one row kernel.
  bool walk(const NodePtr& root) {
    stack_.push_back(&root);
    while (!stack_.empty()) {
      const NodePtr& n = *stack_.back();
      stack_.pop_back();
      if (!step(n)) return false;
    }
    return true;
  }

  RowFusion out;
  std::uint64_t bytes_per_element = 0;  // of the distinct values read from memory

 private:
  bool seen(const Node& n) {
    if (n.mark == epoch_) return true;
    const_cast<Node&>(n).mark = epoch_;  // walks are single-threaded under the graph's lock
    return false;
  }

  // A value read from memory: its bytes count once per row element.
  void read(const Node& n) {
    if (std::find(buffers_.begin(), buffers_.end(), &n) != buffers_.end()) return;
    buffers_.push_back(&n);
    bytes_per_element += std::uint64_t(size_of(n.dtype));
  }

  bool step(const NodePtr& np) {
    const Node& n = *np;
    if (seen(n)) return true;
    if (is_evaluated(n, pending_)) {
      read(n);
      return true;
    }
    if (n.op == Op::Scalar || n.op == Op::Generate) return true;
    if (n.op == Op::View) {
      const Node& t = *n.inputs[0];
      if (is_evaluated(t, pending_)) {
        read(t);
        return true;
      }
      if (t.op == Op::Scalar || t.op == Op::Generate) return true;
      if (op_class(t.op) == OpClass::Reduce) return reduction(n.inputs[0], n.shape, n.view().strides, n.view().offset);
      return false;  // a view of a concatenation, a copy...: evaluated first, by today's path
    }
    if (op_class(n.op) == OpClass::Reduce) return reduction(np, n.shape, contiguous_strides(n.shape), 0);
    if (!is_elementwise(n.op) || n.shape != shape_) return false;
    for (const auto& in : n.inputs) stack_.push_back(&in);
    return true;
  }

  // Reduction r read at the body's element c as r's storage[offset + sum c_i * strides_i]:
  // it joins the kernel where that is its value for c's row, whatever c's position in it.
  bool reduction(const NodePtr& rp, const Shape& read_shape, const std::vector<std::int64_t>& strides, std::int64_t offset) {
    const Node& r = *rp;
    if (reduce_info(r.op).finish == Finish::Index) return false;
    const auto& axes = r.reduce().axes;
    // A 0-d reduction (of every axis, no keepdims) is read as one value everywhere.
    const bool whole = read_shape.ndim() == 0 && int(axes.size()) == shape_.ndim();
    if (axes.empty() || (read_shape != shape_ && !whole) || r.inputs[0]->shape != shape_ || offset != 0) return false;
    if (out.axes.empty()) out.axes = axes;
    else if (out.axes != axes) return false;
    // r's storage is C order over the kept axes (keepdims' 1s change nothing):
    // a kept axis must step by its stride there, a row axis by 0.
    std::int64_t step = 1;
    for (int i = whole ? 0 : shape_.ndim(); i-- > 0;) {
      const std::int64_t d = shape_.dims()[std::size_t(i)];
      const bool in_row = std::binary_search(axes.begin(), axes.end(), i);
      if (d != 1 && strides[std::size_t(i)] != (in_row ? 0 : step)) return false;
      if (!in_row) step *= d;
    }
    if (std::find(out.reductions.begin(), out.reductions.end(), &r) == out.reductions.end()) {
      out.reductions.push_back(&r);
      out.nodes.push_back(rp);
      stack_.push_back(&r.inputs[0]);
    }
    return true;
  }

  const Shape& shape_;
  const PendingOutputs* pending_;
  std::uint32_t epoch_;
  std::vector<const NodePtr*> stack_;  // the graph's own references (it does not change during the walk)
  std::vector<const Node*> buffers_;
};

}  // namespace

std::optional<RowFusion> find_row_fusion(const NodePtr& root, const PendingOutputs* pending) {
  const Node& body = *body_root(root);
  if (!is_elementwise(body.op) || body.shape.ndim() == 0 || (pending && pending->find(body) >= 0)) return std::nullopt;
  RowFinder f(body.shape, pending);
  if (!f.walk(body_root(root)) || f.out.reductions.empty()) return std::nullopt;
  RowFusion r = std::move(f.out);
  r.row_elements = 1;
  for (const int a : r.axes) r.row_elements *= body.shape.dims()[std::size_t(a)];
  // Generated inputs read nothing, but are computed again in every phase:
  // count them as the root's element size, so that no row is unbounded.
  const std::uint64_t per = std::max<std::uint64_t>(f.bytes_per_element, std::uint64_t(size_of(body.dtype)));
  r.row_bytes = per * std::uint64_t(r.row_elements);
  // Weights count a body's nodes from above (a shared one once per use).
  r.instructions = body.weight;
  for (const Node* red : r.reductions) r.instructions += red->inputs[0]->weight + 1;
  return r;
}

int row_width(const codegen::KernelPlan& plan, int vector_bytes) {
  int widest = 1;
  for (const auto& in : plan.instrs) {
    if (codegen::is_row_reduction(in)) continue;
    if (in.op == Op::Generate && in.gen != GenKind::Arange && in.gen != GenKind::Uniform && in.gen != GenKind::Normal) return 1;
    if (op_class(in.op) != OpClass::Leaf) {
      if (!codegen::vectorizable(in.op, codegen::operand_dtype(plan.instrs, in))) return 1;
    }
    widest = std::max(widest, size_of(in.dtype));
  }
  int p = 1;
  while (p * 2 <= std::clamp(vector_bytes / widest, 1, 16)) p *= 2;
  return p;
}

}  // namespace fusecl::detail
