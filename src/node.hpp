// The lazy expression graph. An Array holds a shared_ptr to a Node; operations
// make new nodes; evaluation turns a node into a Buffer node in place, so every
// array that refers to it sees the result and the graph below it is released.
#pragma once

#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"
#include "fusecl/shape.hpp"
#include "runtime/runtime.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <variant>
#include <vector>

namespace fusecl::detail {

struct Node;
using NodePtr = std::shared_ptr<Node>;
/// A node's inputs. Three sit in place (where's three are the most an elementwise
/// node has), so making a node allocates the node only.
using NodeInputs = boost::container::small_vector<NodePtr, 3>;
inline std::span<const NodePtr> span_of(const NodeInputs& v) { return {v.data(), v.size()}; }
struct DeviceState;  // src/device_state.hpp

/// Parameters of a Generate node.
struct GenParams {
  GenKind kind = GenKind::Arange;
  double start = 0, step = 1;  // Arange, Linspace (Linspace: last element exactly `stop`)
  double stop = 0;
  std::int64_t k = 0;          // Eye: diagonal offset
  std::uint64_t seed = 0;      // Uniform, Normal
};

/// Buffer: the device memory (null for a zero-byte buffer).
struct BufferData {
  std::shared_ptr<rt::DeviceBuffer> buffer;
};
/// Scalar: the value as the bit pattern of the node's dtype (a kernel
/// argument, never source text).
struct ScalarData {
  std::uint64_t bits = 0;
};
/// View: NumPy-style strides (elements, may be 0 or negative) and offset over
/// the flat C-order storage of inputs[0], which is never elementwise (views
/// are pushed through elementwise nodes when they are made; see views.cpp).
struct ViewData {
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
};
/// Reduce: normalized, sorted axes of inputs[0] that are reduced; Mean
/// divides by `divisor` (the reduced count, less ddof for var/std) and then
/// takes the square root if `post_sqrt` (std).
struct ReduceData {
  std::vector<int> axes;
  double divisor = 1;
  bool post_sqrt = false;
};
/// Concat: the axis joined along.
struct ConcatData {
  int axis = 0;
};
/// HostView: caller memory of shape.size() elements, C order, that the
/// caller keeps alive and unchanged while evaluations read it (host_view()).
struct HostData {
  const void* data = nullptr;
  std::shared_ptr<const void> owner;  // keeps the memory alive where the caller handed it over (Python)
};
/// Elementwise ops, Contiguous and Transfer (whose inputs[0] lives on another
/// device) need nothing besides their inputs.
using KindData =
    std::variant<std::monostate, BufferData, ScalarData, GenParams, ViewData, ReduceData, ConcatData, HostData>;

/// The alternative of KindData a node of `op` holds.
constexpr std::size_t kind_data_index(Op op) {
  switch (op) {
    case Op::Buffer: return 1;
    case Op::Scalar: return 2;
    case Op::Generate: return 3;
    case Op::View: return 4;
    case Op::Concat: return 6;
    case Op::HostView: return 7;
    default: return op_class(op) == OpClass::Reduce ? 5 : 0;
  }
}
inline bool kind_data_matches(const Node& n);

struct Node {
  // User-provided, so that making a node (allocate_shared value-initializes)
  // runs the member initializers only: a defaulted constructor zeroes the
  // whole node first, which GCC does with `rep stos`, a tenth of the host time
  // of building a graph.
  Node() noexcept {}
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;
  // Releases the inputs without recursion: a chain of a million nodes is
  // destroyed with constant stack (see release_inputs).
  ~Node();

  Op op{};
  DType dtype{};
  Shape shape;
  NodeInputs inputs;
  // Where the node's value lives or will be computed; its nodes are guarded by
  // its lock (device_state.hpp). Null only for scalars, which are kernel
  // arguments usable on any device. Never changes.
  std::shared_ptr<DeviceState> device;
  // Whether a Transfer from another device is at or below this node (when it
  // was made; never changes). Tells GraphLock which graphs need more than
  // one device's lock.
  bool crosses = false;
  // Whether a HostView is at or below this node, unevaluated (when it was
  // made; cleared when the node becomes a buffer). Such graphs are evaluated
  // in chunks (src/stream.hpp); the scheduler never sees a HostView.
  bool host = false;

  // What only some kinds of node have, tagged by kind (kind_data_matches
  // says which op holds which): asking a node for another kind's data throws
  // std::bad_variant_access instead of reading a field that means nothing.
  KindData data;

  /// Buffer: the device memory, C-order contiguous, shape.size() elements of dtype.
  const std::shared_ptr<rt::DeviceBuffer>& buffer() const { return std::get<BufferData>(data).buffer; }
  /// Scalar: the value, as the bit pattern of `dtype`.
  std::uint64_t bits() const { return std::get<ScalarData>(data).bits; }
  const GenParams& gen() const { return std::get<GenParams>(data); }
  const ViewData& view() const { return std::get<ViewData>(data); }
  const ReduceData& reduce() const { return std::get<ReduceData>(data); }
  int concat_axis() const { return std::get<ConcatData>(data).axis; }
  const void* host_data() const { return std::get<HostData>(data).data; }

  // Elementwise operations fused below this node, counting shared ones once
  // per path (an over-estimate that is cheap to keep and errs towards
  // evaluating early). Bounds the size of generated kernels.
  std::uint32_t weight = 0;
  // Levels of unevaluated nodes below and including this one, every kind
  // counted (views, barriers, casts...); 0 for leaves. Bounded by
  // max_fused_ops() like `weight`, so chains of barriers or views that fuse
  // nothing still get evaluated part by part. May over-estimate after an
  // input is evaluated in place.
  std::uint32_t depth = 0;

  // Scratch for graph walks (single-threaded): a walk takes a fresh epoch and
  // marks the nodes it has seen, instead of allocating a visited set.
  std::uint32_t mark = 0;
  std::int16_t mark_value = -1;
};

inline bool kind_data_matches(const Node& n) { return n.data.index() == kind_data_index(n.op); }

/// The node now holds its value, `buf`, and the graph below it is released.
void become_buffer(Node& n, std::shared_ptr<rt::DeviceBuffer> buf);

/// Drops `inputs`, destroying the nodes only they held with an explicit
/// worklist instead of recursion through ~Node.
void release_inputs(NodeInputs& inputs);

/// The depth of a node made of `inputs` (1 + the deepest); past
/// max_fused_ops(), the deepest inputs are evaluated first (each becomes a
/// buffer of depth 0), so no graph grows deeper than the bound.
std::uint32_t bounded_depth(std::span<const NodePtr> inputs);

/// A number no node is marked with yet (thread-safe; the marks themselves
/// are only written under the node's device lock).
std::uint32_t next_walk_epoch();

/// Nodes that are leaves of a kernel: their values are read, not computed.
inline bool is_leaf(const Node& n) {
  return n.op == Op::Buffer || n.op == Op::Scalar || n.op == Op::Generate || n.op == Op::HostView;
}

/// Random draws (Philox streams): a plan replayed or kept for them would repeat the draw.
inline bool is_random(const Node& n) {
  return n.op == Op::Generate && (n.gen().kind == GenKind::Uniform || n.gen().kind == GenKind::Normal);
}

/// Nodes that end fusion: computed by a kernel of their own before their readers.
inline bool is_barrier(const Node& n) {
  return op_class(n.op) == OpClass::Reduce || n.op == Op::Contiguous || n.op == Op::Concat || n.op == Op::Transfer;
}

/// A new node (a copy of `copy`), its memory from a per-thread pool (node_pool.cpp).
NodePtr new_node();
NodePtr new_node(const Node& copy);

NodePtr make_buffer(std::shared_ptr<rt::DeviceBuffer> buf, DType dtype, Shape shape, std::shared_ptr<DeviceState> device);
/// A scalar in `dtype` from the bit pattern of that dtype's C++ type.
NodePtr make_scalar(DType dtype, std::uint64_t bits);
NodePtr make_generate(DType dtype, Shape shape, const GenParams& gen, std::shared_ptr<DeviceState> device);
/// An array in caller memory (host_view): `data` holds shape.size() elements of dtype, C order.
NodePtr make_host_view(const void* data, DType dtype, Shape shape, std::shared_ptr<DeviceState> device,
                       std::shared_ptr<const void> owner = nullptr);

/// x's value on `device` (lazy: evaluation copies it through the host).
NodePtr make_transfer(const NodePtr& x, std::shared_ptr<DeviceState> device);

/// Elementwise node of `op` on `device` (the inputs' common_device, which the
/// caller found before locking) whose inputs already have the computation
/// dtype; broadcasts them to one shape. Evaluates inputs early if the graph
/// grows past max_fused_ops(). Takes `device` over (moves from it) only where
/// nothing can throw any more: the caller's copy, made before its GraphLock,
/// keeps the device alive until the lock is released on every other path.
NodePtr make_elementwise(Op op, DType out, NodeInputs inputs, std::shared_ptr<DeviceState>& device);
NodePtr make_cast(const NodePtr& x, DType to);

/// A reduction of x over `axes` (any order, negative allowed; empty: all axes),
/// with NumPy's result dtypes; `ddof` and `sqrt` serve var and std.
NodePtr make_reduce(Op op, const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims);
NodePtr make_reduce_ex(Op op, const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims, int ddof,
                       bool post_sqrt);
NodePtr make_moment(const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims, int ddof, bool sqrt);

/// The graph-size bound: FUSECL_MAX_FUSED_OPS, default 256.
std::uint32_t max_fused_ops();
/// Tests only: replaces the bound (any value >= 2); returns the previous one.
std::uint32_t set_max_fused_ops(std::uint32_t n);

// Type-resolving builders used by the typed API: they apply NumPy's rules,
// insert casts, and validate (e.g. bitwise ops on floats).
// Operands by value: pass a temporary (std::move an operand used no more) and
// its node goes into the new one without an atomic operation on its count.
NodePtr unary(Op op, NodePtr x);
NodePtr binary(Op op, NodePtr a, NodePtr b);
NodePtr ternary(Op op, NodePtr a, NodePtr b, NodePtr c);

}  // namespace fusecl::detail
