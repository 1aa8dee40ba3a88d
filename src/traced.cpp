// fusecl::fuse (include/fusecl/fuse.hpp): plans kept per argument signature
// and replayed. A plan is the schedule of the first call's graph with each
// kernel input that read an argument's buffer marked by the argument's
// index, and each scalar slot that holds a scalar argument marked the same
// way, so a later call only fills in its own buffers and scalars and
// launches: the graph is not built, scheduled or hashed again. A binding's
// scalars that are no nodes (Python numbers) become slots the body makes
// while it is traced (trace_scalar), numbered after the arguments.
#include "fusecl/fuse.hpp"

#include "fusecl/error.hpp"
#include "src/device_state.hpp"
#include "src/materialize.hpp"
#include "src/replay.hpp"
#include "src/schedule.hpp"
#include "src/tuning.hpp"
#include "src/views.hpp"

#include <algorithm>
#include <iostream>
#include <mutex>
#include <unordered_set>

namespace fusecl::detail {

namespace {

// What a plan depends on in its arguments: a later call with the same
// signature gets the same schedule from the same graph.
struct ArgKey {
  DType dtype;
  Shape shape;
  int alias;  // the first argument with the same buffer (itself if none); -1: a scalar
  friend bool operator==(const ArgKey&, const ArgKey&) = default;
};

// A replay and which of its outputs are the function's results, in order.
struct FusePlan {
  Replay replay;
  struct Root {
    int output;
    DType dtype;
    Shape shape;
  };
  std::vector<Root> roots;
  std::size_t external = 0;              // slots trace_scalar made, filled by TraceHooks::fill
  std::shared_ptr<const void> payload;   // the binding's, handed to fill
};

struct Entry {
  std::vector<ArgKey> key;
  std::vector<std::uint64_t> extra;  // TraceHooks::key
  std::shared_ptr<DeviceState> device;  // held: no other device can take its address
  std::shared_ptr<FusePlan> replay;  // null: this signature is not replayed (reason says why)
  std::string reason;
  std::uint64_t used = 0;
};

// Why the graph below `roots` cannot be replayed with other arguments, or "".
std::string graph_obstacle(const std::vector<NodePtr>& roots, const std::vector<NodePtr>& args, const DeviceState* dev) {
  std::unordered_set<const Node*> seen, arg_nodes;
  std::unordered_set<const rt::DeviceBuffer*> arg_buffers;
  for (const auto& a : args) {
    if (a->op != Op::Buffer) continue;  // a scalar's view
    arg_nodes.insert(a.get());
    arg_buffers.insert(a->buffer().get());
  }
  std::vector<const Node*> stack;
  for (const auto& r : roots) {
    if (r->device.get() != dev) return "a result lives on another device than the arguments";
    if (r->op == Op::Buffer) return "a result is an argument or an array evaluated before the call, not computed by it";
    stack.push_back(r.get());
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (is_random(*n)) return "it draws random numbers, which a replay would repeat";
    if (n->host || n->op == Op::HostView) return "it reads a host view, which is streamed in chunks";
    if (n->op == Op::Transfer) return "it copies an array from another device";
    if (n->op == Op::Buffer && !arg_nodes.count(n) && n->buffer() && arg_buffers.count(n->buffer().get()))
      return "it reads an argument's memory through another array, which a replay could not tell apart";
    for (const auto& in : n->inputs) stack.push_back(in.get());
  }
  return "";
}

// The arguments' buffers by position (null for a scalar).
SmallVector<std::shared_ptr<rt::DeviceBuffer>, 4> buffers_of(const std::vector<NodePtr>& args) {
  SmallVector<std::shared_ptr<rt::DeviceBuffer>, 4> buffers;
  for (const auto& a : args) buffers.push_back(a->op == Op::Buffer ? a->buffer() : nullptr);
  return buffers;
}

// The replay of `s` (made for `roots` from `args`, scalars as 0-d views, and
// the body's `slots`), or why there is none. Buffers other than the
// arguments' (captured arrays) and scalars other than theirs and the slots
// stay in the plan.
std::shared_ptr<FusePlan> make_fuse_plan(const Schedule& s, const std::vector<NodePtr>& roots,
                                         const std::vector<NodePtr>& args, const std::vector<NodePtr>& slots,
                                         std::string& reason) {
  const auto arg_buffers = buffers_of(args);
  // A replay's scalars are the arguments' (by position), then the slots';
  // others stay as traced.
  auto scalar_index = [&](const Node& n) {
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i]->op == Op::View && args[i]->inputs[0].get() == &n) return int(i);
    for (std::size_t k = 0; k < slots.size(); ++k)
      if (slots[k].get() == &n) return int(args.size() + k);
    return -1;
  };
  std::shared_ptr<Replay> r = make_replay(s, {arg_buffers.data(), arg_buffers.size()}, scalar_index, true, reason);
  if (!r) return nullptr;
  auto plan = std::make_shared<FusePlan>(FusePlan{std::move(*r), {}, slots.size(), nullptr});
  for (const auto& root : roots) {
    const int k = s.output_of(*root);
    if (k < 0) {
      reason = "a result is not computed by a kernel of its own";
      return nullptr;
    }
    plan->replay.outputs[std::size_t(k)].kept = true;
    plan->roots.push_back({k, root->dtype, root->shape});
  }
  return plan;
}

// Runs `plan` with `args` (as the caller gave them) and the slots' values
// `external`; the caller holds dev's lock.
std::vector<NodePtr> run_fuse_plan(DeviceState& dev, FusePlan& plan, const std::vector<NodePtr>& args,
                                   const std::vector<std::uint64_t>& external) {
  const auto arg_buffers = buffers_of(args);
  SmallVector<std::uint64_t, 4> arg_scalars;
  for (const auto& a : args) arg_scalars.push_back(a->op == Op::Scalar ? a->bits() : 0);
  for (const std::uint64_t b : external) arg_scalars.push_back(b);
  const auto bufs = run_replay(dev, plan.replay, {arg_buffers.data(), arg_buffers.size()},
                               {arg_scalars.data(), arg_scalars.size()}, [](std::size_t, const auto&) {});
  std::vector<NodePtr> results;
  results.reserve(plan.roots.size());
  for (const auto& r : plan.roots) results.push_back(make_buffer(bufs[std::size_t(r.output)], r.dtype, r.shape, dev.shared_from_this()));
  return results;
}

}  // namespace

struct TraceCache {
  explicit TraceCache(std::size_t max) : max_signatures(std::max<std::size_t>(1, max)) {}
  const std::size_t max_signatures;
  mutable std::mutex mutex;  // guards what follows
  std::vector<Entry> entries;
  std::uint64_t clock = 0;
  FuseInfo info;

  void note_unreplayed(const std::string& why) {  // takes the mutex
    const std::lock_guard g(mutex);
    ++info.unreplayed;
    info.last_reason = why;
  }
};

std::shared_ptr<TraceCache> make_trace_cache(std::size_t max_signatures) {
  return std::make_shared<TraceCache>(max_signatures);
}

FuseInfo trace_info(const TraceCache& cache) {
  const std::lock_guard g(cache.mutex);
  FuseInfo i = cache.info;
  i.signatures = cache.entries.size();
  return i;
}

namespace {

// Why arguments cannot select a plan, or "" with their key.
std::string argument_obstacle(const std::vector<NodePtr>& args, std::vector<ArgKey>& key, DeviceState*& dev) {
  if (!fusion_enabled()) return "fusion is off (FUSECL_FUSION=0 or set_fusion(false)): every operation runs on its own";
  dev = nullptr;
  key.clear();
  key.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Node& n = *args[i];
    if (n.op == Op::Scalar) {
      key.push_back({n.dtype, Shape{}, -1});  // its value is the replay's argument
      continue;
    }
    if (n.op != Op::Buffer)
      return "argument " + std::to_string(i) + " is not evaluated (a lazy expression, a view or a host view): eval() it first";
    if (n.shape.size() == 0 || !n.buffer()) return "argument " + std::to_string(i) + " is empty";
    if (dev && n.device.get() != dev) return "the arguments live on two devices";
    dev = n.device.get();
    int alias = int(i);
    for (std::size_t j = 0; j < i; ++j)
      if (args[j]->op == Op::Buffer && args[j]->buffer() == n.buffer()) {
        alias = int(j);
        break;
      }
    key.push_back({n.dtype, n.shape, alias});
  }
  if (!dev) return "it has no array arguments";
  return "";
}

// The nodes the function is called with: arrays as given, or (fresh) new
// buffer nodes over their buffers; scalars as 0-d views of themselves or
// (fresh) of new scalars, on the arrays' device. A view keeps a scalar a
// node of the graph: an operation casts it in a kernel, never on the host,
// so every use reads its slot. (A scalar alone belongs to no device, and an
// operation on it alone would land on this thread's default one.)
std::vector<NodePtr> operands(const std::vector<NodePtr>& args, bool fresh) {
  DevicePtr dev;
  for (const auto& a : args)
    if (a->device) {
      dev = a->device;
      break;
    }
  if (!dev) dev = current_state();
  std::vector<NodePtr> out;
  out.reserve(args.size());
  for (const auto& a : args) {
    if (a->op == Op::Scalar) out.push_back(broadcast_scalar(fresh ? make_scalar(a->dtype, a->bits()) : a, Shape{}, dev));
    else if (fresh) out.push_back(make_buffer(a->buffer(), a->dtype, a->shape, a->device));
    else out.push_back(a);
  }
  return out;
}

// The trace a body runs for on this thread (TraceHooks::tracing), if any: the
// arguments' device and the slots trace_scalar made. A fused function called
// inside another's body has its own, and the outer one is back when it returns.
struct ActiveTrace {
  DevicePtr device;
  std::vector<NodePtr> slots;
};
thread_local ActiveTrace* active_trace = nullptr;

class TraceScope {
 public:
  TraceScope(ActiveTrace* t, TraceHooks* hooks) : outer_(active_trace), hooks_(hooks) {
    active_trace = t;
    if (hooks_) hooks_->tracing = t != nullptr;
  }
  ~TraceScope() {
    active_trace = outer_;
    if (hooks_) hooks_->tracing = false;
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  ActiveTrace* outer_;
  TraceHooks* hooks_;
};

void log_line(const std::string& line) {
  if (log_schedules()) std::cerr << "fuse: " << line << "\n" << std::flush;
}

// The function run and its results evaluated, as eval() does (`why` counted already).
std::vector<NodePtr> unreplayed(const std::vector<NodePtr>& args,
                                const std::function<std::vector<NodePtr>(const std::vector<NodePtr>&)>& body,
                                TraceHooks* hooks, const std::string& why) {
  log_line("not replayed, because " + why);
  std::vector<NodePtr> roots;
  {
    const TraceScope untraced(nullptr, hooks);
    roots = body(operands(args, false));
  }
  evaluate_nodes(roots);
  return roots;
}

}  // namespace

NodePtr trace_scalar(DType d, std::uint64_t bits) {
  if (!active_trace) return nullptr;
  NodePtr n = make_scalar(d, bits);
  active_trace->slots.push_back(n);
  return broadcast_scalar(n, Shape{}, active_trace->device);
}

std::vector<NodePtr> call_traced(TraceCache& cache, const std::vector<NodePtr>& args,
                                 const std::function<std::vector<NodePtr>(const std::vector<NodePtr>&)>& body,
                                 TraceHooks* hooks) {
  // A call computes arrays: a fused function calling this one while it is
  // traced must not take this call's results for constants.
  count_evaluation_on_this_thread();
  std::vector<ArgKey> key;
  DeviceState* dev = nullptr;
  if (std::string why = argument_obstacle(args, key, dev); !why.empty()) {
    cache.note_unreplayed(why);
    return unreplayed(args, body, hooks, why);
  }
  static const std::vector<std::uint64_t> no_extra;
  const std::vector<std::uint64_t>& extra = hooks ? hooks->key : no_extra;
  auto same = [&](const Entry& e) { return e.device.get() == dev && e.key == key && e.extra == extra; };

  std::shared_ptr<FusePlan> replay;
  std::string known;  // why a signature met before is not replayed
  {
    const std::lock_guard g(cache.mutex);
    for (auto& e : cache.entries)
      if (same(e)) {
        e.used = ++cache.clock;
        if (e.replay) replay = e.replay;
        else known = e.reason;
        break;
      }
  }
  if (!known.empty()) {
    cache.note_unreplayed(known);
    return unreplayed(args, body, hooks, known);
  }
  if (replay) {
    // The binding's slot values first, outside every lock (it may run the
    // caller's code, and may throw before anything is launched).
    std::vector<std::uint64_t> external;
    if (replay->external > 0) {
      if (!hooks || !hooks->fill) throw Error("internal: a fused plan with scalar slots and nothing to fill them");
      if (const std::string why = hooks->fill(replay->payload.get(), external); !why.empty()) {
        cache.note_unreplayed(why);
        return unreplayed(args, body, hooks, why);
      }
      if (external.size() != replay->external) throw Error("internal: a fused plan's scalar slots were not all filled");
    }
    {
      const std::lock_guard g(cache.mutex);
      ++cache.info.replays;
    }
    const GraphLock lock(*dev);
    if (log_schedules()) log_line("replay of " + std::to_string(replay->replay.steps.size()) + " kernel(s) on " + describe(*dev));
    return run_fuse_plan(*dev, *replay, args, external);
  }

  // First call with this signature (or one not replayed): run the function,
  // on new nodes over the arguments' buffers and new scalars, so that the
  // graph tells an argument from what the function captured (perhaps the
  // same array or value).
  const std::vector<NodePtr> fresh = operands(args, true);
  const std::uint64_t before = evaluations_on_this_thread();
  ActiveTrace trace{dev->shared_from_this(), {}};
  std::vector<NodePtr> roots;
  {
    const TraceScope traced(&trace, hooks);
    roots = body(fresh);
  }
  std::string reason;
  if (evaluations_on_this_thread() != before)
    reason = "the function evaluated or uploaded arrays while it ran (to_host, eval, from_host, a fused function, or a graph "
             "past FUSECL_MAX_FUSED_OPS), which a replay would not do again";
  if (reason.empty() && hooks) reason = hooks->refuse;
  std::shared_ptr<FusePlan> made;
  {
    const GraphLock lock(roots);
    if (reason.empty()) reason = graph_obstacle(roots, fresh, dev);
    if (reason.empty()) {
      Schedule s = tuned_schedule(*dev, roots);
      made = make_fuse_plan(s, roots, fresh, trace.slots, reason);
      if (made && hooks) made->payload = hooks->payload;
      if (log_schedules()) std::cerr << describe(s, describe(*dev)) << std::flush;
      run_schedule(*dev, s);
    } else {
      evaluate(roots);
    }
  }
  log_line(made ? "planned for replay" : "not replayed, because " + reason);
  const std::lock_guard g(cache.mutex);
  auto it = std::find_if(cache.entries.begin(), cache.entries.end(), same);
  if (it == cache.entries.end()) {
    if (cache.entries.size() >= cache.max_signatures)
      cache.entries.erase(std::min_element(cache.entries.begin(), cache.entries.end(),
                                           [](const Entry& a, const Entry& b) { return a.used < b.used; }));
    it = cache.entries.insert(cache.entries.end(), Entry{key, extra, dev->shared_from_this(), nullptr, "", 0});
  }
  it->replay = made;
  it->reason = reason;
  it->used = ++cache.clock;
  if (made) {
    ++cache.info.traces;
  } else {
    ++cache.info.unreplayed;
    cache.info.last_reason = reason;
  }
  return roots;
}

}  // namespace fusecl::detail
