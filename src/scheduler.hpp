// The scheduler decides what one kernel computes and collects its arguments.
// A kernel's body is the elementwise graph below its root(s), down to leaves
// (buffers, scalars, generators) and barriers (reductions, concatenations,
// forced copies), which are evaluated by kernels of their own first.
#pragma once

#include "codegen/kernel_plan.hpp"
#include "src/node.hpp"

#include <boost/container/small_vector.hpp>

#include <array>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fusecl::detail {

/// A vector holding its first N elements in place: for the lists made on the
/// path of every evaluation (roots, outputs, steps' reads), which are almost
/// always short, so that a cached evaluation allocates no more than it must.
template <class T, std::size_t N>
using SmallVector = boost::container::small_vector<T, N>;

/// A buffer a kernel reads: one that exists, or output `pending` of the
/// schedule being made (schedule.hpp), which exists only once the runner
/// has allocated it; the runner then fills in `buffer`.
struct InputBuffer {
  std::shared_ptr<rt::DeviceBuffer> buffer;
  int pending = -1;
};

/// Argument values for a plan, indexed like the plan's slots and instructions.
struct KernelArgs {
  std::vector<InputBuffer> inputs;                        // by buffer slot
  std::vector<std::uint64_t> scalars;                     // by scalar slot, as bits of the slot's dtype
  // The slots that hold a graph's scalar, with its node (the others hold the
  // scheduler's own values: a mean's divisor): make_replay (replay.hpp) has a
  // replay fill them from its run's scalars. Valid only while the graph is
  // alive (make_replay drops them from its copy).
  SmallVector<std::pair<std::int16_t, const Node*>, 4> scalar_nodes;
  std::int64_t count = 0;                                 // elements (elementwise) or outputs (reduce)
  std::int64_t reduce_count = 0;                          // reduce: length of the reduced range
  std::vector<std::int64_t> dims;                         // index space, plan.ndim of them
  std::vector<std::int64_t> offsets;                      // by instruction (loads)
  std::vector<std::vector<std::int64_t>> strides;         // by instruction (strided loads)
  std::vector<std::array<std::uint64_t, 4>> gen_params;   // by instruction (generators), bits
  std::int64_t out_offset = 0;                            // strided output
  std::vector<std::int64_t> out_strides;
  std::int64_t groups = 1;                                // reduce: work-groups per output
  std::int64_t row_stride = 0;                            // row, column form: elements between a row's neighbours
  std::size_t scratch_bytes = 0;                          // reduce, two-stage: the partials
};

/// Whether an index space of these dimensions fits codegen's 32-bit
/// coordinates (KernelPlan::index32): fewer than 2^31 positions, so that a
/// position a kernel computes a vector or a block past the end (masked, or
/// never loaded) still fits an unsigned 32-bit value. An empty space fits.
inline bool index_space_fits_32(const std::vector<std::int64_t>& dims) {
  constexpr std::uint64_t limit = std::uint64_t(1) << 31;
  for (const std::int64_t d : dims)
    if (d < 0) return false;
  for (const std::int64_t d : dims)
    if (d == 0) return true;  // empty wherever the zero is
  std::uint64_t n = 1;
  for (const std::int64_t d : dims) {
    if (std::uint64_t(d) > limit / n) return false;
    n *= std::uint64_t(d);
  }
  return n < limit;
}

/// What the scheduler needs to know of the device.
struct DeviceTuning {
  int vector_bytes = 16;   // preferred bytes per vector load
  int local_size = 256;    // work-group size for reductions
  int elementwise_local_size = 256;  // work-group size of (untiled) elementwise kernels: launch.cpp reads it
  int target_groups = 64;  // work-groups that keep the whole device busy
  std::size_t max_parameter_bytes = 1024;  // CL_DEVICE_MAX_PARAMETER_SIZE
  // Row kernels: the most bytes of input one row may read (0: no row kernels;
  // launch.cpp sets the device's local memory size).
  std::size_t row_bytes = 0;
  // Row kernels: the elements each work-item of a row aims at (FUSECL_ROW_ELEMENTS).
  int elements_per_item = 4;
  // Row kernels: the most work-items of a group (also at most local_size),
  // and the most elements a work-item keeps in registers (more: it loops,
  // re-reading its row). launch.cpp says why GPUs and CPUs differ.
  int row_group_cap = 1024;
  int row_register_elements = 8;
  // Row kernels on GPUs, rows longer than row_register_elements x
  // row_group_cap: the most bytes of its row's loads a work-item holds in
  // registers (plan_row's deep register form: 32 or 64 elements of a float
  // row a work-item, in groups of up to 512; 0: none, FUSECL_ROW_HELD_BYTES).
  std::size_t row_held_bytes = 0;
  // Row kernels: the most work-items one row gets. A CPU's work-group is a
  // loop on one core, so more work-items per row never add parallelism: they
  // add barriers, and their partials' combine (launch.cpp: 1 on CPUs).
  int row_items_cap = 1024;
  // Row kernels: rows along the last axes shorter than two vectors (but for
  // one) take the lanes form (codegen ReduceSpec::row_lanes: a vector's lanes
  // are rows) on a device that gives each row one work-item (row_items_cap 1:
  // CPUs; not GPUs, FUSECL_ROW_LANES=0 on a CPU, to compare); so do lone
  // reductions over such rows (lane_rows.cpp's rows_in_lanes).
  bool row_lanes = false;
  // Row kernels: the fan-in of their two-level combine, 0 for a binary tree (FUSECL_ROW_FANIN).
  int row_fanin = 16;
  // Rows split over segments (codegen ReduceSpec::row_split; GPUs only): the
  // segments' length along the last axes (elements) and down columns (rows);
  // where rows are split (FUSECL_ROW_SPLIT): 0, nowhere; 1, rows too long
  // for one row kernel, and rows one kernel would re-read in an array
  // reading at least row_split_bytes (schedule.cpp's split_wanted); 2, every
  // row kernel whose reductions' partials merge (to compare, and for tests).
  int row_segment = 2048;
  int row_column_segment = 512;
  int row_split = 1;
  std::uint64_t row_split_bytes = std::uint64_t(1) << 27;
  // GPUs: an array of this many bytes or more whose rows run down its
  // columns, which one row kernel would loop over, takes today's kernels
  // instead, each reduction reading the columns in vectors (schedule.cpp's
  // columns_today; 0: never; FUSECL_ROW_COLUMN_BYTES).
  std::uint64_t row_column_bytes = std::uint64_t(1) << 26;
  // Row kernels: float32 divisions by a value of the row through its
  // reciprocal, corrected to the IEEE quotient (codegen ReduceSpec::
  // row_reciprocal; FUSECL_ROW_RECIPROCAL): GPUs whose float division is
  // correctly rounded and whose fma is in hardware (launch.cpp).
  bool row_reciprocal = false;
  // Split reductions: the last work-group finishes (OpenCL C 2.0 atomics) or a second kernel does.
  codegen::SplitFinish split_finish = codegen::SplitFinish::SecondKernel;
  // Tiled transposed reads (tiling.hpp): allowed (FUSECL_TILES), and what the device gives them.
  bool tile_transposes = true;
  // CPUs: tiles as blocks turned in registers (codegen KernelPlan::
  // tile_registers), where every other load of the kernel reads vectors in
  // place; FUSECL_TILE_REGISTERS=0: through local memory, to compare.
  bool tile_registers = false;
  bool column_blocks = true;  // ReduceStrategy::ColumnBlock allowed (FUSECL_COLUMN_BLOCKS)
  // ColumnBlock in vectors of outputs (codegen ReduceSpec::kept_inner): work-
  // items across a block (each a vector of outputs) and down its rows. GPUs
  // 32 x 8: a warp reads a row's 512 neighbouring bytes, and 8 rows' partials
  // meet in local memory. CPUs 1 x 1 (launch.cpp): a work-group is a loop on
  // one core, so a work-item walks its vector of columns down every row of
  // its part, with no barrier and no combine.
  int column_items = 32;
  int column_rows = 8;
  // ColumnBlock's parts (scheduler.cpp's split_column_blocks) as many as fit
  // in target_groups, where rounding up had made a second round of a few
  // groups, or two parts and a second kernel where the blocks alone came
  // within a few groups of it. On an H200 at 2^26 floats, softmax over axis
  // 0 of 8192 x 8192 took 212 us against 232 (its pair in 512 groups, not
  // 576), over axis 1 of 64 x 1024 x 1024 214 against 219 (one part of 512
  // blocks, not two), the layer norm over axis 1 of 32 x 2048 x 1024 215
  // against 228 (bench/RESULTS.md, thirty-fifth session). GPUs; a CPU's
  // groups are loops on its cores, which take more groups more evenly.
  // FUSECL_COLUMN_ONE_WAVE=0: rounded up, to compare.
  bool column_one_wave = true;
  // A compensated float sum (sum, mean; a GroupPerOutput reduction's, a
  // row kernel's loop: plan_row.cpp's take_chains) keeps this many
  // independent accumulators a work-item (codegen ReduceSpec::chains). A CPU runs a work-group's work-items one after another on one
  // core, so one work-item's chain of dependent additions (a compensated
  // step is five, each waiting for the last) bounds the loop, not the loads;
  // a GPU hides that latency behind its other warps. launch.cpp gives the
  // 2-core PoCL machine's figures. 1 on GPUs; FUSECL_REDUCE_CHAINS sets it.
  int reduce_chains = 1;
  // Pairs of reductions in one kernel where a row kernel gave its reductions
  // to today's kernels (CutReason::ColumnReductions, RowTooLong, and below): softmax's
  // max and sum of exp(x - max) in one pass (plan_softmax); and wherever a
  // variance reads down columns in vectors, its mean and squared deviations
  // in one moment kernel (plan_moment in column blocks). FUSECL_PAIR_KERNELS=0:
  // a kernel per reduction, to compare.
  bool pair_kernels = true;
  // An evaluation root that is an elementwise function of one reduction
  // and scalars alone (sqrt(sum(x * x, 1))) computed by that reduction's
  // kernel where it stores (codegen KernelPlan::finish, reduce_finish.cpp),
  // not by a kernel of its own. FUSECL_REDUCE_FINISH=0: two kernels, to compare.
  bool reduce_finish = true;
  // Elementwise kernels in vectors over rows that are not a multiple of the
  // vector width, where their only loads that follow rows broadcast along
  // them (codegen KernelPlan::cross_rows): softmax's or a layer norm's output
  // over rows of 50257 floats, which took a work-item an element.
  // FUSECL_CROSS_ROWS=0: a vector never leaves its row, to compare.
  bool cross_rows = true;
  // Coordinates from a flat index in 32-bit arithmetic where the kernel's
  // index space has fewer than 2^31 positions (codegen KernelPlan::index32): on an H200 a layer
  // norm's output over the middle axis of 64 x 1024 x 1024 floats took 148
  // us against 172 with 64-bit divisions (bench/RESULTS.md, thirty-fourth
  // session). FUSECL_INDEX32=0: 64-bit always, to compare.
  bool index32 = true;
  // GPUs, with cross_rows: rows along the last axis that are no multiple of
  // the vector width and longer than this many elements take today's
  // kernels (a pair or moment kernel, then the outputs in vectors across
  // rows) instead of a row kernel holding them in registers an element at a
  // time, where row_skew does not hold them in vectors (schedule_rows.cpp
  // says what was measured); 0: never (FUSECL_ROW_ODD_ELEMENTS).
  std::int64_t row_odd_elements = 0;
  // Row kernels holding rows in registers in vectors where rows are no
  // multiple of the vector width (codegen ReduceSpec::row_skew); such rows
  // then stay in their row kernels past row_odd_elements too.
  // FUSECL_ROW_SKEW=0: an element at a time, to compare.
  bool row_skew = true;
  // NVIDIA GPUs (DeviceInfo::warp_size 32, compute capability 3.0 or
  // later, which has shuffles): a row kernel's work-items, and those of a
  // reduction's row (a group per output or several short rows a group),
  // combine their partials within a warp through shfl.sync (codegen
  // ReduceSpec::row_warp); 0: in local memory (FUSECL_ROW_SHUFFLE=0, and
  // every other device: OpenCL's sub-group functions are an extension
  // NVIDIA's driver does not offer).
  int row_warp = 0;
  // GPUs: reductions over short rows along the last axes in lanes (codegen
  // ReduceSpec::lanes_per_row, lane_rows.cpp's lanes_for_rows says where);
  // FUSECL_LANE_ROWS=0: never, to compare.
  bool lane_rows = false;
  // GPUs: row kernels held element by element stage their rows' loads and
  // outputs through local memory in vectors (codegen ReduceSpec::row_staged,
  // plan_row.cpp says where): 0 never; 1 where plan_row's rule says it gains;
  // 2 wherever it can (FUSECL_ROW_STAGE, to compare).
  int row_stage = 0;
  // GPUs: row kernels held in registers take their row's length as a
  // constant of their source (codegen ReduceSpec::row_length; launch.cpp
  // says how many lengths a kernel takes so; FUSECL_ROW_CONSTANT=0: never).
  bool row_constant = false;
  // Softmax's pair also for a sum of exp(x - max) no row kernel reads (a
  // logsumexp, log(s) + max, whose consumers are of the reduced shape), where
  // its rows are at least this long. An H200 (2^26 floats, µs): 85 against
  // 135 in a kernel a reduction at rows of 1024, 72 against 145 at rows of
  // 65536. A CPU's pair kernel merges its 16 lanes and a tree of work-items,
  // an exp a merge, over rows it reads in few vectors. At 2^22, rows of
  // 1024 / 4096 / 8192 / 16384 / 32768, ms: the 2-core PoCL 3.1 machine took
  // 3.4 / 1.8 / 1.45 / 1.35 / 1.29 against 2.3 / 1.5 / 1.40 / 1.55 / 1.52;
  // the H200 host's 16-core Xeon (PoCL 5.0) 0.72 / 0.46 / 0.40 / 0.37 / 0.35
  // against 0.75 / 0.53 / 0.49 / 0.47 / 0.44 (bench/RESULTS.md, twenty-eighth
  // session). GPUs 1; CPUs 8192, where the one gains a fifth and the other
  // loses 3%.
  std::int64_t pair_sum_elements = 1;
  std::size_t max_work_group_size = 256;
  std::uint64_t local_mem_bytes = 32768;
  // var/std of float32, float64 and integers in one pass (moment kernels): the device has float64
  // and FUSECL_ONE_PASS_MOMENTS is not 0.
  bool one_pass_moments = false;
  // Moment kernels: the widest vector of their float64 accumulators. On a
  // GPU, where a work-item's registers decide how many stay resident, wider
  // accumulators cost groups per SM: with two chains of sums a lane, double4
  // took 74 registers and three groups per SM, double2 54 and four (mean and
  // std at 2^26 on an H200: 162 µs against 146; var over rows of 128 86 µs
  // against 78, of 8 101 against 88, thirty-ninth session). The group form
  // now keeps one chain (render_moment.cpp), unmeasured at double4. A
  // CPU's wide vector registers gain from the device's full width (PoCL at
  // 2^22: 3.6 ms at 16 lanes, 4.0 at 4).
  int moment_width = 16;

  friend bool operator==(const DeviceTuning&, const DeviceTuning&) = default;
};

struct ScheduledKernel {
  codegen::KernelPlan plan;
  KernelArgs args;
  const char* tiling = nullptr;  // elementwise: whether transposed reads are tiled (tiling.hpp), for the log
};

/// Nodes that earlier kernels of the schedule being made will compute
/// (schedule.cpp), by the index of the schedule output holding each: planning
/// treats them as evaluated, so a body loads them instead of computing them,
/// without any device work before the schedule runs.
class PendingOutputs {
 public:
  /// The output computing n, or -1.
  int find(const Node& n) const {
    // Checked for every node of every body. Most schedules have an output or
    // two: a short array searched in place, with no allocation per
    // evaluation; a hash map only once a schedule has many.
    if (map_.empty()) {
      for (std::size_t i = 0; i < few_count_; ++i)
        if (few_[i].first == &n) return few_[i].second;
      return -1;
    }
    const auto it = map_.find(&n);
    return it == map_.end() ? -1 : it->second;
  }
  void add(const Node& n, int output) {
    if (map_.empty() && few_count_ < few_.size()) {
      few_[few_count_++] = {&n, output};
      return;
    }
    if (map_.empty())
      for (std::size_t i = 0; i < few_count_; ++i) map_.emplace(few_[i]);
    map_.emplace(&n, output);
  }

 private:
  std::array<std::pair<const Node*, int>, 8> few_{};
  std::size_t few_count_ = 0;
  std::unordered_map<const Node*, int> map_;  // all of them, once there are more than few_ holds
};

/// Whether n's value is read, not computed: a buffer already, or the output of an earlier kernel.
inline bool is_evaluated(const Node& n, const PendingOutputs* pending) {
  return n.op == Op::Buffer || (pending && pending->find(n) >= 0);
}

/// Whether n is computed inside the kernel body that reaches it.
inline bool is_fused(const Node& n, const PendingOutputs* pending) {
  return is_elementwise(n.op) && !(pending && pending->find(n) >= 0);
}

/// Nodes below `root`'s kernel body that must be evaluated before it.
std::vector<NodePtr> unevaluated_barriers(const NodePtr& root, const PendingOutputs* pending = nullptr);

/// The most instructions a kernel body may have: past this, bodies are split
/// (body_cuts) whatever max_fused_ops() allows, since generated sources and
/// their compile times grow with it and instruction indices are 16-bit.
constexpr std::uint32_t kMaxBodyInstructions = 1024;

/// What one kernel body may hold.
struct BodyLimits {
  std::uint64_t instructions = kMaxBodyInstructions;
  std::uint64_t param_bytes = ~std::uint64_t(0);  // the loads' and scalars' arguments
};

/// Elementwise nodes inside the kernel bodies computing `bodies` (all of one
/// shape) to evaluate first, in this order (each one's own body then holds
/// no later cut), so that every body, those of the cuts included, stays
/// within `limits` (estimated from above). `total`, if given, receives the
/// estimated instructions of all of `bodies` together after the cuts.
std::vector<NodePtr> body_cuts(const std::vector<NodePtr>& bodies, const BodyLimits& limits,
                               std::uint64_t* total = nullptr, const PendingOutputs* pending = nullptr);

/// The value a kernel computes for an evaluation root (a Contiguous node's input;
/// the node itself otherwise).
const NodePtr& body_root(const NodePtr& root);

/// One elementwise kernel computing every root (all of one shape) into
/// contiguous outputs. `vector_bytes` is the device's preferred vector size.
/// With `out_layout`, the single root is stored through that offset and those
/// strides (in the root's shape) instead of contiguously.
struct OutLayout {
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;
};
/// Nodes in `pending` are loaded from the schedule's outputs.
ScheduledKernel plan_elementwise(std::span<const NodePtr> roots, const DeviceTuning& tuning,
                                 const OutLayout* out_layout = nullptr, const PendingOutputs* pending = nullptr);

/// One row kernel (KernelKind::Row) for elementwise roots (of one shape)
/// whose bodies read `reductions` (found by row_fusion.hpp, all over `axes`
/// of that shape, each broadcast back along them): a work-group per row
/// computes them and then every root at every element of its row.
/// With `partials`, the grid form: the root's shape is one row (the one
/// reduction is of the whole array), which every work-group of the kernel
/// shares; the reduction's partial results are schedule output `output`
/// (`groups` of them, from plan_reduce with SplitFinish::Consumer), which
/// each group combines before it computes its part of the row.
struct RowPartials {
  int output = -1;
  std::int64_t groups = 0;
};
/// With `split`, one of the two kernels of rows split over segments
/// (codegen ReduceSpec::row_split), on GPUs: with no `partials` the
/// partials kernel, which picks the segments (0 in `split.segments`), its
/// outputs each reduction's partials (plan.outputs the reductions); else the
/// output kernel, reading reduction instruction k's partials from schedule
/// output split.partials[k] (the partials kernel's instructions are its own).
struct RowSplit {
  std::int64_t segments = 0;
  std::vector<int> partials;
};
ScheduledKernel plan_row(std::span<const NodePtr> roots, const std::vector<const Node*>& reductions, const std::vector<int>& axes,
                         const DeviceTuning& tuning, const PendingOutputs* pending = nullptr,
                         const RowPartials* partials = nullptr, const RowSplit* split = nullptr);

/// The longest row one row kernel computes on a device with `tuning`, whose
/// row reads `bytes_per_element` bytes per element: what fits the cache
/// proxy (row_bytes), or longer on a GPU, what its largest group holds in
/// registers (schedule.cpp's schedule_in_registers).
std::int64_t longest_row(const DeviceTuning& tuning, std::uint64_t bytes_per_element);

/// The work-group of a CPU's rows in lanes (plan_row_lanes, lane_rows.cpp's
/// rows_in_lanes), `vectors` work-items in all, a vector of rows each: as
/// many as the device's group size allows, enough to amortize a group, but
/// halved while the groups would not fill target_groups.
int lane_group_size(std::int64_t vectors, const DeviceTuning& tuning);

/// One reduction kernel for a Reduce node.
ScheduledKernel plan_reduce(const NodePtr& root, const DeviceTuning& tuning, const PendingOutputs* pending = nullptr);

/// One moment kernel (codegen ReduceSpec::moment) for `var`, a var or std
/// node as make_moment builds it, computed from `x` (its float32 or float64
/// input) in one pass; with `mean`, a mean of x over the same axes, that too
/// (out1). nullopt where the reduction would read x across rows
/// (ColumnBlock) but for column blocks in vectors of whole outputs (with
/// pair_kernels), and for float64 where render_moment_chan.cpp's form
/// is not used (a CPU's rows of 16, slower in one pass; rows of more than
/// 16 values a work-item each, which that form would sum in scalars): then
/// the two-pass graph computes it. (Rows in lanes have no
/// float64 form: lane_rows.cpp declines them before this sees the plan.)
std::optional<ScheduledKernel> plan_moment(const Node& var, const NodePtr& x, const Node* mean, const DeviceTuning& tuning,
                                           const PendingOutputs* pending = nullptr);

/// One kernel computing softmax's pair of reductions of float x over the
/// same axes (codegen ReduceSpec::online): `max`, the max of x (out0), and
/// the sum of exp(x - max) (out1), in one pass: down x's columns in vectors,
/// or along its rows in a group per output (or per part of one). nullopt
/// where the reduction would take another form (a work-item per output,
/// scalar column blocks, columns no vector divides), or column pairs are off.
std::optional<ScheduledKernel> plan_softmax(const Node& max, const NodePtr& x, const DeviceTuning& tuning,
                                            const PendingOutputs* pending = nullptr);

/// Nodes below the kernel body `body` (itself included, if it is one) that
/// must be evaluated before a kernel reading it.
std::vector<NodePtr> unevaluated_barriers_below(const NodePtr& body, const PendingOutputs* pending = nullptr);

}  // namespace fusecl::detail
