// Scheduling as a pure pass: which kernels compute a set of roots, in which
// order, reading which earlier kernels' outputs, and why each kernel ends
// where it does. Made without touching a device (nothing is allocated,
// launched or turned into a buffer), then run by run_schedule.
#pragma once

#include "src/scheduler.hpp"

#include <string>
#include <vector>

namespace fusecl::detail {

struct DeviceState;

/// Why a kernel of a schedule computes what it does, instead of its readers
/// computing it in their own bodies.
enum class CutReason : std::uint8_t {
  Root,              // a node the caller asked for
  Reduction,         // a reduction read by a later kernel
  Concatenate,       // a concatenation read by a later kernel
  Transfer,          // a copy from another device
  Contiguous,        // a forced contiguous copy read by a later kernel
  BodyInstructions,  // part of a body over kMaxBodyInstructions
  ParameterBytes,    // part of a body whose arguments exceed the device's limit
  RowTooLong,        // a reduction read by a later kernel, whose rows are too long for one row kernel
  Partials,          // the partial results of a whole-array reduction, which the row kernel reading it combines
  SegmentPartials,   // the partial results of segments of rows too long to stay on chip, which the output kernel combines
  ColumnReductions,  // a reduction down the columns of a large array, read by a later kernel: reduced in vectors of columns
                     // (faster than a row kernel looping down them)
};

/// A buffer the schedule makes: the value of `nodes` (several where one
/// reduction was built twice), contiguous, `elements` of `dtype`; no nodes
/// for a reduction's partial results (CutReason::Partials, SegmentPartials),
/// which only the schedule's next kernel reads.
struct ScheduleOutput {
  SmallVector<NodePtr, 1> nodes;
  DType dtype;
  std::int64_t elements = 0;
  bool root = false;  // one of the roots the schedule was made for
  // Where the value goes, if not a new buffer (evaluate_into: caller memory
  // the device writes in place).
  std::shared_ptr<rt::DeviceBuffer> preset;
};

struct ScheduleStep {
  enum class Kind : std::uint8_t { Kernel, Copy };
  Kind kind = Kind::Kernel;
  ScheduledKernel kernel;  // Kernel: the plan and its arguments (pending inputs unresolved)
  NodePtr source;          // Copy: the node on another device whose value is copied
  Shape shape;             // the index space (a reduction: its input's shape; a slab: its input's)
  // Outputs written, one per plan output (a concatenation's kernels each
  // write their slab of the same output).
  using OutputList = SmallVector<int, 2>;
  OutputList outputs;
  OutputList reads;  // outputs of earlier steps this one reads
  CutReason reason = CutReason::Root;
  std::uint64_t limit = 0;  // BodyInstructions, ParameterBytes, RowTooLong, ColumnReductions: the limit that was passed

  /// The reason in words, with the limit that was passed (made only when
  /// asked for: a schedule is made for every evaluation, and read rarely).
  std::string why() const;
};

struct Schedule {
  SmallVector<ScheduleOutput, 2> outputs;
  SmallVector<ScheduleStep, 1> steps;  // one, mostly: a kernel plan is large, and made in place

  /// The output holding n's value, or -1.
  int output_of(const Node& n) const;
  /// Steps that launch a kernel (copies launch none).
  std::size_t kernel_count() const;
};

/// The schedule computing `roots` (all on one device, whose limits `tuning`
/// gives): elementwise roots of one shape share one kernel, each reduction
/// has its own (but reductions over rows that a root reads broadcast back,
/// as softmax does, are computed in the root's row kernel: row_fusion.hpp), a concatenation one per non-empty input, a copy between
/// devices one step. The caller holds the roots' GraphLock.
Schedule make_schedule(const std::vector<NodePtr>& roots, const DeviceTuning& tuning);

/// Runs `s` on `dev` (whose lock the caller holds): allocates each output
/// before the first step that writes it, launches in order, and turns each
/// output's nodes into buffer nodes once its last writer has run. Outputs
/// with no nodes (taken out by the caller) are not made.
/// `s` is used up: its steps' buffers and its outputs' nodes are released as
/// they stop being needed.
void run_schedule(DeviceState& dev, Schedule& s);

/// A header naming `device`, then one line per step (kind, shape, what it
/// computes, which steps' outputs it reads, why it was cut), for FUSECL_LOG=schedule.
std::string describe(const Schedule& s, const std::string& device);

/// Whether FUSECL_LOG asks for schedules (read once; an unknown value warns).
bool log_schedules();

/// Whether FUSECL_LOG asks for tuning measurements (tuning.hpp).
bool log_tuning();

}  // namespace fusecl::detail
