// The non-template side of the public API: host transfers, evaluation,
// introspection (kernel_source, to_dot) and the fusion switch.
#include "fusecl/array.hpp"

#include "src/device_state.hpp"
#include "src/materialize.hpp"
#include "src/node.hpp"
#include "src/scalar_value.hpp"
#include "src/stream.hpp"

#include <sstream>
#include <unordered_map>

namespace fusecl {

namespace detail {

NodePtr node_from_host(const void* data, DType dtype, const Shape& shape, const Device& dev) {
  check_bytes(shape, size_of(dtype));
  count_evaluation_on_this_thread();  // a fused function's replay would not upload it again
  const std::size_t bytes = std::size_t(shape.size()) * std::size_t(size_of(dtype));
  // No lock: the upload makes a new buffer, and the runtime's queue and pool are thread-safe.
  return make_buffer(rt::upload(dev.state()->runtime(), data, bytes), dtype, shape, dev.state());
}

NodePtr node_host_view(const void* data, DType dtype, const Shape& shape, const Device& dev,
                       std::shared_ptr<const void> owner) {
  if (!data && shape.size() > 0) throw Error("host_view: null data for shape " + shape.str());
  return make_host_view(data, dtype, shape, dev.state(), std::move(owner));
}

NodePtr empty_node(DType dtype) {
  // No buffer at all (nothing reads zero bytes), so no device work either:
  // declaring an Array does not start OpenCL.
  return make_buffer(nullptr, dtype, Shape{0}, current_state());
}

Device node_device(const NodePtr& n) { return n->device ? Device(n->device) : default_device(); }

NodePtr node_to_device(const NodePtr& n, const Device& dev) { return make_transfer(n, dev.state()); }

const Shape& node_shape(const NodePtr& n) { return n->shape; }
DType node_dtype(const NodePtr& n) { return n->dtype; }

void node_to_host(const NodePtr& n, void* dst, std::size_t bytes) {
  std::shared_ptr<rt::DeviceBuffer> result;
  {
    const GraphLock lock{n.get()};
    if (n->host && refresh_host(*n) && chunkable(*n) && streams_to_host(*n)) {
      // Straight into the caller's memory, chunk by chunk: the whole result never exists on the device.
      stream_to_host(n, dst);
      return;
    }
    evaluate({n});
    result = n->buffer();
  }
  if (bytes == 0) return;
  // Outside the lock: the in-order queue orders the copy after the kernels,
  // and other threads build and launch on the device while this one waits.
  rt::download(n->device->runtime(), *result, 0, bytes, dst);
}

void evaluate_nodes(const std::vector<NodePtr>& nodes) {
  const GraphLock lock(nodes);
  evaluate(nodes);
}

void throw_scalar_overflow(const std::string& value, DType target) {
  throw Error("scalar " + value + " is out of bounds for " + std::string(dtype_name(target)) +
              " (NumPy 2 raises OverflowError here too; cast the array first, e.g. x.astype<std::int64_t>())");
}

}  // namespace detail

void finish() { default_device().finish(); }

std::string kernel_source_of_node(const detail::NodePtr& n) {
  const detail::GraphLock lock{n.get()};
  return detail::kernel_source_of(n);
}

void set_fusion(bool on) { detail::set_fusion_enabled(on); }
bool fusion() { return detail::fusion_enabled(); }

std::string to_dot_of_node(const detail::NodePtr& root) {
  const detail::GraphLock lock{root.get()};  // every device the graph reaches
  using detail::Node;
  std::ostringstream s;
  s << "digraph fusecl {\n  node [shape=box, fontname=\"monospace\"];\n";
  std::unordered_map<const Node*, int> ids;
  std::vector<const Node*> stack{root.get()};
  ids[root.get()] = 0;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    const int id = ids[n];
    s << "  n" << id << " [label=\"" << op_name(n->op);
    if (n->op == Op::Cast) s << " -> " << dtype_name(n->dtype);
    if (n->op == Op::Transfer) s << " " << detail::describe(*n->device);
    if (n->op == Op::Scalar) s << " " << detail::scalar_to_string(n->dtype, n->bits());
    s << "\\n" << dtype_name(n->dtype) << " " << n->shape.str();
    if (n->op == Op::View) {
      s << "\\nstrides (";
      const detail::ViewData& v = n->view();
      for (std::size_t i = 0; i < v.strides.size(); ++i) s << (i ? ", " : "") << v.strides[i];
      s << ") offset " << v.offset;
    }
    s << "\"";
    if (detail::is_leaf(*n)) s << ", style=filled, fillcolor=\"#e8f0fe\"";
    if (detail::is_barrier(*n)) s << ", style=filled, fillcolor=\"#fde8e8\"";
    s << "];\n";
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      const Node* in = n->inputs[i].get();
      auto [it, fresh] = ids.try_emplace(in, int(ids.size()));
      if (fresh) stack.push_back(in);
      s << "  n" << it->second << " -> n" << id << " [label=\"" << i << "\"];\n";
    }
  }
  s << "}\n";
  return s.str();
}

}  // namespace fusecl
