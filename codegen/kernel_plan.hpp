// The code generator's input: a kernel's structure as plain data. The
// scheduler builds it in one walk of the graph; the signature (its bytes) is
// the memory-cache key, and the source is a pure function of it and the
// vector width, so the two cannot drift apart. Values — buffers, sizes,
// strides, scalars — are never part of it: they are kernel arguments.
#pragma once

#include "codegen/reflection.hpp"
#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"

#include <boost/container/small_vector.hpp>
#include <boost/hana/adapt_struct.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace fusecl::codegen {

/// How a load addresses its leaf at output position (or input position for reductions).
enum class Access : std::uint8_t {
  Contiguous,  // leaf[offset + i]
  Uniform,     // leaf[offset] for every element (0-d, or broadcast along every dimension)
  Strided,     // leaf[offset + sum(coord_d * stride_d)]
  // Strided, with the innermost stride 1 (a row read in place) or 0 (broadcast
  // along the row). When the innermost dimension is a multiple of the vector
  // width, a vector of consecutive positions stays in one row, so these load
  // with one vload or one broadcast per vector.
  StridedRow,
  StridedRowBroadcast,
  // Strided, read through a transpose: the elementwise kernel is tiled
  // (KernelPlan::tile) and this load is staged through a tile in local memory,
  // read along its own innermost axis (tile_axis) so that both the read and
  // the output's write are coalesced (render_tiled.cpp).
  Tiled,
};

inline bool is_strided(Access a) {
  return a == Access::Strided || a == Access::StridedRow || a == Access::StridedRowBroadcast || a == Access::Tiled;
}

/// One value of the kernel body, in topological order. Loads are Buffer,
/// Scalar and Generate instructions; the rest are elementwise ops whose
/// operands are earlier instructions (a, b, c). Row kernels also hold
/// reductions (a reduce op): the reduction of instruction `a` over the
/// kernel's row, one value per row, which later instructions read like any
/// other; `slot` is Mean's divisor (a scalar slot, else -1) and `b` is 1
/// where the square root is taken (std), else -1 (b is no operand there).
/// In a row kernel's grid form (ReduceSpec::combine) a reduction has no
/// input (`a` is -1): `c` is the buffer slot of the partial results an
/// earlier kernel (SplitFinish::Consumer) left, `groups` of them.
struct Instr {
  Op op = Op::Buffer;
  DType dtype = DType::Float32;
  std::int16_t a = -1, b = -1, c = -1;
  std::int16_t slot = -1;  // Buffer: input buffer; Scalar: scalar argument; Generate: generator
  Access access = Access::Uniform;
  GenKind gen = GenKind::Arange;

  friend bool operator==(const Instr&, const Instr&) = default;
};

// The scheduler hash-conses instructions by their raw bytes: there must be no padding.
static_assert(std::has_unique_object_representations_v<Instr>, "Instr must have no padding bytes");

/// Row: a work-group per row of the index space [kept dims..., row dims...]
/// (`reduce.local_size` work-items); it computes the body's reductions over
/// its row one after another, then stores the outputs at every element of
/// the row (codegen/render_row.cpp).
enum class KernelKind : std::uint8_t { Elementwise, Reduce, Row };

/// The data type elementwise instruction `in` of `instrs` computes on: its
/// first operand's, but Where's, whose first operand is the bool condition
/// (its second's). The spelling and the vector-width checks key on it.
inline DType operand_dtype(const std::vector<Instr>& instrs, const Instr& in) {
  return instrs[std::size_t(in.op == Op::Where ? in.b : in.a)].dtype;
}

/// Whether instruction `in` is a reduction over a row kernel's row.
inline bool is_row_reduction(const Instr& in) { return op_class(in.op) == OpClass::Reduce; }

/// A reduction's structure: the body's instruction `input` is reduced along
/// the innermost `reduce_ndim` index dimensions (the scheduler permutes the
/// reduced axes last); `ndim - reduce_ndim` outer dimensions are kept.
enum class ReduceStrategy : std::uint8_t {
  GroupPerOutput,   // a work-group per output (per part of one, when split), tree in local memory
  ThreadPerOutput,  // a work-item per output, sequential over the reduced range (short or strided ranges)
  // A work-group per block of kColumnBlock neighbouring outputs of a column
  // reduction (the reduced range strided; coalesced where neighbouring
  // outputs are neighbours in memory, as in sum(x, 0)): its
  // kColumnBlock x kColumnRows work-items read kColumnBlock neighbouring
  // elements of each row together, kColumnRows rows at a time, and combine
  // their rows' partials in local memory. Split over `groups` parts of the
  // rows when there are too few blocks; always finished by a second kernel then.
  // With ReduceSpec::kept_inner, each work-item takes a vector of `width`
  // neighbouring outputs instead, and the group's shape is the spec's.
  ColumnBlock,
};
constexpr int kColumnBlock = 32;
constexpr int kColumnRows = 8;
// The most values one work-group of a moment kernel sums around its shift
// (render_moment.cpp): M2 then keeps at least 53 - log2(2^24 + groups + 1)
// bits, above float32's 24 even for an outlier where the shift is taken.
constexpr std::int64_t kMomentGroupValues = std::int64_t(1) << 24;
// The most values a work-item of a moment kernel's work-item-an-output form
// sums around one shift, one of them: its sums' rounding grows with their
// count n, and the cancellation at the end by n, so M2 keeps about
// 53 - 2 log2(n) bits, 29 here. Longer ranges are summed in blocks of this
// many (ReduceSpec::moment_blocks).
constexpr std::int64_t kMomentThreadValues = 4096;
// The most values of a lane a float64 moment kernel sums around one shift
// (render_moment_chan.cpp): blocks of this many meet in Chan's update, so
// that at most about 2 log2(33) of float64's 53 bits are lost in a block.
constexpr std::int64_t kMomentChanBlock = 32;

/// How a split reduction (two_stage) combines its per-group partial results.
/// OpenCL 1.2 promises no ordering between work-groups of one launch, so
/// "the last group to finish reads the others' partials" is only well-defined
/// with OpenCL C 2.0 atomics (acquire/release at device scope).
enum class SplitFinish : std::uint8_t {
  LastGroup,     // the last group (an acq_rel device-scope counter says which) combines them
  SecondKernel,  // a second, small kernel (combine_plan) combines them; the in-order queue orders the two
  Consumer,      // they are this kernel's output (out0, `groups` per output); the row kernel reading the
                 // reduction combines them (a whole-array reduction used again: two kernels in all)
};

struct ReduceSpec {
  Op op = Op::Sum;
  DType acc = DType::Float32;  // accumulator type: the input's (the graph casts it), also the result's but for arg-reductions
  DType out = DType::Float32;
  std::int16_t input = -1;      // the instruction reduced
  std::int16_t divisor = -1;    // Mean: scalar slot of the divisor
  bool post_sqrt = false;       // std
  ReduceStrategy strategy = ReduceStrategy::GroupPerOutput;
  bool two_stage = false;       // the reduced range is split over `groups` work-groups, each writing a partial
  SplitFinish finish = SplitFinish::LastGroup;  // two_stage: who combines the partials
  bool combine = false;         // this plan is the second kernel: one group per output combines `groups` partials;
                                // Row: the grid form, one row (the whole array) over all work-groups, each of
                                // which combines the partials of the row's reduction itself
  std::uint16_t local_size = 256;
  // Row kernels, and GroupPerOutput reductions on GPUs (scheduler.cpp's
  // share_groups): a group computes `rows_per_group` rows, local_size /
  // rows_per_group work-items each (several short rows per group); with
  // row_chunks > 0 a work-item holds at most that many elements of its row
  // (positions lid, lid + T, ...), keeping what it loads in registers so
  // the row is read from memory once; 0: it loops over the row, re-reading it.
  std::uint16_t rows_per_group = 1;
  std::uint8_t row_chunks = 0;
  // Row kernels: how a row's work-items combine their partial results. 0: a
  // binary tree in local memory, a barrier per level; F: two levels, the
  // first F work-items of the row each combining every F-th partial, then
  // every work-item all F of them (or all of the row's, where it has at most
  // 2F work-items): two barriers or one, whatever the row's work-items.
  // plan_row takes F near the square root of the row's work-items.
  std::uint8_t row_fanin = 0;
  // Row kernels on NVIDIA GPUs: the lanes of a warp (32) whose work-items'
  // partials meet through shfl.sync (inline PTX) instead of local memory
  // (render_row.cpp's meet_partials): a row of at most that many
  // work-items needs no barrier, a longer one a barrier and one partial a
  // warp. 0: local memory only. Set where every group is whole warps.
  // Moment kernels with a group per output: their group's sums meet so
  // (render_moment.cpp's warp_sums).
  std::uint8_t row_warp = 0;
  // Row kernels, column form (render_row.cpp): rows along leading axes of a
  // C-order index space [outer, row, inner] (a softmax over axis 0). A
  // "row" of the group is then a vector of `width` neighbouring columns,
  // whose elements lie `inner` (the RowStride argument) apart; neighbouring
  // work-items take neighbouring columns, so each step down the rows reads
  // them together (coalesced on a GPU, one vector load on a CPU).
  bool row_columns = false;
  // The column form with rows along the last axes (CPUs' short rows): lane j
  // of vector o is row o * width + j, whose elements are consecutive, the
  // lanes m apart, and RowStride is the number of rows. A short row's own
  // vectors would leave most of it to scalar code (a row of 10 floats: all
  // of it), and its lanes to a combine per row. A ThreadPerOutput reduction
  // takes the same rows a lane each, W outputs a work-item
  // (render_reduce.cpp's lanes_rows).
  bool row_lanes = false;
  // The lanes form's row length, which its whole vectors take as the
  // constant it is: their rows are loaded and stored as whole vectors of the
  // block they fill, turned into lanes with shuffles (render_row_lanes.cpp).
  std::uint8_t row_lane_length = 0;
  // GroupPerOutput reductions over short rows on GPUs (scheduler.cpp's
  // lanes_for_rows; render_lane_rows.cpp): rows in lanes. A row of
  // row_vectors vectors of the plan's width (its length m, a constant of
  // the source) takes lanes_per_row neighbouring work-items, lane l loading
  // its vectors l, l + lanes_per_row, ... below row_vectors (where
  // lanes_per_row does not divide row_vectors, the last round leaves some
  // lanes idle); each work-item takes rows_per_item rows, local_size /
  // lanes_per_row apart, so each load of a warp reads one contiguous span
  // (whole rows), and the work-item has rows_per_item * ceil(row_vectors /
  // lanes_per_row) loads in flight. The row's lanes meet through warp
  // shuffles (row_warp) or a tree in local memory. rows_per_group is
  // rows_per_item * local_size / lanes_per_row. 0: not this form.
  std::uint8_t lanes_per_row = 0;
  std::uint8_t row_vectors = 0;
  std::uint8_t rows_per_item = 0;
  // Row kernels that loop over their rows (row_chunks 0, not the grid form):
  // softmax's max and its sum of exp(x - max) in one pass over the row
  // (render_row.cpp's online phase), where the plan has that pair
  // (codegen::online_softmax); the row is then read twice, not three times.
  bool row_online = false;
  // Row kernels in the register form: values of transcendental functions
  // that several phases read are computed again in each, not kept in
  // registers beside the row's loads (row::kept): where a work-item holds
  // many elements, keeping them would leave too few groups resident (the
  // scheduler's deep register form says when).
  bool row_recompute = false;
  // The register form in vectors over rows that are no multiple of the
  // width (render_row.cpp): a row's vectors start at the multiple of the
  // width at or below its first element (a_ lanes before it), so every
  // vector is aligned, and the lanes of its first and last vectors outside
  // the row (another row's elements) are left out of its reductions and
  // stores. Without it such rows are held an element at a time.
  bool row_skew = false;
  // Row kernels: float32 divisions by a value of the row's (softmax's sum, a
  // layer norm's deviation) multiply by its reciprocal, corrected to the
  // IEEE quotient, and the outputs are computed again with IEEE division
  // where a quotient falls outside the range where that is exact
  // (reciprocal.hpp). Set only where the plan has such a division.
  bool row_reciprocal = false;
  // Row kernels on GPUs held element by element (row_chunks > 0, width 1,
  // rows along the last axes, every load contiguous or uniform): the
  // group's rows, one contiguous span of the array, pass through local
  // memory in vectors of this many bytes (render_row_stage.cpp). Its
  // contiguous loads are read into local memory together, aligned, and
  // each work-item takes its elements from there; its outputs are written
  // there and stored together after a barrier. A short row's own loads are
  // a few elements a work-item, each warp's spread over rows (of 5 floats:
  // 32 rows' 640 bytes a load, in part). 0: none.
  std::uint8_t row_staged = 0;
  // Row kernels in whole vectors of 16 bytes held in registers, two work-
  // items a row (render_row.cpp): a row that starts in the middle of a 32-
  // byte sector (an odd number of vectors before it, so every other row
  // where a row holds an odd number) takes its vectors rotated by one, chunk
  // position q holding vector (q + 1) mod V. Each load and store instruction
  // then covers whole sectors: one row's last vector and the next row's
  // first, which share a sector, go in the same instruction. Such rows add
  // their sums in another order than their neighbours (within the same
  // bounds); the parity is the kernel's to compute, so any row length is right.
  bool row_rotate = false;
  // Row kernels: the row's length as a constant of the kernel's source (m,
  // the ReduceCount argument, then goes unread); 0: the argument. With it
  // the compiler drops the clamps of a row's loads and steps through a row
  // by constant offsets (render_row.cpp; plan_row.cpp and launch.cpp say
  // where it is taken).
  std::uint32_t row_length = 0;
  // Row kernels split over segments of their rows (render_row_split.cpp),
  // for rows too long to keep on chip: 1, the partials kernel, whose "rows"
  // are segments of ceil(ceil(m / S) / 16) * 16 elements (S the Groups
  // argument), each storing its reductions' partial results (out<j>, the
  // reduction plan.outputs[j]) at [segment * n + row]; 2, the output kernel,
  // whose segments combine the S partials of their row (reduction k's in
  // buffer slot c) and then compute the outputs over the segment. Only
  // reductions whose partials merge: none reads another, but for softmax's
  // (max, sum of exp(x - max)) pair and a variance's (mean, sum of squared
  // deviations) pair (codegen::split_pairs).
  std::uint8_t row_split = 0;
  // Moment kernels (render_moment.cpp; GroupPerOutput and ThreadPerOutput
  // only): 0, a plain reduction; 1, the variance of float32 `input` in one
  // pass, divided by scalar `divisor` (float64, n - ddof), its square root
  // with post_sqrt; 2, also the mean of `input` into out1, divided by scalar
  // divisor + 1 (float32, n). op is Mean, acc and out Float32, or both
  // Float64 for a float64 body (chan_moment: render_moment_chan.cpp).
  std::uint8_t moment = 0;
  // Moment kernels a work-item an output (render_moment.cpp's thread_sums):
  // the range may pass kMomentThreadValues values and is summed in blocks
  // of that many; false, in one loop (a short row's kernel, which the block
  // loops would cost registers and time).
  bool moment_blocks = false;
  // Reduce and moment kernels with strided loads (ndim > 0): how many of the
  // index dimensions, the first (with kept_inner the last), are kept (the
  // output's); the rest are reduced. Each output's kept coordinates are computed once, before its
  // loop (body.hpp's emit_reduced_coordinates).
  std::uint8_t kept_dims = 0;
  // ColumnBlock in vectors (render_reduce.cpp's column_block): the index
  // space is [reduced dims..., kept dims...] in C order (flat position
  // p = r * n + o), so that a load along the outputs is a row (StridedRow, or
  // Contiguous for sum(x, 0) of a C-order x) and `width` neighbouring outputs
  // are one vector load of each row, as an elementwise kernel reads it. The
  // group is local_size / column_rows work-items across (each a vector of
  // outputs) by column_rows down the rows: a GPU's 32 x 8 reads 512
  // neighbouring bytes of a row per warp; a CPU's 1 x 1 walks its columns
  // alone, in its core's vector registers, with no barrier.
  bool kept_inner = false;
  std::uint8_t column_rows = 0;
  // Softmax's pair in one pass, op Max: out0 the maximum of `input`, out1
  // the sum of exp(input - maximum), each the value of a reduction of the
  // graph (the scheduler's softmax pair); render_reduce.cpp's online_columns
  // (ColumnBlock in vectors, kept_inner: n a multiple of the width) and
  // online_groups (GroupPerOutput). Split parts leave both partials, (max,
  // sum relative to it), and a second kernel merges them (SecondKernel).
  bool online = false;
  // Compensated float sums in vectors (width > 1) keep this many
  // accumulators a work-item, each with its compensation, which meet in
  // vectors at the end, before one chain's lanes are added. GroupPerOutput
  // (render_reduce.cpp's chained_vector_sum): chain c takes vector q + c * L
  // of every step of C * L (L the row's work-items). Row kernels that loop
  // over their row (render_row.cpp's reduction_phase): the chain just added
  // to moves to the back after each step (vectors, rows down columns, rows in
  // lanes: the column and lanes forms too). The chains are independent, so
  // a core that runs the work-item alone overlaps their additions
  // (DeviceTuning::reduce_chains). 0 or 1: one chain.
  std::uint8_t chains = 0;
  // GroupPerOutput reductions in vectors (render_reduce_vectors.cpp's
  // vector_loop) and softmax's pair (render_reduce_online.cpp) on GPUs: a
  // row's work-items take its vectors in blocks of `blocks` loads each, the
  // same number of blocks for every work-item of the row, the last block's
  // loads past the row's end reading its last vector and folding the
  // reduction's identity (-inf for the pair) instead. Otherwise, where the
  // work-items of a row of 1000 floats took 7 or 8 vectors each, the lanes
  // with one more ran their last load alone after the others, a load's
  // latency more for the warp (scheduler.cpp gives the figures and when: 4
  // for loads of at most 4 bytes, 2 for 8-byte loads whose row's vectors
  // do not divide evenly among its work-items). 0: a loop
  // of single loads (as the compiler unrolls it), or the pair's blocks of
  // kOnlineBlock then single loads.
  std::uint8_t blocks = 0;
};

/// How many values a reduction plan computes: a moment kernel's variance
/// and mean, and softmax's pair's max and sum, two; every other one. Each is
/// an output, but where a finish (KernelPlan::finish) reads them.
inline int reduce_values(const ReduceSpec& rs) { return rs.moment == 2 || rs.online ? 2 : 1; }

/// Whether a moment kernel is of a float64 body, summed in blocks of
/// kMomentChanBlock a lane that meet in Chan's update
/// (render_moment_chan.cpp), which has its own forms and partials.
inline bool chan_moment(const ReduceSpec& rs) { return rs.moment != 0 && rs.acc == DType::Float64; }

/// The scratch bytes of one partial of a split moment kernel: its count,
/// mean, M2 and sum, and a chan_moment's x0, the frame of its mean
/// (body.hpp's moment_partial_pointers lays them out).
inline std::size_t moment_partial_bytes(const ReduceSpec& rs) { return chan_moment(rs) ? 40 : 32; }

/// A ColumnBlock group's shape: work-items across the block (each one
/// output, or with kept_inner a vector of them) by work-items down its rows.
struct ColumnGroup {
  int across, rows;
};
inline ColumnGroup column_group(const ReduceSpec& rs) {
  if (!rs.kept_inner) return {kColumnBlock, kColumnRows};
  return {rs.local_size / rs.column_rows, rs.column_rows};
}

/// Work-items of one tiled work-group: tile x (kTileWorkItems / tile), each
/// covering tile / rows elements of its column of the tile.
constexpr int kTileWorkItems = 256;
/// A CPU's tiled work-group (KernelPlan::tile_registers): kTileBlocks x
/// kTileBlocks work-items, each a block of tile x tile elements.
constexpr int kTileBlocks = 16;
struct KernelPlan;
int tile_rows(const KernelPlan& plan);

struct KernelPlan {
  KernelKind kind = KernelKind::Elementwise;
  std::vector<Instr> instrs;
  std::vector<std::int16_t> outputs;  // elementwise: instructions stored, in output order
  std::vector<DType> buffer_dtypes;   // by buffer slot
  std::vector<DType> scalar_dtypes;   // by scalar slot
  std::uint8_t ndim = 0;              // index dimensions passed as arguments (0: none needed)
  std::uint8_t width = 1;             // vector width of the contiguous path
  bool out_strided = false;           // elementwise: the output is stored through offset + strides (concatenate)
  bool aligned = false;               // every vector load starts at a multiple of the width: load through vector pointers
  // Elementwise, strided, width > 1, where the innermost dimension (a row) is
  // not a multiple of the width: a vector may run past its row's end into the
  // next row. Its loads that broadcast along rows (StridedRowBroadcast: a
  // softmax's statistics) take the next row's value in the lanes past the
  // end (render_elementwise); no load reads a row in place (StridedRow).
  bool cross_rows = false;
  // Every position whose coordinates the kernel computes (emit_coordinates)
  // fits 32 bits (the index space has fewer than 2^31 positions: src/
  // scheduler.hpp's index_space_fits_32): they are computed in 32-bit unsigned arithmetic, whose
  // division a GPU does in a few instructions where 64-bit takes a routine.
  // The scheduler sets it from the index space's dimensions (add_kernel);
  // launch refuses it on dimensions past that.
  bool index32 = false;
  // Elementwise, tiled (src/tiling.cpp decides): square tiles of `tile` x `tile`
  // elements over index dimensions ndim-1 (the output's innermost) and
  // `tile_axis` (the Tiled loads' innermost); 0: not tiled.
  std::uint8_t tile = 0;
  std::uint8_t tile_axis = 0;
  // Tiled on a CPU (DeviceTuning::tile_registers): each work-item owns a
  // `tile` x `tile` block and turns its Tiled loads' vectors (read along
  // tile_axis) into the block's rows in registers, with no local memory and
  // no barrier (render_tiled_registers.cpp); false: through local memory.
  bool tile_registers = false;
  ReduceSpec reduce;                  // kind == Reduce
  // Reduce (a plain reduction, softmax's pair or a moment kernel; not an
  // arg-reduction): the reduction's consumer, an elementwise function of its
  // values and scalars alone (sqrt(sum(x * x, 1)), a mean scaled, a
  // logsumexp's log(sum) + max, 1 / sqrt(var + eps)), computed where the
  // values are stored, so that it needs no kernel of its own
  // (src/reduce_finish.cpp says where). The first reduce_values entries are
  // the reduction's values as stored (op: the reduction's, dtype: its
  // output's; the pair's max then its sum, a moment's variance then its
  // mean); every later entry is a
  // scalar load (Op::Scalar, slot) or an elementwise op whose operands a, b,
  // c are earlier entries; the last is the one output, in its dtype
  // (reduce_output_dtype). Empty: the values themselves
  // (codegen/render_finish.cpp).
  std::vector<Instr> finish;

  bool uses_fp64() const;
};

/// How many outputs a reduction plan writes: its values (reduce_values), or its finish's one.
inline int reduce_outputs(const KernelPlan& plan) { return plan.finish.empty() ? reduce_values(plan.reduce) : 1; }

/// The dtype a reduction plan stores in out0: its finish's last value's, or reduce.out.
inline DType reduce_output_dtype(const KernelPlan& plan) {
  return plan.finish.empty() ? plan.reduce.out : plan.finish.back().dtype;
}

/// The scalar slots a plan's finish reads, each once, in the order of its
/// entries (combine_plan gives them to the second kernel in that order).
std::vector<std::int16_t> finish_scalar_slots(const KernelPlan& plan);

/// A rows-in-lanes plan's row length (ReduceSpec::lanes_per_row): its
/// row_vectors vectors of the plan's width.
inline std::int64_t lane_row_length(const KernelPlan& plan) {
  return std::int64_t(plan.reduce.row_vectors) * plan.width;
}

/// A rows-in-lanes plan's rounds of loads: the most vectors a lane takes,
/// ceil(row_vectors / lanes_per_row).
inline int lane_rounds(const ReduceSpec& rs) { return (rs.row_vectors + rs.lanes_per_row - 1) / rs.lanes_per_row; }

/// Compact bytes that determine the generated source exactly: every field of
/// the plan (through the hana adaptations at the end of this header), so two
/// plans have equal signatures exactly when all their fields are equal.
std::string signature(const KernelPlan& plan);

/// Whether the plan's source uses OpenCL C 2.0 atomics (and so must be built
/// with an -cl-std of 2.0 or later).
bool uses_c11_atomics(const KernelPlan& plan);

/// The second kernel of a split reduction finished by SplitFinish::SecondKernel:
/// reads the partials `plan` left in scratch and stores the results (mean's
/// divisor, when there is one, is its only scalar, slot 0). The partials of
/// output o's part k lie at o * groups + k, a group per output combining
/// them; a ColumnBlock in vectors (kept_inner) and softmax's pair (online)
/// leave them at k * n + o, so that vectors of outputs store them together,
/// and their combine is a work-item per output (ThreadPerOutput), whose
/// neighbours read neighbours.
KernelPlan combine_plan(const KernelPlan& plan);

/// Kernel parameters, in declaration order. The launcher fills them from the
/// argument values the scheduler collected, by role; codegen declares them.
enum class ParamRole : std::uint8_t {
  Output,      // index: output number
  Input,       // index: buffer slot
  Scalar,      // index: scalar slot
  Count,       // number of elements of the index space (elementwise) / outputs (reduce)
  ReduceCount, // reduce: length of the reduced range
  Dim,         // index: dimension
  Divider,     // index: dimension (index32: its divider, divider.hpp, a uint2)
  Offset,      // index: instruction (a Buffer or Generate load)
  Stride,      // index: instruction, sub: dimension
  GenParam,    // index: instruction, sub: which parameter
  Scratch,     // reduce, split: partial results (arg-reductions: indices first, then values)
  Counters,    // reduce, split and finished by the last group: per-output counters, zero between launches
  Groups,      // reduce: work-groups per output
  OutOffset,   // strided output: offset
  OutStride,   // strided output: index: dimension
  RowStride,   // row, column form: the distance between neighbouring elements of a row (the inner extent); with row_lanes, the rows
};

struct Param {
  ParamRole role;
  std::int16_t index = 0;
  std::int16_t sub = 0;
};

/// A kernel's parameters in order. Made for every launch: held in place up
/// to a size that covers most kernels (no allocation per evaluation).
using ParamList = boost::container::small_vector<Param, 32>;
ParamList params(const KernelPlan& plan);

/// Bytes of all kernel arguments (to compare with CL_DEVICE_MAX_PARAMETER_SIZE,
/// which may be as small as 1 KiB).
std::size_t param_bytes(const KernelPlan& plan);

/// Number of parameters a generator of `kind` producing `dtype` takes, and
/// whether they are integers (long) or of the dtype's float type.
int gen_param_count(GenKind kind);

}  // namespace fusecl::codegen

namespace fusecl::codegen {
/// The dtype of generator parameter g of a Generate instruction producing `out`.
DType gen_param_dtype(GenKind kind, DType out, int g);
}  // namespace fusecl::codegen

// Every field of the plan shapes the generated source, so signature() writes
// all of them, walking these adaptations. RULE: a field added to Instr,
// ReduceSpec or KernelPlan is added to its list here too (in any position;
// the order only fixes the signature's byte layout). The static_asserts count
// each struct's fields and refuse to compile while one is missing, so a new
// field can never be left out of the key and silently reuse a stale kernel.
BOOST_HANA_ADAPT_STRUCT(fusecl::codegen::Instr, op, dtype, a, b, c, slot, access, gen);
BOOST_HANA_ADAPT_STRUCT(fusecl::codegen::ReduceSpec, op, acc, out, input, divisor, post_sqrt, strategy, two_stage,
                        finish, combine, local_size, rows_per_group, row_chunks, row_fanin, row_warp, row_columns, row_lanes, row_lane_length, lanes_per_row, row_vectors, rows_per_item, row_online,
                        row_recompute, row_skew, row_reciprocal, row_staged, row_rotate, row_length, row_split, moment, moment_blocks, kept_dims, kept_inner, column_rows, online, chains, blocks);
BOOST_HANA_ADAPT_STRUCT(fusecl::codegen::KernelPlan, kind, instrs, outputs, buffer_dtypes, scalar_dtypes, ndim, width,
                        out_strided, aligned, cross_rows, index32, tile, tile_axis, tile_registers, reduce, finish);
static_assert(fusecl::codegen::reflects_every_field<fusecl::codegen::Instr>(),
              "BOOST_HANA_ADAPT_STRUCT(Instr, ...) must list every field of Instr");
static_assert(fusecl::codegen::reflects_every_field<fusecl::codegen::ReduceSpec>(),
              "BOOST_HANA_ADAPT_STRUCT(ReduceSpec, ...) must list every field of ReduceSpec");
static_assert(fusecl::codegen::reflects_every_field<fusecl::codegen::KernelPlan>(),
              "BOOST_HANA_ADAPT_STRUCT(KernelPlan, ...) must list every field of KernelPlan");
