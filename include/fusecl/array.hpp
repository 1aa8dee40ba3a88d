// Array<T>: a lazy, typed handle to a node of the expression graph.
//
// Every operation returns a new Array whose value is not computed until it is
// needed (to_host, eval). An expression *is* an Array: there is no separate
// expression type to convert, so `(x + y).to_host()` and `Array<float> w = z;`
// both just work. The templates here only compute result types (with the
// constexpr rules of result_type.hpp) and forward to non-template graph
// builders, which keeps user code quick to compile.
#pragma once

#include "fusecl/device.hpp"
#include "fusecl/dtype.hpp"
#include "fusecl/error.hpp"
#include "fusecl/op.hpp"
#include "fusecl/result_type.hpp"
#include "fusecl/shape.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fusecl {

namespace detail {
struct Node;
using NodePtr = std::shared_ptr<Node>;

// Graph builders (src/graph.cpp, src/api.cpp).
// Operands by value: a temporary's node is moved in, without an atomic
// operation on its count (see to_node).
NodePtr unary(Op op, NodePtr x);
NodePtr binary(Op op, NodePtr a, NodePtr b);
NodePtr ternary(Op op, NodePtr a, NodePtr b, NodePtr c);
NodePtr make_cast(const NodePtr& x, DType to);
NodePtr make_scalar(DType dtype, std::uint64_t bits);
NodePtr node_from_host(const void* data, DType dtype, const Shape& shape, const Device& dev);
/// `owner`, if given, is held as long as the host view exists (bindings hand over their array).
NodePtr node_host_view(const void* data, DType dtype, const Shape& shape, const Device& dev,
                       std::shared_ptr<const void> owner = nullptr);
NodePtr empty_node(DType dtype);
Device node_device(const NodePtr& n);
NodePtr node_to_device(const NodePtr& n, const Device& dev);
const Shape& node_shape(const NodePtr& n);
DType node_dtype(const NodePtr& n);
void node_to_host(const NodePtr& n, void* dst, std::size_t bytes);
void evaluate_nodes(const std::vector<NodePtr>& nodes);
[[noreturn]] void throw_scalar_overflow(const std::string& value, DType target);
}  // namespace detail

template <class T>
class Array {
  static_assert(is_element_v<T>, "fusecl::Array<T>: T must be bool, a fixed-width integer type, float or double");

 public:
  using value_type = T;

  /// An empty one-dimensional array (shape (0,)) on this thread's default device.
  Array() : node_(detail::empty_node(dtype_of_v<T>)) {}
  /// Wraps a graph node of dtype T (library use; users build arrays with from_host and operations).
  explicit Array(detail::NodePtr node) : node_(std::move(node)) {}

  const Shape& shape() const { return detail::node_shape(node_); }
  std::int64_t size() const { return shape().size(); }
  int ndim() const { return shape().ndim(); }
  static constexpr DType dtype() { return dtype_of_v<T>; }

  /// The device this array lives on (where its value is or will be computed).
  Device device() const { return detail::node_device(node_); }
  /// This array's value on `dev`: lazy like every operation (nothing moves
  /// until a result needs it; then the value is computed where it lives and
  /// copied through host memory, one download and one upload). On its own
  /// device it is the array itself.
  Array to(const Device& dev) const { return Array(detail::node_to_device(node_, dev)); }

  /// Evaluates (if needed) and copies the values to a new host vector, in C order.
  std::vector<T> to_host() const {
    std::vector<std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>> out(static_cast<std::size_t>(size()));
    detail::node_to_host(node_, out.data(), out.size() * sizeof(T));
    if constexpr (std::is_same_v<T, bool>) return std::vector<bool>(out.begin(), out.end());
    else return out;
  }
  /// Evaluates (if needed) and copies the values into caller memory of exactly size() elements.
  void to_host(std::span<T> dst) const {
    if (static_cast<std::int64_t>(dst.size()) != size())
      throw Error("to_host: destination has " + std::to_string(dst.size()) + " elements, array " + shape().str() +
                  " has " + std::to_string(size()));
    detail::node_to_host(node_, dst.data(), dst.size() * sizeof(T));
  }

  /// The values converted to U (C conversion rules; bool is "nonzero").
  template <class U>
  Array<U> astype() const {
    return Array<U>(detail::make_cast(node_, dtype_of_v<U>));
  }

  const detail::NodePtr& node() const& { return node_; }
  /// A temporary's node, taken over (what operations on a temporary use).
  detail::NodePtr node() && { return std::move(node_); }

 private:
  detail::NodePtr node_;
};

template <class T>
inline constexpr bool is_array_v = false;
template <class T>
inline constexpr bool is_array_v<Array<T>> = true;

/// An operand of a free function or operator: an Array or a C++ arithmetic scalar.
template <class X>
inline constexpr bool is_operand_v = is_array_v<X> || std::is_arithmetic_v<X>;

// ---- host data in ---------------------------------------------------------------------

/// Copies host data to `dev` (default: this thread's default_device()); the
/// caller's memory is free as soon as this returns.
template <class T>
Array<T> from_host(std::span<const T> data, const Shape& shape, const Device& dev = default_device()) {
  if (static_cast<std::int64_t>(data.size()) != shape.size())
    throw ShapeError("from_host: " + std::to_string(data.size()) + " values do not fill shape " + shape.str());
  return Array<T>(detail::node_from_host(data.data(), dtype_of_v<T>, shape, dev));
}
template <class T>
Array<T> from_host(const std::vector<T>& data, const Shape& shape, const Device& dev = default_device()) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::uint8_t> bytes(data.begin(), data.end());
    if (static_cast<std::int64_t>(bytes.size()) != shape.size())
      throw ShapeError("from_host: " + std::to_string(bytes.size()) + " values do not fill shape " + shape.str());
    return Array<bool>(detail::node_from_host(bytes.data(), DType::Bool, shape, dev));
  } else {
    return from_host(std::span<const T>(data), shape, dev);
  }
}
template <class T>
Array<T> from_host(const std::vector<T>& data) {
  return from_host(data, Shape{static_cast<std::int64_t>(data.size())});
}
template <class T>
Array<T> from_host(std::span<const T> data) {
  return from_host(data, Shape{static_cast<std::int64_t>(data.size())});
}
// The device is a deduced parameter so that from_host(data, {2, 3}) stays a
// shape: a braced list deduces nothing.
template <class T, class D, std::enable_if_t<std::is_same_v<D, Device>, int> = 0>
Array<T> from_host(const std::vector<T>& data, const D& dev) {
  return from_host(data, Shape{static_cast<std::int64_t>(data.size())}, dev);
}
template <class T, class D, std::enable_if_t<std::is_same_v<D, Device>, int> = 0>
Array<T> from_host(std::span<const T> data, const D& dev) {
  return from_host(data, Shape{static_cast<std::int64_t>(data.size())}, dev);
}

// ---- host data in place ---------------------------------------------------------------

/// An array that stays in the caller's memory: nothing is copied when it is
/// made. The caller keeps `data` alive and unchanged until every evaluation
/// reading it has returned. Expressions over host views are computed in
/// chunks of rows (the outermost axis): each chunk's rows are uploaded (or,
/// on devices that share the host's memory, read in place), computed and
/// written out before the next, so data larger than the device's memory
/// (FUSECL_DEVICE_MEMORY_LIMIT) streams through it. `to_host(span)` of such an
/// expression writes straight into the caller's memory; reductions across
/// the rows combine per-chunk results on the device. See the README, "Data
/// larger than the device".
template <class T>
Array<T> host_view(std::span<const T> data, const Shape& shape, const Device& dev = default_device()) {
  if (static_cast<std::int64_t>(data.size()) != shape.size())
    throw ShapeError("host_view: " + std::to_string(data.size()) + " values do not fill shape " + shape.str());
  return Array<T>(detail::node_host_view(data.data(), dtype_of_v<T>, shape, dev));
}
template <class T>
Array<T> host_view(std::span<const T> data) {
  return host_view(data, Shape{static_cast<std::int64_t>(data.size())});
}
template <class T>
Array<T> host_view(const std::vector<T>& data, const Shape& shape, const Device& dev = default_device()) {
  static_assert(!std::is_same_v<T, bool>, "host_view: std::vector<bool> packs bits; view a std::span<const bool> instead");
  return host_view(std::span<const T>(data), shape, dev);
}
template <class T>
Array<T> host_view(const std::vector<T>& data) {
  return host_view(data, Shape{static_cast<std::int64_t>(data.size())});
}

// ---- operand resolution (NEP 50: C++ scalars are weak) -------------------------------

namespace detail {

template <class X>
struct operand {
  using scalar = canonical_t<X>;
  static constexpr bool array = false;
};
template <class T>
struct operand<Array<T>> {
  using scalar = T;
  static constexpr bool array = true;
};

/// The dtype two operands are computed in.
template <class X, class Y>
constexpr DType common_dtype() {
  using A = operand<X>;
  using B = operand<Y>;
  constexpr DType da = dtype_of_v<typename A::scalar>, db = dtype_of_v<typename B::scalar>;
  if constexpr (A::array && B::array) return promote(da, db);
  else if constexpr (A::array) return promote_weak(da, weak_kind_v<typename B::scalar>);
  else if constexpr (B::array) return promote_weak(db, weak_kind_v<typename A::scalar>);
  else return promote(da, db);
}

template <class X, class Y, class Z>
constexpr DType common_dtype3() {
  // Arrays first, then weak scalars against them (NumPy's result_type).
  using A = operand<X>;
  using B = operand<Y>;
  using C = operand<Z>;
  constexpr bool any_array = A::array || B::array || C::array;
  DType strong = DType::Bool;
  bool have = false;
  auto add_strong = [&](bool arr, DType d) {
    if (arr || !any_array) {
      strong = have ? promote(strong, d) : d;
      have = true;
    }
  };
  add_strong(A::array, dtype_of_v<typename A::scalar>);
  add_strong(B::array, dtype_of_v<typename B::scalar>);
  add_strong(C::array, dtype_of_v<typename C::scalar>);
  if (!A::array && any_array) strong = promote_weak(strong, weak_kind_v<typename A::scalar>);
  if (!B::array && any_array) strong = promote_weak(strong, weak_kind_v<typename B::scalar>);
  if (!C::array && any_array) strong = promote_weak(strong, weak_kind_v<typename C::scalar>);
  return strong;
}

template <class T>
std::uint64_t bits_of(T v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

/// The node of an operand; a scalar becomes a kernel argument of dtype D
/// (an integer that does not fit D is an error, as in NumPy 2). An array's
/// node is handed on by reference, and a temporary array's is taken over: a
/// copy would cost two atomic operations per operand of every operation
/// (Black-Scholes makes 90 nodes a call, most of them from temporaries).
template <DType D, class XR>
decltype(auto) to_node(XR&& x) {
  using X = std::remove_cvref_t<XR>;
  if constexpr (is_array_v<X>) {
    return std::forward<XR>(x).node();  // const NodePtr&, or NodePtr from a temporary
  } else {
    using R = type_of_t<D>;
    using S = canonical_t<X>;
    if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool> && std::is_integral_v<R> && !std::is_same_v<R, bool>) {
      if (!std::in_range<R>(x)) throw_scalar_overflow(std::to_string(x), D);
    }
    return make_scalar(D, bits_of(static_cast<R>(x)));
  }
}

template <Op OP, class XR>
auto apply_unary(XR&& x) {
  using X = std::remove_cvref_t<XR>;
  constexpr DType in = dtype_of_v<typename operand<X>::scalar>;
  static_assert(unary_supported(OP, in), "fusecl: this operation is not defined for this element type");
  return Array<type_of_t<unary_result(OP, in)>>(unary(OP, std::forward<XR>(x).node()));
}

template <Op OP, class XR, class YR>
auto apply_binary(XR&& x, YR&& y) {
  using X = std::remove_cvref_t<XR>;
  using Y = std::remove_cvref_t<YR>;
  static_assert(is_array_v<X> || is_array_v<Y>, "fusecl: at least one operand must be an Array");
  constexpr DType P = common_dtype<X, Y>();
  static_assert(binary_supported(OP, P, P), "fusecl: this operation is not defined for these element types");
  return Array<type_of_t<binary_result(OP, P, P)>>(
      binary(OP, to_node<P>(std::forward<XR>(x)), to_node<P>(std::forward<YR>(y))));
}

}  // namespace detail

template <class X, class Y>
inline constexpr bool binary_operands_v =
    is_operand_v<X> && is_operand_v<Y> && (is_array_v<X> || is_array_v<Y>);
/// The same for operands as forwarding references deduce them.
template <class XR, class YR>
inline constexpr bool binary_forwarded_v = binary_operands_v<std::remove_cvref_t<XR>, std::remove_cvref_t<YR>>;
template <class XR>
inline constexpr bool array_forwarded_v = is_array_v<std::remove_cvref_t<XR>>;

// ---- operators --------------------------------------------------------------------------

// Operands are forwarding references so that a temporary (the result of the
// operation before, a scalar) hands its node over instead of copying it.
#define FUSECL_BINARY_OPERATOR(SYM, OP)                                                   \
  template <class X, class Y, std::enable_if_t<binary_forwarded_v<X, Y>, int> = 0>    \
  auto operator SYM(X&& x, Y&& y) {                                                     \
    return detail::apply_binary<Op::OP>(std::forward<X>(x), std::forward<Y>(y));       \
  }
FUSECL_BINARY_OPERATOR(+, Add)
FUSECL_BINARY_OPERATOR(-, Sub)
FUSECL_BINARY_OPERATOR(*, Mul)
FUSECL_BINARY_OPERATOR(/, Div)
FUSECL_BINARY_OPERATOR(%, Mod)
FUSECL_BINARY_OPERATOR(==, Eq)
FUSECL_BINARY_OPERATOR(!=, Ne)
FUSECL_BINARY_OPERATOR(<, Lt)
FUSECL_BINARY_OPERATOR(<=, Le)
FUSECL_BINARY_OPERATOR(>, Gt)
FUSECL_BINARY_OPERATOR(>=, Ge)
FUSECL_BINARY_OPERATOR(&&, LogicalAnd)
FUSECL_BINARY_OPERATOR(||, LogicalOr)
FUSECL_BINARY_OPERATOR(&, BitAnd)
FUSECL_BINARY_OPERATOR(|, BitOr)
FUSECL_BINARY_OPERATOR(^, BitXor)
FUSECL_BINARY_OPERATOR(<<, Shl)
FUSECL_BINARY_OPERATOR(>>, Shr)
#undef FUSECL_BINARY_OPERATOR

template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>
auto operator-(X&& x) { return detail::apply_unary<Op::Neg>(std::forward<X>(x)); }
template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>
auto operator!(X&& x) { return detail::apply_unary<Op::LogicalNot>(std::forward<X>(x)); }
template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>
auto operator~(X&& x) { return detail::apply_unary<Op::BitNot>(std::forward<X>(x)); }
template <class T>
Array<T> operator+(const Array<T>& x) { return x; }

// Compound assignment keeps the left side's type (NumPy's in-place casting).
#define FUSECL_COMPOUND(SYM, BASE)                                                       \
  template <class T, class Y, std::enable_if_t<is_operand_v<Y>, int> = 0>              \
  Array<T>& operator SYM(Array<T>& x, const Y& y) {                                    \
    x = (x BASE y).template astype<T>();                                                \
    return x;                                                                           \
  }
FUSECL_COMPOUND(+=, +)
FUSECL_COMPOUND(-=, -)
FUSECL_COMPOUND(*=, *)
FUSECL_COMPOUND(/=, /)
FUSECL_COMPOUND(%=, %)
FUSECL_COMPOUND(&=, &)
FUSECL_COMPOUND(|=, |)
FUSECL_COMPOUND(^=, ^)
FUSECL_COMPOUND(<<=, <<)
FUSECL_COMPOUND(>>=, >>)
#undef FUSECL_COMPOUND

// ---- elementwise functions ---------------------------------------------------------------

// The op rows marked `fn` (op.hpp) become fusecl::NAME(x) for a unary op and
// fusecl::NAME(x, y) for a binary one; the `custom` rows are written out below
// (astype is a member; operator / above and true_divide; where; fma). There is
// no generic ternary form, so a ternary row marked `fn` does not compile.
#define FUSECL_UNARY_fn(OP, NAME)                                        \
  template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>    \
  auto NAME(X&& x) {                                                     \
    return detail::apply_unary<Op::OP>(std::forward<X>(x));              \
  }
#define FUSECL_BINARY_fn(OP, NAME)                                                        \
  template <class X, class Y, std::enable_if_t<binary_forwarded_v<X, Y>, int> = 0>    \
  auto NAME(X&& x, Y&& y) {                                                             \
    return detail::apply_binary<Op::OP>(std::forward<X>(x), std::forward<Y>(y));       \
  }
#define FUSECL_UNARY_custom(OP, NAME)
#define FUSECL_BINARY_custom(OP, NAME)
#define FUSECL_TERNARY_custom(OP, NAME)
#define FUSECL_FREE_FUNCTION(e, n, cls, api, cxx, rule, acc) FUSECL_FREE_FUNCTION_##cls(e, api, cxx)
#define FUSECL_FREE_FUNCTION_Unary(e, api, cxx) FUSECL_UNARY_##api(e, cxx)
#define FUSECL_FREE_FUNCTION_Binary(e, api, cxx) FUSECL_BINARY_##api(e, cxx)
#define FUSECL_FREE_FUNCTION_Ternary(e, api, cxx) FUSECL_TERNARY_##api(e, cxx)
FUSECL_ELEMENTWISE_OPS(FUSECL_FREE_FUNCTION)
#undef FUSECL_FREE_FUNCTION_Ternary
#undef FUSECL_FREE_FUNCTION_Binary
#undef FUSECL_FREE_FUNCTION_Unary
#undef FUSECL_FREE_FUNCTION
#undef FUSECL_TERNARY_custom
#undef FUSECL_BINARY_custom
#undef FUSECL_UNARY_custom
#undef FUSECL_UNARY_fn

// C's name for remainder.
FUSECL_BINARY_fn(Mod, mod)
#undef FUSECL_BINARY_fn

// NumPy's other names for rad2deg and deg2rad.
template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>
auto degrees(X&& x) {
  return detail::apply_unary<Op::Rad2Deg>(std::forward<X>(x));
}
template <class X, std::enable_if_t<array_forwarded_v<X>, int> = 0>
auto radians(X&& x) {
  return detail::apply_unary<Op::Deg2Rad>(std::forward<X>(x));
}

/// NumPy's true_divide: integers are divided as floats (`/` on integer arrays
/// is floor division, like C++ and like NumPy's `//`).
template <class X, class Y, std::enable_if_t<binary_operands_v<X, Y>, int> = 0>
auto true_divide(const X& x, const Y& y) {
  // NumPy's true_divide has only float loops: integer and bool inputs of any
  // width divide in float64 (unlike sqrt, which computes narrow ints in float32).
  constexpr DType C = detail::common_dtype<X, Y>();
  constexpr DType P = is_float(C) ? C : DType::Float64;
  using R = type_of_t<P>;
  return Array<R>(detail::binary(Op::Div, detail::make_cast(detail::to_node<C>(x), P), detail::make_cast(detail::to_node<C>(y), P)));
}

/// where(cond, a, b): a where cond is true (nonzero), else b.
template <class CR, class XR, class YR, class C = std::remove_cvref_t<CR>, class X = std::remove_cvref_t<XR>,
          class Y = std::remove_cvref_t<YR>,
          std::enable_if_t<is_operand_v<C> && is_operand_v<X> && is_operand_v<Y>, int> = 0>
auto where(CR&& cond, XR&& a, YR&& b) {
  static_assert(is_array_v<C> || is_array_v<X> || is_array_v<Y>, "fusecl::where: at least one operand must be an Array");
  constexpr DType P = ternary_compute(Op::Where, detail::common_dtype<X, Y>());
  constexpr DType CD = detail::operand<C>::array ? dtype_of_v<typename detail::operand<C>::scalar> : DType::Bool;
  return Array<type_of_t<P>>(detail::ternary(Op::Where, detail::to_node<CD>(std::forward<CR>(cond)),
                                             detail::to_node<P>(std::forward<XR>(a)),
                                             detail::to_node<P>(std::forward<YR>(b))));
}

/// fma(a, b, c) = a * b + c with a single rounding (floats; integers compute in float).
template <class XR, class YR, class ZR, class X = std::remove_cvref_t<XR>, class Y = std::remove_cvref_t<YR>,
          class Z = std::remove_cvref_t<ZR>,
          std::enable_if_t<is_operand_v<X> && is_operand_v<Y> && is_operand_v<Z>, int> = 0>
auto fma(XR&& a, YR&& b, ZR&& c) {
  constexpr DType P = detail::common_dtype3<X, Y, Z>();
  constexpr DType F = ternary_compute(Op::Fma, P);
  return Array<type_of_t<F>>(detail::ternary(Op::Fma, detail::to_node<P>(std::forward<XR>(a)),
                                             detail::to_node<P>(std::forward<YR>(b)),
                                             detail::to_node<P>(std::forward<ZR>(c))));
}

/// clip(x, lo, hi) = minimum(maximum(x, lo), hi), as NumPy defines it.
template <class X, class L, class H, std::enable_if_t<is_array_v<X> && is_operand_v<L> && is_operand_v<H>, int> = 0>
auto clip(const X& x, const L& lo, const H& hi) {
  return minimum(maximum(x, lo), hi);
}

// ---- evaluation ------------------------------------------------------------------------

/// Evaluates the arrays (elementwise ones of one shape in one kernel); each then
/// holds its device buffer and no graph. Returns when the work is queued.
template <class... A>
void eval(const A&... arrays) {
  static_assert((is_array_v<A> && ...), "fusecl::eval takes arrays");
  detail::evaluate_nodes({arrays.node()...});
}

/// Blocks until all work queued on this thread's default device is done
/// (Device::finish for another).
void finish();

/// The OpenCL C source of the kernel that would compute x.
template <class T>
std::string kernel_source(const Array<T>& x);
std::string kernel_source_of_node(const detail::NodePtr& n);
template <class T>
std::string kernel_source(const Array<T>& x) { return kernel_source_of_node(x.node()); }

/// x's expression graph in Graphviz dot syntax.
std::string to_dot_of_node(const detail::NodePtr& n);
template <class T>
std::string to_dot(const Array<T>& x) { return to_dot_of_node(x.node()); }

/// Fusion on (default) or off. Off, every operation runs as its own kernel as
/// soon as it is written (eager evaluation, for comparison and debugging).
/// FUSECL_FUSION=0 in the environment turns it off from the start.
void set_fusion(bool on);
bool fusion();

}  // namespace fusecl
