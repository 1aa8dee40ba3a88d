#include "src/node.hpp"

#include "fusecl/error.hpp"
#include "fusecl/result_type.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/stats_counters.hpp"
#include "src/device_state.hpp"
#include "src/materialize.hpp"
#include "src/scalar_value.hpp"
#include "src/views.hpp"

#include <algorithm>
#include <atomic>
#include <string>

namespace fusecl::detail {

std::uint32_t next_walk_epoch() {
  // Walks on different devices run at once; each needs a number of its own.
  static std::atomic<std::uint32_t> epoch{0};
  return ++epoch;
}

namespace {
std::atomic<std::uint32_t> fused_ops_override{0};  // set_max_fused_ops; 0: none
}  // namespace

std::uint32_t max_fused_ops() {
  if (const std::uint32_t o = fused_ops_override.load(std::memory_order_relaxed)) return o;
  // A larger bound gains nothing: kernel bodies are split at
  // kMaxBodyInstructions (1024) anyway, and deeper graphs only cost memory.
  // "Unbounded" (a huge value) means 4096, with a warning.
  static const std::uint32_t bound =
      std::uint32_t(rt::int_setting({"FUSECL_MAX_FUSED_OPS", 256, 2, 4096, false, "the default"}));
  return bound;
}

std::uint32_t set_max_fused_ops(std::uint32_t n) {
  const std::uint32_t previous = max_fused_ops();
  fused_ops_override.store(std::max<std::uint32_t>(n, 2), std::memory_order_relaxed);
  return previous;
}

Node::~Node() { release_inputs(inputs); }

void release_inputs(NodeInputs& inputs) {
  if (inputs.empty()) return;
  // A graph's release usually fits the stack part; a long chain spills to the heap.
  boost::container::small_vector<NodePtr, 16> work(std::make_move_iterator(inputs.begin()),
                                                   std::make_move_iterator(inputs.end()));
  inputs.clear();
  while (!work.empty()) {
    NodePtr n = std::move(work.back());
    work.pop_back();
    // Where this is the last owner, take the node's inputs over before it
    // goes, so that its destructor has nothing left to release. (No weak
    // pointers to nodes exist, so a count of one cannot grow behind us.)
    if (n.use_count() == 1) {
      for (auto& in : n->inputs) work.push_back(std::move(in));
      n->inputs.clear();
    }
  }
}

std::uint32_t bounded_depth(std::span<const NodePtr> inputs) {
  const std::uint32_t bound = max_fused_ops();
  for (;;) {
    const NodePtr* deepest = nullptr;
    for (const auto& in : inputs)
      if (!deepest || in->depth > (*deepest)->depth) deepest = &in;
    if (!deepest || (*deepest)->depth < bound) return deepest ? (*deepest)->depth + 1 : 1;
    // Evaluated, it becomes a buffer of depth 0; the loop ends within inputs.size() rounds.
    rt::counters().auto_evaluations++;
    evaluate({*deepest});
  }
}

NodePtr make_buffer(std::shared_ptr<rt::DeviceBuffer> buf, DType dtype, Shape shape, DevicePtr device) {
  auto n = new_node();
  n->op = Op::Buffer;
  n->device = std::move(device);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->data = BufferData{std::move(buf)};
  n->weight = 1;
  return n;
}

NodePtr make_scalar(DType dtype, std::uint64_t bits) {
  auto n = new_node();
  n->op = Op::Scalar;
  n->dtype = dtype;
  n->data = ScalarData{bits};
  n->weight = 1;
  return n;
}

NodePtr make_generate(DType dtype, Shape shape, const GenParams& gen, DevicePtr device) {
  check_bytes(shape, size_of(dtype));
  auto n = new_node();
  n->op = Op::Generate;
  n->device = std::move(device);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->data = gen;
  n->weight = 1;
  return n;
}

NodePtr make_host_view(const void* data, DType dtype, Shape shape, DevicePtr device, std::shared_ptr<const void> owner) {
  check_bytes(shape, size_of(dtype));
  auto n = new_node();
  n->op = Op::HostView;
  n->device = std::move(device);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->data = HostData{data, std::move(owner)};
  n->host = true;
  n->weight = 1;
  return n;
}

namespace {
std::uint32_t weight_of(const Node& n) { return is_barrier(n) || n.op == Op::View ? 1 : n.weight; }

// The number of distinct nodes a kernel computing `roots` would fuse (shared
// subexpressions once), counting up to `limit` and stopping there.
std::uint32_t fused_size(std::span<const NodePtr> roots, std::uint32_t limit) {
  const std::uint32_t epoch = next_walk_epoch();
  std::uint32_t count = 1;  // the node about to be made
  // In place for graphs of the sizes built again and again: this runs for every
  // node made past the bound (Black-Scholes: twice a call).
  boost::container::small_vector<const Node*, 128> stack;
  for (const auto& r : roots) stack.push_back(r.get());
  while (!stack.empty() && count <= limit) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n->mark == epoch) continue;
    const_cast<Node*>(n)->mark = epoch;
    ++count;
    if (is_elementwise(n->op))
      for (const auto& in : n->inputs) stack.push_back(in.get());
  }
  return count;
}
}  // namespace

NodePtr make_elementwise(Op op, DType out, NodeInputs inputs, DevicePtr& device) {
  // Most operations combine arrays of one shape, or one and scalars: then the
  // result has that input's shape, nothing is broadcast, and its byte count
  // was checked when the input was made, unless the result's elements are wider.
  const Node* first = nullptr;
  bool same = true;
  for (const auto& in : inputs) {
    if (in->shape.ndim() == 0) continue;
    if (!first) first = in.get();
    else if (in->shape != first->shape) same = false;
  }
  Shape shape;
  if (same) {
    if (first) shape = first->shape;
    if (!first || size_of(out) > size_of(first->dtype)) check_bytes(shape, size_of(out));
  } else {
    for (const auto& in : inputs) shape = broadcast_shapes(shape, in->shape);
    for (auto& in : inputs)
      if (in->shape.ndim() != 0 && in->shape != shape) in = broadcast_to(in, shape);
    check_bytes(shape, size_of(out));
  }

  // Keep kernels buildable and graphs bounded: past the bound, evaluate the
  // heaviest input now (it becomes a buffer) and fuse only what is left. The
  // weight is a cheap over-estimate (shared subexpressions count once per
  // use); only when it passes the bound are distinct nodes counted exactly.
  const std::uint32_t bound = max_fused_ops();
  auto estimate = [&] {
    std::uint64_t w = 1;
    for (const auto& in : inputs) w += weight_of(*in);
    return std::uint32_t(std::min<std::uint64_t>(w, 0xffffffffu));
  };
  std::uint32_t weight = estimate();
  while (weight > bound) {
    weight = fused_size(span_of(inputs), bound);
    if (weight <= bound) break;
    auto heaviest = std::max_element(inputs.begin(), inputs.end(),
                                     [](const NodePtr& a, const NodePtr& b) { return weight_of(*a) < weight_of(*b); });
    if (weight_of(**heaviest) <= 1) break;
    rt::counters().auto_evaluations++;
    evaluate({*heaviest});
    weight = estimate();
  }
  const std::uint32_t depth = bounded_depth(span_of(inputs));  // may evaluate an input, and throw
  auto n = new_node();
  n->op = op;
  n->dtype = out;
  n->shape = std::move(shape);
  n->crosses = std::any_of(inputs.begin(), inputs.end(), [](const NodePtr& i) { return i->crosses; });
  n->host = std::any_of(inputs.begin(), inputs.end(), [](const NodePtr& i) { return i->host; });
  n->weight = weight;
  n->depth = depth;
  // Moved one by one: the small_vector's move assignment costs several times as much.
  n->inputs.reserve(inputs.size());
  for (auto& in : inputs) n->inputs.push_back(std::move(in));
  if (fusion_enabled()) {
    n->device = std::move(device);  // nothing throws past here
  } else {
    n->device = device;  // the caller's copy outlives its lock if this evaluation throws
    evaluate({n});       // eager mode: one kernel per operation
  }
  return n;
}

namespace {
// The inputs of a new node, moved in: an initializer list would copy each
// shared pointer (two atomic operations per operand of every operation).
template <class... P>
NodeInputs operands(P&&... p) {
  NodeInputs v;
  (v.push_back(std::forward<P>(p)), ...);
  return v;
}

// make_cast for a caller that holds x's lock already: unary, binary and
// ternary take one lock for the whole operation instead of one per operand.
// x by value: an operand that is a temporary (a scalar, the array an
// operation just made) is handed on without touching its count.
NodePtr cast_locked(NodePtr x, DType to) {
  if (x->dtype == to) return x;
  if (x->op == Op::Scalar) {
    // Casting a scalar argument is the host's job: it stays one kernel argument.
    auto n = make_scalar(to, 0);
    n->data = ScalarData{cast_scalar_bits(x->dtype, x->bits(), to)};
    return n;
  }
  DevicePtr device = common_device({x.get()}, op_name(Op::Cast));
  return make_elementwise(Op::Cast, to, operands(std::move(x)), device);
}

}  // namespace

NodePtr make_cast(const NodePtr& x, DType to) {
  const GraphLock lock{x.get()};
  return cast_locked(x, to);
}

// The operands come by value and are moved into the new node: a temporary
// (a scalar, the result of the operation before) costs no atomic operation on
// its count. `device` is declared before the lock, so the device outlives the
// lock's release even where an exception drops the last arrays on it.
NodePtr unary(Op op, NodePtr x) {
  DevicePtr device = common_device({x.get()}, op_name(op));
  const GraphLock lock{x.get()};
  if (!unary_supported(op, x->dtype))
    throw Error("fusecl::" + std::string(op_name(op)) + " is not supported for " + std::string(dtype_name(x->dtype)));
  const DType compute = unary_compute(op, x->dtype);
  const DType out = unary_result(op, x->dtype);
  return make_elementwise(op, out, operands(cast_locked(std::move(x), compute)), device);
}

NodePtr binary(Op op, NodePtr a, NodePtr b) {
  // Before locking: two devices are an error.
  DevicePtr device = common_device({a.get(), b.get()}, op_name(op));
  const GraphLock lock{a.get(), b.get()};
  if (!binary_supported(op, a->dtype, b->dtype))
    throw Error("fusecl::" + std::string(op_name(op)) + " is not supported for " + std::string(dtype_name(a->dtype)) +
                " and " + std::string(dtype_name(b->dtype)));
  const DType compute = binary_compute(op, a->dtype, b->dtype);
  const DType out = binary_result(op, a->dtype, b->dtype);
  return make_elementwise(op, out, operands(cast_locked(std::move(a), compute), cast_locked(std::move(b), compute)),
                          device);
}

NodePtr ternary(Op op, NodePtr a, NodePtr b, NodePtr c) {
  DevicePtr device = common_device({a.get(), b.get(), c.get()}, op_name(op));
  const GraphLock lock{a.get(), b.get(), c.get()};
  if (op == Op::Where) {  // the condition is a truth value, not an operand of the result
    const DType out = ternary_compute(op, promote(b->dtype, c->dtype));
    return make_elementwise(
        op, out,
        operands(cast_locked(std::move(a), DType::Bool), cast_locked(std::move(b), out), cast_locked(std::move(c), out)),
        device);
  }
  const DType out = ternary_compute(op, promote(promote(a->dtype, b->dtype), c->dtype));
  return make_elementwise(
      op, out, operands(cast_locked(std::move(a), out), cast_locked(std::move(b), out), cast_locked(std::move(c), out)),
      device);
}

}  // namespace fusecl::detail

namespace fusecl::detail {

NodePtr make_reduce(Op op, const NodePtr& x, std::vector<int> axes, bool all_axes, bool keepdims) {
  const GraphLock lock{x.get()};
  return make_reduce_ex(op, x, std::move(axes), all_axes, keepdims, 0, false);
}

NodePtr make_reduce_ex(Op op, const NodePtr& x_in, std::vector<int> axes, bool all_axes, bool keepdims, int ddof,
                       bool post_sqrt) {
  const int nd = x_in->shape.ndim();
  if (all_axes) {
    axes.clear();
    for (int i = 0; i < nd; ++i) axes.push_back(i);
  }
  for (auto& a : axes) a = normalize_axis(a, nd);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw ShapeError("duplicate value in 'axis' for " + std::string(op_name(op)) + " of shape " + x_in->shape.str());
  const bool index = reduce_info(op).finish == Finish::Index;
  if (index && !all_axes && axes.size() != 1)
    throw ShapeError(std::string(op_name(op)) + " takes one axis or none (the flattened array)");
  std::int64_t count = 1;
  std::vector<std::int64_t> out;
  for (int i = 0; i < nd; ++i) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), i);
    if (reduced) count *= x_in->shape.dims()[std::size_t(i)];
    if (!reduced) out.push_back(x_in->shape.dims()[std::size_t(i)]);
    else if (keepdims) out.push_back(1);
  }
  // Min and max start from the first element, not from an infinity (NumPy
  // raises on an empty input), and so do the index reductions.
  const Identity identity = reduce_info(op).identity;
  const bool no_identity = index || identity == Identity::Highest || identity == Identity::Lowest;
  if (no_identity && count == 0)
    throw Error("zero-size array to reduction operation " + std::string(op_name(op)) + " which has no identity (shape " +
                x_in->shape.str() + ")");

  // argmin / argmax along one element: every index is 0, whatever the
  // values (NaN too), so nothing is read. argmax over axis 0 of 1 x 2^26
  // floats took 296 us on an H100 as a reduction (writing 2^26 longs from
  // the floats read), torch.compile 167 (bench/RESULTS.md, fifty-seventh session).
  if (index && count == 1) return broadcast_scalar(make_scalar(DType::Int64, 0), Shape(std::move(out)), x_in->device);
  NodePtr x = make_cast(x_in, reduce_compute(op, x_in->dtype));
  if (x->weight > max_fused_ops()) {
    rt::counters().auto_evaluations++;
    evaluate({x});
  }
  auto n = new_node();
  n->op = op;
  n->device = x->device;
  n->crosses = x->crosses;
  n->host = x->host;
  n->dtype = index ? DType::Int64 : x->dtype;
  n->shape = Shape(std::move(out));
  check_bytes(n->shape, size_of(n->dtype));
  // NumPy divides by max(n - ddof, 0): with ddof past n, var is inf (or NaN
  // where every deviation is 0), never negative.
  n->data = ReduceData{std::move(axes), std::max(0.0, double(count) - double(ddof)), post_sqrt};
  n->weight = 1;
  n->depth = bounded_depth({&x, 1});
  n->inputs = {x};
  if (!fusion_enabled()) evaluate({n});
  return n;
}

}  // namespace fusecl::detail

namespace fusecl::detail {

NodePtr make_moment(const NodePtr& x_in, std::vector<int> axes, bool all_axes, bool keepdims, int ddof, bool sqrt) {
  const GraphLock lock{x_in.get()};
  NodePtr x = make_cast(x_in, moment_dtype(x_in->dtype));
  NodePtr m = make_reduce(Op::Mean, x, axes, all_axes, true);
  NodePtr d = binary(Op::Sub, x, m);
  // The mean of squared deviations, divided by n - ddof instead of n; std
  // takes the square root in the same kernel.
  return make_reduce_ex(Op::Mean, binary(Op::Mul, d, d), std::move(axes), all_axes, keepdims, ddof, sqrt);
}

}  // namespace fusecl::detail

namespace fusecl::detail {

NodePtr make_transfer(const NodePtr& x, DevicePtr device) {
  if (x->device == device) return x;
  auto n = new_node();
  n->op = Op::Transfer;
  n->dtype = x->dtype;
  n->shape = x->shape;
  n->device = std::move(device);
  n->crosses = true;
  n->weight = 1;
  {
    const GraphLock lock{x.get()};  // x's devices only: n is new, no other thread sees it yet
    n->depth = bounded_depth({&x, 1});
  }
  n->inputs = {x};
  if (!fusion_enabled()) {
    const GraphLock lock{n.get()};
    evaluate({n});
  }
  return n;
}

}  // namespace fusecl::detail
