// Plans kept per device (plan_cache.hpp): the graph key, and keeping and
// running a schedule made for an earlier graph of the same structure.
#include "src/plan_cache.hpp"

#include "runtime/env_settings.hpp"
#include "runtime/stats_counters.hpp"
#include "src/device_state.hpp"
#include "src/replay.hpp"
#include "src/schedule.hpp"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <iostream>
#include <unordered_map>

namespace fusecl::detail {

namespace {

// More distinct buffers than this and the linear search for a buffer's
// number costs more than it saves; more nodes than a mark_value numbers,
// and the graph is not keyed.
constexpr std::size_t kMaxBuffers = 64;
constexpr std::size_t kMaxNodes = 32000;
// Plans kept per device, the least recently used dropped first: enough for
// a program's few hot expressions, small enough that a miss (a linear scan
// of hashes) costs nothing to speak of.
constexpr std::size_t kMaxPlans = 32;

std::uint64_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }

// Appends n's words (its inputs are numbered already); false where the graph is not keyed.
bool append_node(const Node& n, GraphKey& key) {
  if (n.host || n.crosses || n.op == Op::HostView || n.op == Op::Transfer || is_random(n)) return false;
  auto& w = key.words;
  // Each field in bits of its own: a concatenation of 256 or more inputs
  // must not spill its count into the weight.
  w.push_back(std::uint64_t(n.op) | std::uint64_t(n.dtype) << 8 | std::uint64_t(n.shape.ndim()) << 16);
  w.push_back(std::uint64_t(n.inputs.size()) | std::uint64_t(n.weight) << 32);
  for (const std::int64_t d : n.shape) {
    if (d == 0) return false;  // empty arrays: nothing worth a plan, and null buffers
    w.push_back(std::uint64_t(d));
  }
  for (const auto& in : n.inputs) w.push_back(std::uint64_t(in->mark_value));
  switch (n.op) {
    case Op::Buffer: {
      const auto& b = n.buffer();
      if (!b) return false;
      const auto number = std::size_t(std::find(key.buffers.begin(), key.buffers.end(), b) - key.buffers.begin());
      if (number == key.buffers.size()) {
        if (number == kMaxBuffers) return false;
        key.buffers.push_back(b);
      }
      w.push_back(number);
      return true;
    }
    case Op::Scalar: return true;  // its value is a replay's input: run_kept_plan passes this graph's
    case Op::Generate: {
      const GenParams& g = n.gen();
      w.insert(w.end(), {std::uint64_t(g.kind), bits_of(g.start), bits_of(g.step), bits_of(g.stop), std::uint64_t(g.k)});
      return true;
    }
    case Op::View: {
      const ViewData& v = n.view();
      w.push_back(v.strides.size());
      for (const std::int64_t s : v.strides) w.push_back(std::uint64_t(s));
      w.push_back(std::uint64_t(v.offset));
      return true;
    }
    case Op::Concat: w.push_back(std::uint64_t(n.concat_axis())); return true;
    default:
      if (op_class(n.op) == OpClass::Reduce) {
        const ReduceData& r = n.reduce();
        w.push_back(r.axes.size());
        for (const int a : r.axes) w.push_back(std::uint64_t(a));
        w.push_back(bits_of(r.divisor));
        w.push_back(r.post_sqrt);
      }
      return true;
  }
}

}  // namespace

struct KeptPlan {
  std::vector<std::uint64_t> words;
  std::uint64_t hash = 0;
  DeviceTuning tuning;
  std::uint64_t used = 0;
  Replay replay;  // reading the graph's buffers by number
  std::vector<std::vector<int>> nodes;  // by output: the nodes (by number in the walk) that become its buffer
  std::vector<int> scalars;  // the replay's scalars: the graph's scalar nodes, by number in the walk
};

struct PlanCache {
  std::vector<std::shared_ptr<KeptPlan>> plans;
  std::uint64_t clock = 0;
};

namespace {
std::atomic<bool>& plan_cache_flag() {
  static std::atomic<bool> on{rt::switch_setting("FUSECL_PLAN_CACHE", true)};
  return on;
}
}  // namespace

bool plan_cache_enabled() { return plan_cache_flag().load(std::memory_order_relaxed); }
bool set_plan_cache(bool on) { return plan_cache_flag().exchange(on); }

namespace {
// This thread's spare keys, made on first use in the thread and freed when it
// ends. The flag is trivially destructible, so a ScratchKey that ends after
// them (an evaluation in another thread_local's destructor) still reads it
// and frees its key instead of keeping it.
thread_local bool spare_keys_gone = false;
struct SpareKeys {
  std::vector<std::unique_ptr<GraphKey>> keys;
  ~SpareKeys() { spare_keys_gone = true; }
};
thread_local SpareKeys spare_keys;
}  // namespace

ScratchKey::ScratchKey() {
  if (!spare_keys_gone && !spare_keys.keys.empty()) {
    key_ = std::move(spare_keys.keys.back());
    spare_keys.keys.pop_back();
  } else {
    key_ = std::make_unique<GraphKey>();
  }
}

ScratchKey::~ScratchKey() {
  // The buffers go now, not at the next evaluation: a key must not keep device memory alive.
  key_->buffers.clear();
  key_->nodes.clear();
  if (!spare_keys_gone && spare_keys.keys.size() < 4) spare_keys.keys.push_back(std::move(key_));
}

bool make_graph_key(const std::vector<NodePtr>& roots, GraphKey& key) {
  key.words.clear();
  key.nodes.clear();
  key.buffers.clear();
  key.words.reserve(1024);  // about 8 words a node: graphs of a hundred nodes grow no vector
  key.nodes.reserve(128);
  const std::uint32_t epoch = next_walk_epoch();
  struct Frame {
    const NodePtr* node;
    std::size_t next = 0;
  };
  SmallVector<Frame, 32> stack;
  for (const auto& root : roots) {
    if (root->mark != epoch) {
      // Depth first; a node is numbered once its inputs are (no cycles: a
      // node on the stack is never met again below itself).
      root->mark = epoch;
      stack.push_back({&root});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Node& n = **f.node;
        if (f.next < n.inputs.size()) {
          const NodePtr& in = n.inputs[f.next++];
          if (in->mark != epoch) {
            in->mark = epoch;
            stack.push_back({&in});
          }
          continue;
        }
        if (key.nodes.size() == kMaxNodes || !append_node(n, key)) return false;
        (*f.node)->mark_value = std::int16_t(key.nodes.size());
        key.nodes.push_back(f.node);
        stack.pop_back();
      }
    }
    key.words.push_back(~std::uint64_t(root->mark_value));  // roots, in order, told apart from node words
  }
  key.hash = XXH3_64bits(key.words.data(), key.words.size() * sizeof(std::uint64_t));
  return true;
}

bool run_kept_plan(DeviceState& dev, const GraphKey& key) {
  if (!dev.plans || dev.tune.measuring) return false;
  PlanCache& cache = *dev.plans;
  const auto it = std::find_if(cache.plans.begin(), cache.plans.end(),
                               [&](const auto& p) { return p->hash == key.hash && p->words == key.words; });
  if (it == cache.plans.end() || !((*it)->tuning == tuning_of(dev))) return false;
  const std::shared_ptr<KeptPlan> plan = *it;  // held: a nested evaluation could drop it from the cache
  plan->used = ++cache.clock;

  // This graph's scalar values: the key holds their dtypes, not their values.
  SmallVector<std::uint64_t, 64> scalars;  // in place for graphs of many constants (Black-Scholes: 29)
  for (const int i : plan->scalars) scalars.push_back((*key.nodes[std::size_t(i)])->bits());
  // The nodes that become buffers, held: turning one into a buffer may
  // release the last other reference to another.
  SmallVector<SmallVector<NodePtr, 1>, 4> nodes(plan->nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (const int i : plan->nodes[k]) nodes[k].push_back(*key.nodes[std::size_t(i)]);
  run_replay(dev, plan->replay, key.buffers, {scalars.data(), scalars.size()}, [&](std::size_t k, const std::shared_ptr<rt::DeviceBuffer>& buf) {
    for (const auto& node : nodes[k]) become_buffer(*node, buf);
    nodes[k].clear();
  });
  rt::counters().plans_reused++;
  if (log_schedules())
    std::cerr << "schedule on " << describe(dev) << ": the plan of an earlier evaluation of this graph's structure, "
              << plan->replay.steps.size() << " kernel(s), reused (FUSECL_PLAN_CACHE)\n"
              << std::flush;
  return true;
}

void keep_plan(DeviceState& dev, GraphKey&& key, const Schedule& s) {
  if (dev.tune.measuring || s.steps.empty()) return;
  std::unordered_map<const Node*, int> number;
  number.reserve(key.nodes.size());
  for (std::size_t i = 0; i < key.nodes.size(); ++i) number.emplace(key.nodes[i]->get(), int(i));
  auto plan = std::make_shared<KeptPlan>();
  // The replay's scalars are the graph's scalar nodes its kernels read, numbered as met.
  auto scalar_index = [&](const Node& n) {
    const auto it = number.find(&n);
    if (it == number.end()) return -1;  // not this graph's: make_replay refuses it
    const auto at = std::find(plan->scalars.begin(), plan->scalars.end(), it->second);
    if (at != plan->scalars.end()) return int(at - plan->scalars.begin());
    plan->scalars.push_back(it->second);
    return int(plan->scalars.size() - 1);
  };
  std::string reason;
  std::shared_ptr<Replay> r = make_replay(s, key.buffers, scalar_index, false, reason);
  if (!r) return;
  plan->replay = std::move(*r);
  for (const auto& o : s.outputs) {
    std::vector<int> numbers;
    for (const auto& node : o.nodes) {
      const auto it = number.find(node.get());
      if (it == number.end()) return;  // a node the pass made: not this graph's, so not keyed
      numbers.push_back(it->second);
    }
    plan->nodes.push_back(std::move(numbers));
  }
  plan->tuning = tuning_of(dev);
  plan->hash = key.hash;
  plan->words = std::move(key.words);
  if (!dev.plans) dev.plans = std::make_shared<PlanCache>();
  PlanCache& cache = *dev.plans;
  plan->used = ++cache.clock;
  auto same = std::find_if(cache.plans.begin(), cache.plans.end(),
                           [&](const auto& p) { return p->hash == plan->hash && p->words == plan->words; });
  if (same != cache.plans.end()) {
    *same = std::move(plan);  // made again: the tuning changed
    return;
  }
  if (cache.plans.size() >= kMaxPlans)
    cache.plans.erase(std::min_element(cache.plans.begin(), cache.plans.end(),
                                       [](const auto& a, const auto& b) { return a->used < b->used; }));
  cache.plans.push_back(std::move(plan));
}

}  // namespace fusecl::detail
