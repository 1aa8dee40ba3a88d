// Schedules kept per device and reused by later evaluations of graphs of the
// same structure. A server or a loop that evaluates the same expression on
// new arrays over and over spends most of its host time for small arrays
// scheduling the graph again (Black-Scholes at 2^10 on PoCL: about half of
// eval's instructions are the scheduling pass); a graph whose structure,
// leaf shapes and buffer aliasing match an earlier one's gets that one's
// kernels with its own buffers and scalar values, as fusecl::fuse replays
// do, but without the caller declaring anything.
//
// The key is the graph itself, serialized from the roots down: every node's
// op, dtype, shape, weight (the scheduler reads it) and kind data (view
// strides, reduction axes, generator parameters...), its inputs by position
// in the walk, and for buffer nodes which of the graph's distinct buffers
// they read. Two graphs with equal keys get equal schedules from
// make_schedule but for the values in scalar slots: a scalar is a kernel
// argument, whose value no scheduling decision reads, so the key leaves it
// out (a loop whose scalars change every step, a time or a rate, reuses one
// plan) and a reuse fills each slot from the new graph's scalar node. So
// reusing a plan is what scheduling again would do: the same kernels, the
// same arguments, the same nodes turned into buffers. FUSECL_PLAN_CACHE=0
// turns it off.
#pragma once

#include "src/node.hpp"
#include "src/scheduler.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace fusecl::detail {

struct DeviceState;
struct Schedule;

/// The structure of the graph below some roots, and what a kept plan needs
/// from this graph to run: its nodes and its buffers by number.
struct GraphKey {
  std::vector<std::uint64_t> words;
  std::uint64_t hash = 0;
  std::vector<const NodePtr*> nodes;  // by number in the walk (each an entry of a live inputs vector or of roots)
  std::vector<std::shared_ptr<rt::DeviceBuffer>> buffers;  // the graph's distinct buffers, by number
};

/// A GraphKey from this thread's spares, given back emptied when it goes: its
/// vectors keep their capacity, so keying a graph allocates nothing after the
/// first evaluations (evaluations nest, so a thread may hold several).
class ScratchKey {
 public:
  ScratchKey();
  ~ScratchKey();
  ScratchKey(const ScratchKey&) = delete;
  ScratchKey& operator=(const ScratchKey&) = delete;
  GraphKey& operator*() { return *key_; }

 private:
  std::unique_ptr<GraphKey> key_;
};

/// The kept plans of one device (DeviceState::plans), guarded by its lock.
struct PlanCache;

/// Whether evaluations keep and reuse plans (FUSECL_PLAN_CACHE, default on).
bool plan_cache_enabled();
/// Tests only: turns keeping and reusing plans on or off; returns the previous setting.
bool set_plan_cache(bool on);

/// The key of the graph below `roots` (one device's, whose lock the caller
/// holds), or false where its plan is not kept: host views, copies between
/// devices, random draws (each draw a new seed: a plan kept would never be
/// met again), empty arrays, or a graph too large to be worth a key.
bool make_graph_key(const std::vector<NodePtr>& roots, GraphKey& key);

/// Runs the plan kept for `key` on `dev` (the caller holds its lock) and
/// returns true, or returns false where none is kept for it.
bool run_kept_plan(DeviceState& dev, const GraphKey& key);

/// Keeps `s`, the schedule just made for the graph of `key`, for later
/// evaluations of the same structure (before run_schedule uses it up). A
/// schedule that copies between devices or reads memory that is not one of
/// the graph's buffers is not kept.
void keep_plan(DeviceState& dev, GraphKey&& key, const Schedule& s);

}  // namespace fusecl::detail
