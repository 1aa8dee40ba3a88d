// Reductions, fused with whatever computes their input: sum(x * x) reads x
// once, in one kernel. Over all elements, one axis, or several axes, with
// keepdims; negative axes count from the end; result dtypes as in NumPy.
#pragma once

#include "fusecl/array.hpp"

#include <vector>

namespace fusecl {

namespace detail {
NodePtr make_reduce(Op op, const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims);
NodePtr make_moment(const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims, int ddof, bool sqrt);

template <Op OP, class T>
using reduce_t = Array<type_of_t<reduce_result(OP, dtype_of_v<T>)>>;
}  // namespace detail

// The reduce rows marked `fn` (op.hpp), by their NumPy names: over all
// elements, one axis or several. argmin and argmax (`custom`) take one axis or none.
#define FUSECL_REDUCTION_fn(OP, NAME)                                                                  \
  template <class T>                                                                                   \
  detail::reduce_t<Op::OP, T> NAME(const Array<T>& a) {                                                \
    return detail::reduce_t<Op::OP, T>(detail::make_reduce(Op::OP, a.node(), {}, true, false));        \
  }                                                                                                    \
  template <class T>                                                                                   \
  detail::reduce_t<Op::OP, T> NAME(const Array<T>& a, int axis, bool keepdims = false) {               \
    return detail::reduce_t<Op::OP, T>(detail::make_reduce(Op::OP, a.node(), {axis}, false, keepdims)); \
  }                                                                                                    \
  template <class T>                                                                                   \
  detail::reduce_t<Op::OP, T> NAME(const Array<T>& a, std::vector<int> axes, bool keepdims = false) {  \
    return detail::reduce_t<Op::OP, T>(detail::make_reduce(Op::OP, a.node(), std::move(axes), false, keepdims)); \
  }
#define FUSECL_REDUCTION_custom(OP, NAME)
#define FUSECL_REDUCTION(e, n, api, ...) FUSECL_REDUCTION_##api(e, n)
FUSECL_REDUCE_OPS(FUSECL_REDUCTION)
#undef FUSECL_REDUCTION
#undef FUSECL_REDUCTION_custom
#undef FUSECL_REDUCTION_fn

/// Index of the smallest value of the flattened array (first occurrence; a NaN counts as smallest, as in NumPy).
template <class T>
Array<std::int64_t> argmin(const Array<T>& a) { return Array<std::int64_t>(detail::make_reduce(Op::ArgMin, a.node(), {}, true, false)); }
template <class T>
Array<std::int64_t> argmin(const Array<T>& a, int axis, bool keepdims = false) {
  return Array<std::int64_t>(detail::make_reduce(Op::ArgMin, a.node(), {axis}, false, keepdims));
}
template <class T>
Array<std::int64_t> argmax(const Array<T>& a) { return Array<std::int64_t>(detail::make_reduce(Op::ArgMax, a.node(), {}, true, false)); }
template <class T>
Array<std::int64_t> argmax(const Array<T>& a, int axis, bool keepdims = false) {
  return Array<std::int64_t>(detail::make_reduce(Op::ArgMax, a.node(), {axis}, false, keepdims));
}

/// Variance, NumPy's two-pass definition: mean(|x - mean(x)|^2) * n / (n - ddof).
/// For float32 on a device with float64, computed in one pass over x in
/// float64 (README: "Variance in one pass"); otherwise two kernels: the mean,
/// then the mean of squared deviations.
#define FUSECL_MOMENT(NAME, SQRT)                                                                       \
  template <class T>                                                                                    \
  Array<type_of_t<moment_dtype(dtype_of_v<T>)>> NAME(const Array<T>& a) {                               \
    return Array<type_of_t<moment_dtype(dtype_of_v<T>)>>(detail::make_moment(a.node(), {}, true, false, 0, SQRT)); \
  }                                                                                                     \
  template <class T>                                                                                    \
  Array<type_of_t<moment_dtype(dtype_of_v<T>)>> NAME(const Array<T>& a, int axis, bool keepdims = false, int ddof = 0) { \
    return Array<type_of_t<moment_dtype(dtype_of_v<T>)>>(detail::make_moment(a.node(), {axis}, false, keepdims, ddof, SQRT)); \
  }                                                                                                     \
  template <class T>                                                                                    \
  Array<type_of_t<moment_dtype(dtype_of_v<T>)>> NAME(const Array<T>& a, std::vector<int> axes, bool keepdims = false, int ddof = 0) { \
    return Array<type_of_t<moment_dtype(dtype_of_v<T>)>>(detail::make_moment(a.node(), std::move(axes), false, keepdims, ddof, SQRT)); \
  }
FUSECL_MOMENT(var, false)
FUSECL_MOMENT(stddev, true)
#undef FUSECL_MOMENT

}  // namespace fusecl
