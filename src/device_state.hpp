// What a fusecl::Device handle points to: one opened runtime (context,
// queue, pool, kernels) plus what the graph side keeps per device, and the
// lock that makes a device safe to use from any thread.
//
// Locking. Every node belongs to one device (scalars, which are kernel
// arguments, to none), and a device's nodes are read and changed only under
// its lock: building (which may evaluate early), evaluation (which turns
// nodes into buffers in place and walks graphs marking nodes) and kernel
// launches (clSetKernelArg is not thread-safe). So threads working on one
// device take turns on the host side while the device runs their kernels in
// order; threads on different devices run side by side. A graph that reaches
// another device (Array::to) needs that device's lock too: GraphLock takes
// every lock a graph needs at once, in one global order, so no two threads
// can each hold one and wait for the other's.
#pragma once

#include "fusecl/device.hpp"
#include "runtime/runtime.hpp"
#include "src/scheduler.hpp"
#include "src/tuning.hpp"

#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusecl::detail {

struct PlanCache;  // plan_cache.hpp

struct DeviceState : std::enable_shared_from_this<DeviceState> {
  /// The process default: opened on first use of runtime(), so that making an
  /// empty Array or reading a setting does not start OpenCL.
  DeviceState();
  /// open_device: opened now.
  DeviceState(std::shared_ptr<rt::Runtime> rt, int serial);

  /// The runtime, opening the default device's on first call (a failure is
  /// thrown, and the next call tries again).
  rt::Runtime& runtime();

  // Guards this device's nodes and runtime (see the top of this file). Not
  // recursive: a thread never takes it twice (GraphLock skips the locks its
  // thread holds), and a plain mutex costs less on every operation.
  std::mutex mutex;
  // Under `mutex`: default_tuning() of this device, computed on first use,
  // with what tuning.hpp has loaded or measured for it since.
  std::optional<DeviceTuning> tuning;
  TuningState tune;  // under `mutex`: where `tuning`'s tuned values came from
  // Under `mutex`: the driver would not build a row kernel's warp shuffles
  // (inline PTX): every row kernel, kept plans' included, meets its
  // partials in local memory instead (launch.cpp).
  bool warps_refused = false;
  // Under `mutex`: the row lengths taken as constants of row kernels'
  // source (codegen ReduceSpec::row_length), by the signature of the plan
  // with the length as the argument (launch.cpp's length_admitted).
  std::unordered_map<std::string, std::vector<std::uint32_t>> row_lengths;
  std::shared_ptr<PlanCache> plans;  // under `mutex`: schedules kept for reuse (plan_cache.hpp)
  const int serial;  // 0: the process default; N: the Nth open_device

 private:
  std::shared_ptr<rt::Runtime> rt_;
  std::once_flag opened_;
};

using DevicePtr = std::shared_ptr<DeviceState>;

/// The process default device's state (created on first call; never destroyed).
const DevicePtr& default_state();
/// This thread's default: the innermost DeviceScope's device, else default_state().
DevicePtr current_state();

/// Device::str() of a state.
std::string describe(DeviceState& dev);

/// The device of an operation on `inputs`: theirs (scalars have none), or
/// this thread's default when no input has one. Inputs on two devices throw
/// fusecl::Error naming both and `what` (the operation).
DevicePtr common_device(std::initializer_list<const Node*> inputs, std::string_view what);
DevicePtr common_device(std::span<const NodePtr> inputs, std::string_view what);

/// The tuning of `dev` (the caller holds its lock) with the process-wide overrides for tests and
/// benchmarks (set_vector_bytes, set_reduce_two_kernels, set_two_pass_moments) applied.
DeviceTuning tuning_of(DeviceState& dev);

/// Holds, for its scope, the locks of every device whose nodes the graphs of
/// `nodes` reach (see the top of this file). Nested GraphLocks (an entry point
/// calling another) take none of the locks their thread already holds.
class GraphLock {
 public:
  explicit GraphLock(std::initializer_list<const Node*> nodes);
  explicit GraphLock(const std::vector<NodePtr>& nodes);
  explicit GraphLock(DeviceState& dev);
  ~GraphLock();
  GraphLock(const GraphLock&) = delete;
  GraphLock& operator=(const GraphLock&) = delete;

 private:
  void lock_for(const Node* const* roots, std::size_t count);
  // The locks held, in the order taken. One device is the common case and
  // needs no allocation: this is on the path of every operation.
  DeviceState* one_ = nullptr;
  std::vector<DeviceState*> more_;
};

}  // namespace fusecl::detail
