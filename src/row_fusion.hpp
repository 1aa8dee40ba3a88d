// Row fusion (issue 13): an elementwise root whose body reads reductions over
// one set of axes R of its own shape, each broadcast back along R (keepdims,
// or broadcast), and whose reductions' inputs are computed from leaves over
// the same rows (softmax, x - max(x, axis, true), layer norm, and chains of
// them), is computed by one row kernel: a work-group per row (plan_row in
// scheduler.hpp). This file only decides whether a root has that form.
#pragma once

#include "src/scheduler.hpp"

#include <optional>
#include <vector>

namespace fusecl::detail {

struct RowFusion {
  std::vector<const Node*> reductions;  // unevaluated, each once
  std::vector<NodePtr> nodes;           // the same, held
  std::vector<int> axes;                // R, sorted
  std::int64_t row_elements = 0;        // elements of one row (the product of R's extents)
  std::uint64_t row_bytes = 0;          // bytes of the distinct buffers read per row
  std::uint64_t instructions = 0;       // at most this many in the kernel body (from the nodes' weights)
};

/// The row fusion computing `root` in one kernel, or nullopt where its body
/// reads no unevaluated reduction or anything else stops it: another
/// barrier that is not evaluated (a concatenation, a copy), reductions over
/// different axes, an arg-reduction, or a reduction read other than
/// broadcast back along its own axes.
std::optional<RowFusion> find_row_fusion(const NodePtr& root, const PendingOutputs* pending);

/// The vector width of a row kernel that loops over its rows, every load
/// contiguous or uniform: the device's vector bytes over the widest dtype of
/// the body, 1 where an instruction has no vector form (its reductions are
/// uniform values and need none).
int row_width(const codegen::KernelPlan& plan, int vector_bytes);

}  // namespace fusecl::detail
