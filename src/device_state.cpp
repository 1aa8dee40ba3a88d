#include "src/device_state.hpp"

#include "fusecl/error.hpp"
#include "src/launch.hpp"
#include "src/node.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <type_traits>
#include <unordered_set>

namespace fusecl::detail {

DeviceState::DeviceState() : serial(0) {}

DeviceState::DeviceState(std::shared_ptr<rt::Runtime> rt, int serial_number) : serial(serial_number), rt_(std::move(rt)) {}

rt::Runtime& DeviceState::runtime() {
  // call_once also orders the write of rt_ before every other thread's read
  // (its fast path is one atomic load).
  std::call_once(opened_, [this] {
    if (!rt_) rt_ = rt::default_runtime();
  });
  return *rt_;
}

const DevicePtr& default_state() {
  // Never destroyed, like the default runtime.
  static const auto* const state = new DevicePtr(std::make_shared<DeviceState>());
  return *state;
}

namespace {
// The innermost DeviceScope's device on this thread (DeviceScope keeps it alive).
thread_local const Device* scoped = nullptr;
}  // namespace

DevicePtr current_state() { return scoped ? scoped->state() : default_state(); }

std::string describe(DeviceState& dev) {
  const DeviceInfo& i = rt::info(dev.runtime());
  std::string s = i.id() + " " + i.platform_name + " / " + i.name;
  if (dev.serial) s += " (open_device #" + std::to_string(dev.serial) + ")";
  return s;
}

namespace {
// The device the inputs share (null when none has one), or throws naming both
// devices. A pointer to an input's handle: checking copies no handle.
const DevicePtr* shared_device(const Node* const* inputs, std::size_t count, std::string_view what) {
  const DevicePtr* found = nullptr;
  for (std::size_t i = 0; i < count; ++i) {
    const DevicePtr& d = inputs[i]->device;
    if (!d) continue;
    if (!found) {
      found = &d;
    } else if (d != *found) {
      throw Error("fusecl::" + std::string(what) + ": the operands live on different devices, " + describe(**found) +
                  " and " + describe(*d) +
                  "; fusecl never copies between devices by itself: move one with .to(device)");
    }
  }
  return found;
}

DevicePtr common_device_of(const Node* const* inputs, std::size_t count, std::string_view what) {
  const DevicePtr* found = shared_device(inputs, count, what);
  return found ? *found : current_state();
}
}  // namespace

DevicePtr common_device(std::initializer_list<const Node*> inputs, std::string_view what) {
  return common_device_of(inputs.begin(), inputs.size(), what);
}

DevicePtr common_device(std::span<const NodePtr> inputs, std::string_view what) {
  std::vector<const Node*> raw;
  raw.reserve(inputs.size());
  for (const auto& n : inputs) raw.push_back(n.get());
  return common_device_of(raw.data(), raw.size(), what);
}

// ---- locks --------------------------------------------------------------------------

namespace {

// The devices whose locks this thread holds, in the order taken (GraphLocks
// nest, and release in reverse). A nested GraphLock never takes a lock its
// thread holds already: nothing is locked twice, so every lock is taken in
// the one global order or not at all. Usually empty or one device, and
// searched on the path of every operation.
//
// Trivially constructible, so that a thread_local of it needs no
// initialization check at each use; the first few entries sit in place, the
// rest (a graph over many devices) in a vector made only then.
class HeldLocks {
 public:
  bool empty() const { return count_ == 0; }
  bool contains(const DeviceState* d) const {
    for (std::size_t i = 0; i < std::min(count_, few_.size()); ++i)
      if (few_[i] == d) return true;
    return more_ && std::find(more_->begin(), more_->end(), d) != more_->end();
  }
  void push(DeviceState* d) {
    if (count_ < few_.size()) few_[count_] = d;
    else more().push_back(d);
    ++count_;
  }
  void pop() {
    --count_;
    if (count_ >= few_.size()) more_->pop_back();
  }

 private:
  std::vector<DeviceState*>& more() {
    // Made once per thread that needs it, and freed with the thread.
    static thread_local std::vector<DeviceState*> storage;
    more_ = &storage;
    return storage;
  }
  std::array<DeviceState*, 8> few_;
  std::size_t count_;
  std::vector<DeviceState*>* more_;
};
static_assert(std::is_trivially_default_constructible_v<HeldLocks> && std::is_trivially_destructible_v<HeldLocks>);

thread_local HeldLocks held;  // zero-initialized, as every thread_local without an initializer

bool holds(const DeviceState* d) { return held.contains(d); }

// Every device the unevaluated graphs of `roots` reach through transfers.
// Each device's part is walked under that device's lock alone, never two at
// once, so the walk cannot deadlock; other threads may evaluate parts in the
// meantime, which only removes devices, so the set found is enough.
std::vector<DeviceState*> reachable_devices(const Node* const* roots, std::size_t count) {
  std::vector<DeviceState*> found;
  struct Part {
    DeviceState* dev;
    std::vector<const Node*> nodes;
    std::vector<NodePtr> keep;  // transfer sources found under another device's lock
  };
  std::vector<Part> todo;
  auto part_of = [&](DeviceState* d) -> Part& {
    for (auto& p : todo)
      if (p.dev == d) return p;
    todo.push_back({d, {}, {}});
    return todo.back();
  };
  for (std::size_t i = 0; i < count; ++i)
    if (roots[i]->device) part_of(roots[i]->device.get()).nodes.push_back(roots[i]);
  std::unordered_set<const Node*> seen;
  while (!todo.empty()) {
    Part part = std::move(todo.back());
    todo.pop_back();
    if (std::find(found.begin(), found.end(), part.dev) == found.end()) found.push_back(part.dev);
    const std::lock_guard<std::mutex> lock(part.dev->mutex);
    std::vector<const Node*> stack = std::move(part.nodes);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!n->crosses || !seen.insert(n).second) continue;
      for (const auto& in : n->inputs) {
        if (n->op == Op::Transfer) {
          Part& p = part_of(in->device.get());
          p.nodes.push_back(in.get());
          p.keep.push_back(in);
        } else {
          stack.push_back(in.get());
        }
      }
    }
  }
  return found;
}

}  // namespace

GraphLock::GraphLock(std::initializer_list<const Node*> nodes) { lock_for(nodes.begin(), nodes.size()); }

GraphLock::GraphLock(const std::vector<NodePtr>& nodes) {
  if (nodes.size() <= 3) {  // eval(a), eval(a, b): no allocation
    const Node* raw[3] = {};
    for (std::size_t i = 0; i < nodes.size(); ++i) raw[i] = nodes[i].get();
    lock_for(raw, nodes.size());
    return;
  }
  std::vector<const Node*> raw;
  raw.reserve(nodes.size());
  for (const auto& n : nodes) raw.push_back(n.get());
  lock_for(raw.data(), raw.size());
}

GraphLock::GraphLock(DeviceState& dev) {
  if (holds(&dev)) return;
  dev.mutex.lock();
  one_ = &dev;
  held.push(&dev);
}

void GraphLock::lock_for(const Node* const* roots, std::size_t count) {
  bool crosses = false;
  DeviceState* single = nullptr;
  bool several = false;
  for (std::size_t i = 0; i < count; ++i) {
    crosses = crosses || roots[i]->crosses;
    DeviceState* d = roots[i]->device.get();
    if (!d) continue;
    if (single && d != single) several = true;
    if (!single) single = d;
  }
  // Only scalars: they belong to no device and reach nothing, so no lock.
  // (Taking this thread's default device's here would take it out of order
  // inside a GraphLock on other devices.)
  if (!single) return;
  if (!crosses && !several) {
    if (holds(single)) return;  // an enclosing GraphLock of this thread holds it
    single->mutex.lock();
    one_ = single;
    held.push(single);
    return;
  }
  // Nested inside another GraphLock, the graphs are parts of what the outer
  // one locked (it walked them); walking again could block on a lock while
  // holding others.
  std::vector<DeviceState*> devices;
  if (!held.empty()) {
    for (std::size_t i = 0; i < count; ++i)
      if (roots[i]->device && std::find(devices.begin(), devices.end(), roots[i]->device.get()) == devices.end())
        devices.push_back(roots[i]->device.get());
  } else {
    devices = reachable_devices(roots, count);
  }
  // One global order (by address) for taking several locks.
  std::sort(devices.begin(), devices.end(), std::less<DeviceState*>());
  for (DeviceState* d : devices) {
    if (holds(d)) continue;
    d->mutex.lock();
    more_.push_back(d);
    held.push(d);
  }
}

GraphLock::~GraphLock() {
  // The last locks this thread took are this GraphLock's (scopes nest).
  for (auto it = more_.rbegin(); it != more_.rend(); ++it) {
    (*it)->mutex.unlock();
    held.pop();
  }
  if (one_) {
    one_->mutex.unlock();
    held.pop();
  }
}

// ---- tuning -------------------------------------------------------------------------

namespace {
std::atomic<int> vector_bytes_override{0};    // set_vector_bytes; 0: none
std::atomic<bool> two_kernels_override{false};  // set_reduce_two_kernels
std::atomic<bool> two_pass_override{false};     // set_two_pass_moments
}  // namespace

void set_vector_bytes(int bytes) { vector_bytes_override.store(bytes > 0 ? std::clamp(bytes, 1, 128) : 0); }

void set_reduce_two_kernels(bool on) { two_kernels_override.store(on); }

void set_two_pass_moments(bool on) { two_pass_override.store(on); }

DeviceTuning tuning_of(DeviceState& dev) {
  if (!dev.tuning) {
    DeviceTuning t = default_tuning(dev.runtime());
    start_tuning(rt::info(dev.runtime()), dev.tune, t);
    dev.tuning = t;
  }
  DeviceTuning t = *dev.tuning;
  if (const int v = vector_bytes_override.load(std::memory_order_relaxed)) t.vector_bytes = v;
  if (two_kernels_override.load(std::memory_order_relaxed)) t.split_finish = codegen::SplitFinish::SecondKernel;
  if (two_pass_override.load(std::memory_order_relaxed)) t.one_pass_moments = false;
  return t;
}

}  // namespace fusecl::detail

// ---- the public handle ------------------------------------------------------------------

namespace fusecl {

Device::Device() : state_(detail::current_state()) {}

const DeviceInfo& Device::info() const { return rt::info(state_->runtime()); }
const std::string& Device::choice_reason() const { return rt::choice_reason(state_->runtime()); }
std::string Device::str() const { return detail::describe(*state_); }
void Device::finish() const { rt::finish(state_->runtime()); }

Device open_device(std::string_view spec) {
  static std::atomic<int> opened{0};
  auto rt = rt::open_runtime(spec, "open_device");
  return Device(std::make_shared<detail::DeviceState>(std::move(rt), ++opened));
}

Device default_device() { return Device(detail::current_state()); }

DeviceScope::DeviceScope(Device dev) : dev_(std::move(dev)), previous_(detail::scoped) { detail::scoped = &dev_; }

DeviceScope::~DeviceScope() { detail::scoped = previous_; }

const DeviceInfo& device() { return default_device().info(); }

const std::string& device_choice_reason() { return default_device().choice_reason(); }

}  // namespace fusecl
