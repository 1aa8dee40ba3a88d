// Views that copy nothing. A view is a NumPy-style (shape, strides, offset)
// over the flat storage of a leaf or a barrier; a view of an elementwise
// expression is pushed down to that expression's inputs when it is made, so
// the code generator only ever sees views directly on what it loads.
#pragma once

#include "fusecl/views.hpp"
#include "src/node.hpp"

#include <functional>
#include <optional>

namespace fusecl::detail {

struct Strided {
  Shape shape;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
};

/// Maps a layout to the viewed layout; nullopt when it cannot be expressed
/// with strides (reshape of some non-contiguous layouts).
using ViewFn = std::function<std::optional<Strided>(const Strided&)>;

/// Applies `f` to x, copying nothing where possible; where a layout cannot
/// express it, x is first made contiguous (as NumPy's reshape copies).
NodePtr apply_view(const NodePtr& x, const ViewFn& f);

/// (x.shape, strides, offset) of a View node, relative to its input's storage.
Strided layout_of_view(const Node& view);

/// `scalar` broadcast to `shape` on `device` (full(): a scalar has no device
/// of its own, so the view says where the array lives).
NodePtr broadcast_scalar(const NodePtr& scalar, const Shape& shape, const std::shared_ptr<DeviceState>& device);

// The view operations (each throws ShapeError with the shapes involved).
NodePtr broadcast_to(const NodePtr& x, const Shape& shape);
NodePtr reshape(const NodePtr& x, std::vector<std::int64_t> shape);  // one -1 allowed
NodePtr permute(const NodePtr& x, std::vector<int> axes);
NodePtr transpose(const NodePtr& x);  // reverses the axes
using SliceSpec = fusecl::Slice;
NodePtr slice(const NodePtr& x, const std::vector<SliceSpec>& per_axis);  // missing trailing axes: whole
NodePtr expand_dims(const NodePtr& x, int axis);
NodePtr squeeze(const NodePtr& x, std::optional<int> axis);
NodePtr flip(const NodePtr& x, std::optional<int> axis);

/// NumPy's attempt to reshape strided memory without copying.
std::optional<Strided> reshape_strided(const Strided& s, const Shape& to);

}  // namespace fusecl::detail
