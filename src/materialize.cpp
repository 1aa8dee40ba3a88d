#include "src/materialize.hpp"

#include "fusecl/error.hpp"
#include "runtime/env_settings.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace fusecl::detail {

namespace {

std::atomic<bool>& fusion_flag() {
  static std::atomic<bool> on{rt::switch_setting("FUSECL_FUSION", true)};
  return on;
}

// The node now holds its result; the graph below it is released.
void become_buffer(Node& n, std::shared_ptr<rt::DeviceBuffer> buf) {
  n.op = Op::Buffer;
  n.buffer = std::move(buf);
  release_inputs(n.inputs);  // a long chain below is freed without recursion
  n.strides.clear();
  n.axes.clear();
  n.offset = 0;
  n.weight = 1;
  n.depth = 0;
}

std::shared_ptr<rt::DeviceBuffer> allocate(const Node& n) {
  return rt::allocate(n.device->runtime(), std::size_t(n.shape.size()) * std::size_t(size_of(n.dtype)));
}

// Reductions run during the outermost evaluate() call now in progress on a
// device are kept (DeviceState::done_reductions), so that one reduction of
// one array, built twice in the same expression (a softmax written out:
// exp(x - max(x, 1, true)) / sum(exp(x - max(x, 1, true)), 1, true)), runs
// once; the list is dropped when the outermost evaluation returns.
class EvaluationScope {
 public:
  explicit EvaluationScope(DeviceState& dev) : dev_(dev) { ++dev_.evaluation_depth; }
  ~EvaluationScope() {
    if (--dev_.evaluation_depth == 0) dev_.done_reductions.clear();
  }
  EvaluationScope(const EvaluationScope&) = delete;
  EvaluationScope& operator=(const EvaluationScope&) = delete;

 private:
  DeviceState& dev_;
};

const DoneReduction* find_done(const Node& r) {
  for (const auto& d : r.device->done_reductions)
    if (d.input == r.inputs[0] && d.op == r.op && d.dtype == r.dtype && d.shape == r.shape && d.axes == r.axes &&
        d.divisor == r.divisor && d.post_sqrt == r.post_sqrt)
      return &d;
  return nullptr;
}

// Kernel arguments are limited (CL_DEVICE_MAX_PARAMETER_SIZE, 1 KiB on some
// devices) and a body with many strided loads or scalars needs many. Where a
// plan does not fit, parts of the body are evaluated first (each a smaller
// kernel whose result the rest reads with one load); evaluate_inputs_first,
// the elementwise inputs of the body root, is the fallback.
DeviceTuning tuning(const Node& n) { return tuning_of(*n.device); }

bool fits(const Node& n, const ScheduledKernel& k) {
  return codegen::param_bytes(k.plan) <= tuning(n).max_parameter_bytes;
}

void evaluate_inputs_first(const NodePtr& body) {
  std::vector<NodePtr> parts;
  for (const auto& in : body->inputs)
    if (is_elementwise(in->op)) parts.push_back(in);
  if (parts.empty())
    throw Error("internal: a kernel with only " + std::to_string(body->inputs.size()) +
                " loads exceeds the device's kernel-argument size");
  for (const auto& p : parts) evaluate({p});
}

// Where a plan does not fit, evaluates parts of its body first, chosen in one
// pass (body_cuts) to keep the arguments within the limit; true if it did.
bool evaluate_parts_to_fit(const NodePtr& body, const OutLayout* out) {
  const auto ndim = std::uint64_t(body->shape.ndim());
  // Fixed arguments, from above: an output, counts, scratch, groups, a mean's
  // divisor, dimensions, a strided output's offset and strides.
  const std::uint64_t fixed = 8 * (6 + ndim) + (out ? 8 * (ndim + 1) : 0);
  const std::uint64_t limit = tuning(*body).max_parameter_bytes;
  const auto cuts = body_cuts({body}, {kMaxBodyInstructions, limit > fixed ? limit - fixed : 0});
  for (const auto& c : cuts) evaluate({c});
  return !cuts.empty();
}

ScheduledKernel plan_reduce_fitting(const NodePtr& root) {
  for (;;) {
    auto k = plan_reduce(root, tuning(*root));
    if (fits(*root, k)) return k;
    if (evaluate_parts_to_fit(root->inputs[0], nullptr)) continue;
    evaluate({root->inputs[0]});
    return plan_reduce(root, tuning(*root));
  }
}

ScheduledKernel plan_elementwise_fitting(const NodePtr& root, const OutLayout* out = nullptr) {
  for (;;) {
    auto k = plan_elementwise({root}, tuning(*root), out);
    if (fits(*root, k)) return k;
    if (!evaluate_parts_to_fit(body_root(root), out)) evaluate_inputs_first(body_root(root));
  }
}

void evaluate_dependencies(const NodePtr& root) {
  auto deps = unevaluated_barriers(root);
  if (!deps.empty()) evaluate(deps);
}

// Evaluates first the parts of oversized bodies that body_cuts picks; returns
// the estimated instructions of `bodies` together afterwards.
std::uint64_t split_oversized(const std::vector<NodePtr>& bodies) {
  // A node's weight counts the nodes of its body from above (a shared node
  // once per use), so bodies light enough by weight need no walk: the common
  // case, on the path of every evaluation.
  std::uint64_t weight = 0;
  for (const auto& b : bodies) weight += is_elementwise(b->op) ? b->weight : 1;
  if (weight <= kMaxBodyInstructions) return weight;
  std::uint64_t total = 0;
  for (const auto& c : body_cuts(bodies, BodyLimits{}, &total)) evaluate({c});
  return total;
}

// A copy on `dev` of `source`, an evaluated node of another device, through
// host memory (two contexts share no memory objects).
std::shared_ptr<rt::DeviceBuffer> copy_to(DeviceState& dev, const Node& source) {
  const std::size_t bytes = std::size_t(source.shape.size()) * std::size_t(size_of(source.dtype));
  std::vector<unsigned char> host(bytes);
  if (bytes) rt::download(source.device->runtime(), *source.buffer, 0, bytes, host.data());
  return rt::upload(dev.runtime(), host.data(), bytes);
}

// Distinct nodes of `nodes` not evaluated yet, in order.
std::vector<NodePtr> pending(const std::vector<NodePtr>& nodes) {
  std::vector<NodePtr> todo;
  for (const auto& r : nodes)
    if (r->op != Op::Buffer && r->op != Op::Scalar && std::none_of(todo.begin(), todo.end(), [&](const NodePtr& t) { return t.get() == r.get(); }))
      todo.push_back(r);
  return todo;
}

// Runs the kernels computing `todo`, whose barriers are all evaluated.
// Elementwise roots of one shape share one kernel; each reduction has its own.
void run(DeviceState& dev, std::vector<NodePtr> todo) {
  while (!todo.empty()) {
    NodePtr first = todo.front();
    if (first->op == Op::Buffer) {  // evaluated as another root's dependency
      todo.erase(todo.begin());
      continue;
    }
    if (first->op == Op::Transfer) {
      const NodePtr source = first->inputs[0];
      // On its own device, whose lock GraphLock took with ours.
      evaluate({source});
      become_buffer(*first, copy_to(dev, *source));
      todo.erase(todo.begin());
      continue;
    }
    if (op_class(first->op) == OpClass::Reduce) {
      if (const DoneReduction* same = find_done(*first)) {
        become_buffer(*first, same->result);  // computed already in this evaluation
        todo.erase(todo.begin());
        continue;
      }
      split_oversized({first->inputs[0]});
      auto k = plan_reduce_fitting(first);
      auto out = allocate(*first);
      launch(dev, k, {out});
      dev.done_reductions.push_back(
          {first->inputs[0], first->op, first->dtype, first->shape, first->axes, first->divisor, first->post_sqrt, out});
      become_buffer(*first, out);
      todo.erase(todo.begin());
      continue;
    }
    if (first->op == Op::Concat) {
      // One kernel per input, each writing its slab of the output in place.
      auto out = allocate(*first);
      const auto strides = contiguous_strides(first->shape);
      std::int64_t start = 0;
      for (const auto& in : first->inputs) {
        OutLayout lay{start * strides[std::size_t(first->axis)], strides};
        if (in->shape.size() > 0) {
          split_oversized({in});
          launch(dev, plan_elementwise_fitting(in, &lay), {out});
        }
        start += in->shape.dims()[std::size_t(first->axis)];
      }
      become_buffer(*first, out);
      todo.erase(todo.begin());
      continue;
    }
    std::vector<NodePtr> group;
    for (auto it = todo.begin(); it != todo.end();) {
      const Node& n = **it;
      const bool own_kernels = op_class(n.op) == OpClass::Reduce || n.op == Op::Concat || n.op == Op::Transfer;
      if (n.op != Op::Buffer && !own_kernels && n.shape == first->shape) {
        group.push_back(*it);
        it = todo.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<NodePtr> bodies;
    for (const auto& g : group) bodies.push_back(body_root(g));
    if (split_oversized(bodies) > kMaxBodyInstructions && group.size() > 1) {
      for (const auto& g : group) evaluate({g});  // too large together: one kernel each
      continue;
    }
    auto k = plan_elementwise(group, tuning(*first));
    if (!fits(*first, k)) {
      if (group.size() > 1) {
        // One kernel each: the roots share nothing that must stay together.
        for (const auto& g : group) evaluate({g});
        continue;
      }
      k = plan_elementwise_fitting(group.front());
    }
    std::vector<std::shared_ptr<rt::DeviceBuffer>> outs;
    for (const auto& g : group) outs.push_back(allocate(*g));
    launch(dev, k, outs);
    for (std::size_t i = 0; i < group.size(); ++i) become_buffer(*group[i], outs[i]);
  }
}

}  // namespace

bool fusion_enabled() { return fusion_flag().load(std::memory_order_relaxed); }
void set_fusion_enabled(bool on) { fusion_flag().store(on); }

namespace {

// Evaluates roots that all live on `dev`.
void evaluate_on(DeviceState& dev, const std::vector<NodePtr>& roots) {
  const EvaluationScope scope(dev);
  // Each root needs the barriers below its body first, and they need theirs:
  // a frame runs its roots once the barriers below every one of them have
  // run, each root's barriers as one frame of their own. An explicit stack
  // instead of recursion, so a chain of many barriers needs no deep stack.
  struct Frame {
    std::vector<NodePtr> todo;
    std::size_t next = 0;  // the next root whose barriers are looked for
  };
  std::vector<Frame> frames;
  frames.push_back({pending(roots)});
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.next < f.todo.size()) {
      const NodePtr r = f.todo[f.next++];
      if (r->op == Op::Buffer) continue;  // evaluated below an earlier root
      auto deps = pending(unevaluated_barriers(r));
      if (!deps.empty()) frames.push_back({std::move(deps)});  // f is not used after this
      continue;
    }
    std::vector<NodePtr> todo = std::move(f.todo);
    frames.pop_back();
    run(dev, std::move(todo));
  }
}

}  // namespace

void evaluate(const std::vector<NodePtr>& roots) {
  // Roots on one device are the common case: no grouping needed.
  DeviceState* first = nullptr;
  bool one_device = true;
  for (const auto& r : roots) {
    if (!r->device) continue;  // scalars are never evaluated
    if (first && r->device.get() != first) one_device = false;
    if (!first) first = r->device.get();
  }
  if (!first) return;
  if (one_device) return evaluate_on(*first, roots);
  std::vector<std::pair<DeviceState*, std::vector<NodePtr>>> by_device;
  for (const auto& r : roots) {
    if (!r->device) continue;
    auto it = std::find_if(by_device.begin(), by_device.end(), [&](const auto& p) { return p.first == r->device.get(); });
    if (it == by_device.end()) it = by_device.insert(by_device.end(), {r->device.get(), {}});
    it->second.push_back(r);
  }
  for (const auto& [dev, nodes] : by_device) evaluate_on(*dev, nodes);
}

std::string kernel_source_of(const NodePtr& x) {
  if (x->op == Op::Buffer || x->op == Op::Scalar) return "";
  if (x->op == Op::Transfer) {
    evaluate({x->inputs[0]});
    return "// a copy from device " + describe(*x->inputs[0]->device) + " to " + describe(*x->device) +
           " through host memory: no kernel\n";
  }
  evaluate_dependencies(x);
  if (x->op == Op::Concat) {
    // As evaluate() runs it: one kernel per non-empty input, each writing its
    // slab of the output in place.
    const auto strides = contiguous_strides(x->shape);
    std::size_t kernels = 0;
    for (const auto& in : x->inputs) kernels += in->shape.size() > 0;
    std::string out = "// concatenate along axis " + std::to_string(x->axis) + " into shape " + x->shape.str() + ": " +
                      std::to_string(kernels) + " kernel(s), one per non-empty input\n";
    std::int64_t start = 0;
    for (std::size_t i = 0; i < x->inputs.size(); ++i) {
      const NodePtr& in = x->inputs[i];
      const std::int64_t len = in->shape.dims()[std::size_t(x->axis)];
      if (in->shape.size() > 0) {
        OutLayout lay{start * strides[std::size_t(x->axis)], strides};
        out += "\n// input " + std::to_string(i) + ", shape " + in->shape.str() + " -> [" + std::to_string(start) + ", " +
               std::to_string(start + len) + ") along axis " + std::to_string(x->axis) + "\n";
        split_oversized({in});
        out += kernel_source(x->device->runtime(), plan_elementwise_fitting(in, &lay).plan).source;
      }
      start += len;
    }
    return out;
  }
  const bool reduce = op_class(x->op) == OpClass::Reduce;
  split_oversized({reduce ? x->inputs[0] : body_root(x)});
  // The kernel that evaluation would run: parts that do not fit are evaluated.
  auto k = reduce ? plan_reduce_fitting(x) : plan_elementwise_fitting(x);
  return kernel_source(x->device->runtime(), k.plan).source;
}

}  // namespace fusecl::detail
