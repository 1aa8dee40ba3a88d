// A schedule kept to run again with other buffers and scalars: what
// fusecl::fuse replays (traced.cpp) and what eval's plan cache reuses
// (plan_cache.cpp). Its kernels' inputs are marked by where a run finds
// them: one of the run's buffers by position, or an earlier step's output;
// its scalar slots likewise by the run's scalar each takes. A run fills them
// in, launches, and hands each output over after its last writer, as
// run_schedule does for a schedule just made.
#pragma once

#include "src/launch.hpp"
#include "src/schedule.hpp"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fusecl::detail {

struct DeviceState;

struct Replay {
  struct Step {
    ScheduledKernel kernel;  // the buffers a run fills in are empty between runs
    // By input slot: the run's buffer it reads (an index into them), or
    // kOutput (an earlier step's output: the slot's `pending`), or kFixed (a
    // buffer the plan holds: fuse's captured arrays).
    SmallVector<int, 4> source;
    // The scalar slots a run fills: (slot, index into the run's scalars).
    // The other slots keep the values they had when planned.
    SmallVector<std::pair<std::int16_t, int>, 2> scalars;
    ScheduleStep::OutputList outputs, reads;
    LaunchMemo memo;  // the kernel's signature and parameters, made on the first run
  };
  static constexpr int kOutput = -1, kFixed = -2;
  struct Output {
    DType dtype;
    std::int64_t elements = 0;
    int last_write = -1, last_use = -1;
    bool kept = false;  // held to the end of the run and returned (fuse's results)
  };
  std::vector<Step> steps;
  std::vector<Output> outputs;
};

/// `s` as a Replay whose kernels read `buffers` by position, and whose
/// scalar slots holding a graph scalar take the run's scalar numbered
/// `scalar_index(node)` (-1: none); inputs reading other memory, and slots
/// whose scalar the run does not give, keep what they have where
/// `fixed_allowed`. Null, with `reason` saying why, where `s` copies between
/// devices, writes into a preset buffer, has an output no kernel writes, or
/// reads memory or a scalar it may not keep.
std::shared_ptr<Replay> make_replay(const Schedule& s, std::span<const std::shared_ptr<rt::DeviceBuffer>> buffers,
                                    const std::function<int(const Node&)>& scalar_index, bool fixed_allowed,
                                    std::string& reason);

/// Runs `r` on `dev` (the caller holds its lock, which also makes it the
/// only user of `r` while it runs) with `buffers` and `scalars` (bits) as
/// make_replay numbered them: each output is made before its first writer and `finished(k, buffer)`
/// is called after its last; the run's references go after the last step
/// using it, except kept outputs', which are returned (by output; the others
/// empty).
SmallVector<std::shared_ptr<rt::DeviceBuffer>, 4> run_replay(
    DeviceState& dev, Replay& r, std::span<const std::shared_ptr<rt::DeviceBuffer>> buffers,
    std::span<const std::uint64_t> scalars,
    const std::function<void(std::size_t, const std::shared_ptr<rt::DeviceBuffer>&)>& finished);

}  // namespace fusecl::detail
