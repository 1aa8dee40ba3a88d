#include "src/reduction_pairs.hpp"

#include <algorithm>

namespace fusecl::detail {

bool broadcast_back(const Node& view, const std::vector<int>& axes) {
  const Node& in = *view.inputs[0];
  const ViewData& vd = view.view();
  if (vd.offset != 0 || in.shape.ndim() != view.shape.ndim()) return false;
  const auto strides = contiguous_strides(in.shape);
  for (int i = 0; i < view.shape.ndim(); ++i) {
    const auto k = std::size_t(i);
    const std::int64_t vdim = view.shape.dims()[k], idim = in.shape.dims()[k];
    if (std::binary_search(axes.begin(), axes.end(), i)) {
      if (idim != 1 || (vdim != 1 && vd.strides[k] != 0)) return false;
    } else if (idim != vdim || (vdim != 1 && vd.strides[k] != strides[k])) {
      return false;
    }
  }
  return true;
}

namespace {

// d's second operand, r over `axes` read back along them, as d's first operand's
// reduction by `op`: r itself (the node holding it), else null.
const NodePtr* reduction_of_first(const Node& d, Op op, const std::vector<int>& axes) {
  const NodePtr* r = &d.inputs[1];
  if ((*r)->op == Op::View) {
    if (!broadcast_back(**r, axes)) return nullptr;
    r = &(*r)->inputs[0];
  }
  const Node& m = **r;
  if (m.op != op || m.inputs.empty() || m.inputs[0] != d.inputs[0] || m.reduce().axes != axes || m.reduce().post_sqrt) return nullptr;
  return r;
}

}  // namespace

ReductionPair variance_pair(const Node& v, const PendingOutputs* pending) {
  if (v.op != Op::Mean || !is_fused(*v.inputs[0], pending)) return {};
  const NodePtr& sq = v.inputs[0];
  if (sq->op != Op::Mul || sq->inputs[0] != sq->inputs[1] || !is_fused(*sq->inputs[0], pending)) return {};
  const Node& d = *sq->inputs[0];
  if (d.op != Op::Sub || (d.dtype != DType::Float32 && d.dtype != DType::Float64)) return {};
  const NodePtr* m = reduction_of_first(d, Op::Mean, v.reduce().axes);
  return m ? ReductionPair{&d.inputs[0], m} : ReductionPair{};
}

ReductionPair softmax_pair(const Node& s, const PendingOutputs* pending) {
  if (s.op != Op::Sum || s.reduce().post_sqrt || (s.dtype != DType::Float32 && s.dtype != DType::Float64) ||
      !is_fused(*s.inputs[0], pending))
    return {};
  const NodePtr& e = s.inputs[0];
  if (e->op != Op::Exp || e->dtype != s.dtype || !is_fused(*e->inputs[0], pending)) return {};
  const Node& d = *e->inputs[0];
  if (d.op != Op::Sub || d.dtype != s.dtype || d.inputs[0]->dtype != s.dtype) return {};
  const NodePtr* m = reduction_of_first(d, Op::Max, s.reduce().axes);
  return m && (*m)->dtype == s.dtype ? ReductionPair{&d.inputs[0], m} : ReductionPair{};
}

}  // namespace fusecl::detail
