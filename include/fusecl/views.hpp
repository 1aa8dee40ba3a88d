// Views: new shapes and orders of an array's elements that copy nothing. They
// are fused into the kernels that read them through generated index
// arithmetic. (reshape copies only where NumPy's would: when the layout cannot
// be expressed with strides.)
#pragma once

#include "fusecl/array.hpp"

#include <initializer_list>
#include <optional>
#include <vector>

namespace fusecl {

/// One axis of a slice: Python's start:stop:step (negative values count from
/// the end; nullopt is "omitted").
struct Slice {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
};
/// The whole axis (Python's `:`).
inline Slice all() { return {}; }
/// Python's start:stop:step.
inline Slice range(std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::int64_t step = 1) {
  return {start, stop, step};
}

namespace detail {
NodePtr view_reshape(const NodePtr& x, std::vector<std::int64_t> shape);
NodePtr view_permute(const NodePtr& x, std::vector<int> axes);
NodePtr view_transpose(const NodePtr& x);
NodePtr view_slice(const NodePtr& x, const std::vector<Slice>& per_axis);
NodePtr view_broadcast(const NodePtr& x, const Shape& shape);
NodePtr view_expand_dims(const NodePtr& x, int axis);
NodePtr view_squeeze(const NodePtr& x, std::optional<int> axis);
NodePtr view_flip(const NodePtr& x, std::optional<int> axis);
NodePtr make_concat(const std::vector<NodePtr>& xs, int axis);
}  // namespace detail

/// A new shape for the same elements in C order; one dimension may be -1.
template <class T>
Array<T> reshape(const Array<T>& a, std::vector<std::int64_t> shape) { return Array<T>(detail::view_reshape(a.node(), std::move(shape))); }
/// The axes in reverse order.
template <class T>
Array<T> transpose(const Array<T>& a) { return Array<T>(detail::view_transpose(a.node())); }
/// The axes in the given order (numpy.transpose(a, axes)).
template <class T>
Array<T> permute(const Array<T>& a, std::vector<int> axes) { return Array<T>(detail::view_permute(a.node(), std::move(axes))); }
template <class T>
Array<T> transpose(const Array<T>& a, std::vector<int> axes) { return permute(a, std::move(axes)); }
/// a[s0, s1, ...]; missing trailing axes are taken whole.
template <class T>
Array<T> slice(const Array<T>& a, const std::vector<Slice>& per_axis) { return Array<T>(detail::view_slice(a.node(), per_axis)); }
/// a[start:stop:step] along one axis.
template <class T>
Array<T> slice(const Array<T>& a, int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
               std::int64_t step = 1) {
  std::vector<Slice> s(static_cast<std::size_t>(normalize_axis(axis, a.ndim()) + 1));
  s.back() = Slice{start, stop, step};
  return slice(a, s);
}
template <class T>
Array<T> broadcast_to(const Array<T>& a, const Shape& shape) { return Array<T>(detail::view_broadcast(a.node(), shape)); }
template <class T>
Array<T> expand_dims(const Array<T>& a, int axis) { return Array<T>(detail::view_expand_dims(a.node(), axis)); }
template <class T>
Array<T> squeeze(const Array<T>& a) { return Array<T>(detail::view_squeeze(a.node(), std::nullopt)); }
template <class T>
Array<T> squeeze(const Array<T>& a, int axis) { return Array<T>(detail::view_squeeze(a.node(), axis)); }
template <class T>
Array<T> flip(const Array<T>& a) { return Array<T>(detail::view_flip(a.node(), std::nullopt)); }
template <class T>
Array<T> flip(const Array<T>& a, int axis) { return Array<T>(detail::view_flip(a.node(), axis)); }

/// Joins arrays along an existing axis (a kernel of its own, writing each input into place).
template <class T>
Array<T> concatenate(const std::vector<Array<T>>& arrays, int axis = 0) {
  std::vector<detail::NodePtr> nodes;
  for (const auto& a : arrays) nodes.push_back(a.node());
  return Array<T>(detail::make_concat(nodes, axis));
}
/// concatenate({a, b}, axis): a braced list deduces T (a std::vector<Array<T>> parameter cannot).
template <class T>
Array<T> concatenate(std::initializer_list<Array<T>> arrays, int axis = 0) {
  return concatenate(std::vector<Array<T>>(arrays), axis);
}
/// Joins arrays of one shape along a new axis.
template <class T>
Array<T> stack(const std::vector<Array<T>>& arrays, int axis = 0) {
  if (arrays.empty()) throw Error("stack: need at least one array");
  std::vector<Array<T>> expanded;
  const int a = normalize_axis(axis, arrays.front().ndim() + 1);
  for (const auto& x : arrays) {
    if (x.shape() != arrays.front().shape())
      throw ShapeError("stack: all input arrays must have the same shape, got " + arrays.front().shape().str() + " and " +
                       x.shape().str());
    expanded.push_back(expand_dims(x, a));
  }
  return concatenate(expanded, a);
}
/// stack({a, b}, axis).
template <class T>
Array<T> stack(std::initializer_list<Array<T>> arrays, int axis = 0) {
  return stack(std::vector<Array<T>>(arrays), axis);
}

}  // namespace fusecl
