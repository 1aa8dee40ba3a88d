// Elementwise and reduction kernels' plans: the body of each kernel from the
// graph, its index space, vector width, and work-group layout (a work-item or
// a group per output, column blocks, parts split over groups); softmax's and
// a variance's pairs of reductions in one kernel. plan_row.cpp plans the
// row kernels.
#include "src/scheduler.hpp"

#include "src/body_builder.hpp"
#include "src/lane_rows.hpp"

#include "codegen/body.hpp"
#include "codegen/spelling.hpp"
#include "fusecl/error.hpp"
#include "src/tiling.hpp"
#include "src/views.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace fusecl::detail {

using codegen::Access;
using codegen::Instr;

const NodePtr& body_root(const NodePtr& root) { return root->op == Op::Contiguous ? root->inputs[0] : root; }

ScheduledKernel plan_elementwise(std::span<const NodePtr> roots, const DeviceTuning& tuning, const OutLayout* out_layout,
                                 const PendingOutputs* pending) {
  const Shape& shape = roots.front()->shape;
  BodyBuilder b(shape, pending);
  for (const auto& r : roots) {
    const NodePtr& body = body_root(r);
    std::int16_t v = b.visit(body);
    // A 0-d or uniform value still needs its own output slot per root.
    b.plan.outputs.push_back(v);
  }
  std::vector<int> perm(std::size_t(shape.ndim())), group(std::size_t(shape.ndim()), 0);
  for (int i = 0; i < shape.ndim(); ++i) perm[std::size_t(i)] = i;
  std::vector<std::int64_t> ost;
  if (out_layout) ost = out_layout->strides;
  IndexSpace sp = collapse(b, shape, perm, group, out_layout ? &ost : nullptr);
  const bool strided = out_layout || std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided ? std::uint8_t(sp.dims.size()) : 0;
  if (strided) b.args.dims = sp.dims;
  if (out_layout) {
    b.plan.out_strided = true;
    b.args.out_offset = out_layout->offset;
    b.args.out_strides = std::move(ost);
  }
  const std::int64_t inner = sp.dims.empty() ? 1 : sp.dims.back();
  b.plan.width = std::uint8_t(choose_width(b.plan, tuning.vector_bytes, inner));
  // Rows that are no multiple of the width: vectors that may cross into the
  // next row, where no load reads rows in place, rather than a work-item an
  // element. Rows at least a vector long, so a vector meets two rows at most.
  if (tuning.cross_rows && can_cross_rows(b.plan)) {
    const int full = widest_width(b.plan, tuning.vector_bytes);
    if (full > b.plan.width && inner >= full) {
      b.plan.width = std::uint8_t(full);
      b.plan.cross_rows = true;
    }
  }
  b.plan.aligned = vector_loads_aligned(b.plan, b.args);
  b.args.count = shape.size();
  const char* tiling = choose_tiling(b.plan, b.args, tuning);
  return {std::move(b.plan), std::move(b.args), tiling};
}

namespace {

// A reduction plan split into `g` parts of each output's range (none where
// g is 1), finished by `finish`. A moment's group sums at most
// kMomentGroupValues values around one shift (its accuracy bound), so it
// takes more parts where its range is longer, whatever the device. The
// scratch holds the partials: arg-reductions' indices, then the values
// (render_reduce.cpp); a moment's count and three float64s each
// (render_moment.cpp), four of a float64 moment (render_moment_chan.cpp);
// softmax's pair's maxima, then sums.
void set_parts(BodyBuilder& b, std::int64_t n, std::int64_t m, std::int64_t g, bool arg, codegen::SplitFinish finish) {
  auto& rs = b.plan.reduce;
  if (rs.moment && n > 0) g = std::max(g, std::min<std::int64_t>(4096, (m + codegen::kMomentGroupValues - 1) / codegen::kMomentGroupValues));
  rs.two_stage = g > 1;
  if (rs.two_stage) rs.finish = finish;
  b.args.groups = g;
  if (rs.two_stage)
    b.args.scratch_bytes = rs.moment  ? std::size_t(n * g) * codegen::moment_partial_bytes(rs)
                           : rs.online ? std::size_t(2 * n * g * size_of(rs.acc))
                                       : std::size_t((arg ? n * g * 8 : 0) + n * g * size_of(rs.acc));
}

// Several short rows a work-group (ReduceSpec::rows_per_group) on GPUs,
// where the layout above gives a row a group of at most a warp's 32
// work-items: too small a group for the device to keep enough of them in
// flight (an H200 holds at most 32 groups an SM, so 32 work-items of its
// 64 a scheduler can keep). Then each row takes the most work-items (a
// power of two) that hold kSharedRowElements elements or more each, one
// where two would not, and the group as many rows as fill
// tuning.local_size, fewer where the groups would not fill the device.
// Only rows within a warp share a group (with warp shuffles a row of a
// whole warp too, meeting with no barrier): a row of whole warps meeting in
// local memory takes a barrier a level, which a larger group makes every
// one of its rows wait for. On an H200, 2^26 floats, sum / max / var over
// rows of 64: 68 / 69 / 83 us against 635 with a group a row
// (torch.compile 70 / 73 / 90); rows of 256: 65 / 65 / 74 against 162 (69
// / 68 / 71); rows of 24 a work-item each: 83 / 81 / 81 against 88 / 92 /
// 98 with two (bench/RESULTS.md, thirty-seventh and thirty-eighth
// sessions).
// A CPU (row_items_cap 1), whose work-group is a loop over its work-items
// on one core, gives every row one work-item, looping over it in vectors (in
// chains: reduce_chains), and a group tuning.local_size rows: a group of
// work-items a row left most of them idle over short rows, and met in local
// memory behind barriers. The 2-core PoCL machine, 2^22 floats, sum / max /
// var (us): rows of 20 11489 / 31540 / 14358 -> 1488 / 2087 / 1291; of 32
// 7838 / 19964 / 8850 -> 606 / 1135 / 756; of 128 2183 / 5294 / 2511 -> 234 /
// 554 / 320; of 1024 430 / 1241 / 635 -> 199 / 415 / 215; of 16384 266 / 576
// / 342 -> 198 / 384 / 206 (bench/RESULTS.md, fifty-first session). Rows
// of 16: vector_short_rows.
constexpr std::int64_t kSharedRowElements = 16;
constexpr int kOnlineSharedItems = 64;
bool shares_groups(const DeviceTuning& tuning) { return tuning.row_items_cap == 1 || tuning.local_size >= 64; }
// The loads a row of nvec vectors takes where each of its T work-items
// takes as many blocks of B vectors (ReduceSpec::blocks): the last block's
// past the row's end load nothing of use.
std::int64_t block_slots(std::int64_t nvec, int T, int B) {
  const std::int64_t block = std::int64_t(T) * B;
  return block * ((nvec + block - 1) / block);
}

void share_groups(codegen::ReduceSpec& rs, std::int64_t n, std::int64_t m, const DeviceTuning& tuning, std::int64_t online_row_elements = 0) {
  // Softmax's pair in groups of at most 64 work-items: on an H100, 2^26
  // floats, logsumexp over rows of 64 / 128 / 256 / 512 took 95.6 / 92.6 /
  // 91.3 / 92.0 us so against 97.7 / 94.4 / 94.1 / 96.2 in groups of 256
  // (torch.compile 95.0 / 98.1 / 93.2 / 91.8). Groups of 32 did as well as
  // 64, which keep a wavefront of 64 whole (bench/RESULTS.md, sixty-seventh
  // session).
  const int L = rs.online ? std::min(tuning.local_size, kOnlineSharedItems) : tuning.local_size;
  if (!shares_groups(tuning) || rs.local_size > 32) return;
  int T = 1;
  if (tuning.row_items_cap > 1) {
    T = L;
    // A float64 moment's work-items over rows of 128 or more hold 32 values
    // each: on an H100, var of 2^26 doubles over rows of 128 / 256 took 203
    // / 198 us so against 213 / 216 with 16, but over rows of 32 232
    // against 217 (fifty-ninth session).
    const std::int64_t per = rs.online ? online_row_elements : codegen::chan_moment(rs) && m >= 128 ? 32 : kSharedRowElements;
    while (T > 1 && T * per > m) T /= 2;
    // Softmax's pair: not a row of a whole warp (logsumexp over rows of
    // 1024 on an H100: 95 us so against 91, sixty-sixth session).
    if (T > 32 || (T == 32 && (tuning.row_warp != 32 || rs.online))) return;
  }
  int R = L / T;
  while (R > 1 && (n + R - 1) / R < std::int64_t(tuning.target_groups)) R /= 2;
  if (R <= 1) return;
  rs.rows_per_group = std::uint16_t(R);
  rs.local_size = std::uint16_t(R * T);
}

// Rows of 8 and 16 along the last axis on a GPU or a CPU, with rows enough
// for two a group: a work-item a row in vectors, many rows a group
// (share_groups), rather than a work-item an output in scalars. On an H200, 2^26 floats,
// sum / max / var over rows of 16: 72 / 71 / 86 us against 137 / 141 / 141
// (torch.compile 70 / 70 / 84); sum / max over rows of 8: 75 / 80 against
// 74 / 87. Not var over rows of 8 since its work-item-an-output form ends
// in one division (render_moment.cpp's thread_sums): 75 us so against 88
// (torch.compile 73; thirty-ninth session). Rows of 4 and 12 measured
// slower so (sum 111 against 86, 84 against 72) and keep a work-item an
// output.
// A CPU (row_items_cap 1), whose vectors are of 16 floats, takes it for
// rows of 16 where a work-item an output would add them one by one with
// Kahan's compensation or a moment's float64 sums: on the 2-core PoCL
// machine at 2^22 floats sum / var 944 / 1363 us against 5268 / 1909, but
// max 2119 against 1900 (medians of two rounds); rows of 8 (no whole
// vector) sum / max in 6.4 / 6.2 ms so against 4.2 / 1.9 (fifty-first
// session).
bool vector_short_rows(std::int64_t n, std::int64_t m, bool arg, bool online, bool moment, bool compensated, bool across_rows,
                       const DeviceTuning& tuning) {
  const bool gpu = tuning.row_items_cap > 1;
  const bool lengths = gpu ? m == 16 || (m == 8 && !moment) : m == 16 && (moment || compensated);
  return lengths && !arg && !online && !across_rows && shares_groups(tuning) && n >= 2 * std::int64_t(tuning.target_groups);
}

// A ColumnBlock plan's parts: where its blocks of `per_block` outputs are
// too few to keep the device busy, the rows are split into parts (of at
// least 64 rows a work-item, `rows` work-items down each block), combined by
// a second kernel. With column_one_wave the parts are as many as fit in
// target_groups (rounded down: blocks * parts <= target_groups), else enough
// to reach it (rounded up).
void split_column_blocks(BodyBuilder& b, std::int64_t n, std::int64_t m, std::int64_t per_block, std::int64_t rows, bool arg,
                         const DeviceTuning& tuning) {
  const std::int64_t blocks = (n + per_block - 1) / per_block;
  std::int64_t g = 1;
  if (blocks < tuning.target_groups) {
    const std::int64_t want = tuning.column_one_wave ? tuning.target_groups / blocks
                                                     : (tuning.target_groups + blocks - 1) / blocks;
    const std::int64_t useful = std::max<std::int64_t>(1, m / (rows * 64));
    g = std::clamp<std::int64_t>(std::min(want, useful), 1, 4096);
  }
  set_parts(b, n, m, g, arg, codegen::SplitFinish::SecondKernel);
}

// The size of the widest element the plan loads from a buffer (0: none).
int widest_load_bytes(const codegen::KernelPlan& plan) {
  int most = 0;
  for (const auto& in : plan.instrs)
    if (in.op == Op::Buffer) most = std::max(most, int(size_of(in.dtype)));
  return most;
}

// ColumnBlock in vectors of `width` neighbouring outputs (codegen
// ReduceSpec::kept_inner), where the outputs' neighbours are the loads'
// neighbours: the index space taken again as [reduced..., kept...], so that
// every load along the outputs is a row read in vectors, as an elementwise
// kernel reads it. Not where some load gathers along the outputs or the
// widest vector would leave a tail (then the width is 1 and the space is
// taken back). True if b now holds that plan.
bool column_vectors(BodyBuilder& b, const Shape& logical, const std::vector<int>& axes, std::int64_t n, std::int64_t m,
                    const DeviceTuning& tuning) {
  auto& rs = b.plan.reduce;
  const Op combine = reduce_info(rs.op).combine;
  // A moment kernel (var/std in one pass) taking this form is one pass in
  // vectors (render_moment.cpp's column_sums) where pair kernels are on
  // (DeviceTuning::pair_kernels) and the vectors are whole (plan_moment);
  // else plan_moment declines it: the mean, then the mean of squared
  // deviations, both in vectors. On the 2-core PoCL machine var over axis 0
  // of 4096 x 4096 floats took 3.9 ms in one pass, 12 in two, 50 as a
  // work-item per column walking down it (NumPy 24). With pair kernels off
  // a GPU keeps its earlier forms (a work-item per output, or two passes).
  const bool gpu_moment = rs.moment && tuning.row_items_cap > 1;
  // argmin / argmax: each lane its output's best value and that value's
  // row, in ints of the value's size where the rows' indices fit them
  // (render_reduce.cpp's column_block). As a work-item per output down its
  // column, argmax over axis 0 of 4096 x 1024 floats took 11.0 ms on the
  // 2-core PoCL machine (max 1.0); on an H100, of 4096 x 16384, 226 us
  // (torch.compile 95; bench/RESULTS.md, fifty-seventh session).
  const bool arg = reduce_info(rs.op).finish == Finish::Index;
  if (arg && !arg_lanes_fit(rs, m)) return false;
  if ((gpu_moment && !tuning.pair_kernels) ||
      (combine != Op::Add && combine != Op::Mul && combine != Op::Maximum && combine != Op::Minimum) || rs.acc == DType::Bool)
    return false;
  std::vector<int> perm, group;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < logical.ndim(); ++i) {
      const bool reduced = std::binary_search(axes.begin(), axes.end(), i);
      if (reduced != (pass == 0)) continue;
      perm.push_back(i);
      group.push_back(pass == 0 ? 1 : 0);
    }
  const std::vector<Access> before = [&] {
    std::vector<Access> a;
    for (const auto& in : b.plan.instrs) a.push_back(in.access);
    return a;
  }();
  const auto saved_strides = b.args.strides;
  const IndexSpace sp = collapse(b, logical, perm, group);
  const bool strided = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  const std::uint8_t ndim_before = b.plan.ndim;
  b.plan.ndim = strided ? std::uint8_t(sp.dims.size()) : 0;
  int w = 1;
  if (!sp.dims.empty() && sp.group.back() == 0) {
    w = choose_width(b.plan, tuning.vector_bytes, sp.dims.back());
    // A GPU's columns of bytes (every load 1 byte: int8, uint8, bool) take
    // 8 lanes, so that each row's load is 8 bytes a work-item (the width
    // rule takes the widest type: a sum's int64, 2 lanes in 16-byte
    // vectors; an int8 max's 16; an argmax's int32 4): where the
    // accumulator is a byte too (max, min), or the 8-lane blocks are at
    // least 8. On an H100, int8 down columns, us, 8 lanes against the rule's
    // (bench/RESULTS.md, sixtieth session):
    //   4096 x 16384 (64 blocks): sum 42.0 / 45.8, max 38.1 / 44.1, argmax 49.0 / 62.5
    //   32768 x 2048 (8 blocks):  sum 45.1 / 45.2, max 41.4 / 46.9, argmax 56.7 / 66.7
    //   65536 x 1024 (4 blocks):  sum 49.2 / 47.2, max 44.5 / 49.7, argmax 66.0 / 73.3
    //   262144 x 256 (1 block):   sum 69.9 / 52.8, max 63.2 / 77.4, argmax 117.6 / 97.9
    // (Few blocks split their rows into many parts and a second kernel; why
    // wide accumulators lose there was not measured.)
    const std::int64_t blocks8 = n / (std::int64_t(std::max(1, tuning.column_items)) * 8);
    if (tuning.column_items > 1 && widest_load_bytes(b.plan) == 1 && (size_of(rs.acc) == 1 || blocks8 >= 8)) {
      w = b.plan.ndim != 0 ? tiling_width(8, sp.dims.back()) : 8;
    }
    // Contiguous outputs (ndim 0): the last vector may pass n (its lanes are
    // taken one at a time), but a vector wider than the outputs would be all tail.
    while (w > 1 && w > n) w /= 2;
  }
  // Softmax's pair takes whole vectors of outputs only: no tail where n is
  // no multiple of w (a moment kernel's is declined by plan_moment).
  if (w <= 1 || (rs.online && b.plan.ndim == 0 && n % w != 0)) {
    for (std::size_t k = 0; k < before.size(); ++k) b.plan.instrs[k].access = before[k];
    b.args.strides = saved_strides;
    b.plan.ndim = ndim_before;
    return false;
  }
  b.args.dims = strided ? sp.dims : std::vector<std::int64_t>{};
  rs.kept_dims = strided ? std::uint8_t(std::count(sp.group.begin(), sp.group.end(), 0)) : 0;
  rs.kept_inner = true;
  rs.strategy = codegen::ReduceStrategy::ColumnBlock;
  b.plan.width = std::uint8_t(w);
  int across = std::max(1, tuning.column_items), down = std::max(1, tuning.column_rows);
  // A GPU's argmin / argmax of 4-byte values down columns (float32, int32;
  // not the int32 an int8's values widen to): twice the rows a group. On an
  // H100, float32, us (8 rows; torch.compile in the same run): 4096 x 16384
  // 97 (104; 95), 1024 x 65536 92 (95; 103), 16384 x 4096 102 (109; 270),
  // 65536 x 1024 121 (128; 527), argmin 8192 x 8192 99 (105; 158); 32 rows
  // 2-4 us slower than 16. Not float64: 4096 x 16384 took 191 with 16
  // against 181 with 8 (torch.compile 180) (bench/RESULTS.md, sixty-sixth
  // session).
  if (arg && down > 1 && size_of(rs.acc) == 4 && widest_buffer_bytes(b.plan) == 4) down *= 2;
  // Within the device's largest group (some take fewer than a GPU's 32 x 8):
  // fewer rows at a time first, so that a row's reads stay together.
  while (std::size_t(across) * std::size_t(down) > std::max<std::size_t>(1, tuning.max_work_group_size)) {
    if (down > 1) down /= 2;
    else across /= 2;
  }
  rs.column_rows = std::uint8_t(down);
  rs.local_size = std::uint16_t(across * down);
  split_column_blocks(b, n, m, std::int64_t(across) * w, down, arg, tuning);
  return true;
}

// A reduction kernel for `root` over `x`: root's input, or for a moment
// kernel (moment 1 or 2, see codegen::ReduceSpec) the float32 or float64 array whose
// var/std root is (and, with moment 2, whose mean `mean` is).
// With `online`, softmax's pair: root is the max of x, the kernel's second
// output the sum of exp(x - max) (codegen ReduceSpec::online).
ScheduledKernel plan_reduction(const Node& root, const NodePtr& x, int moment, const Node* mean, bool online, const DeviceTuning& tuning,
                               const PendingOutputs* pending) {
  const Shape& logical = x->shape;
  BodyBuilder b(logical, pending);
  auto& rs = b.plan.reduce;
  b.plan.kind = codegen::KernelKind::Reduce;
  rs.op = root.op;
  rs.acc = x->dtype;
  rs.out = root.dtype;
  rs.input = b.visit(x);
  rs.post_sqrt = root.reduce().post_sqrt;
  rs.moment = std::uint8_t(moment);
  rs.online = online;
  if (moment) {
    // The variance's divisor in float64 (it divides the float64 sum of squares),
    // the mean's as the mean kernel has it.
    rs.divisor = std::int16_t(b.plan.scalar_dtypes.size());
    b.plan.scalar_dtypes.push_back(DType::Float64);
    b.args.scalars.push_back(float_bits(DType::Float64, root.reduce().divisor));
    if (moment == 2) {
      b.plan.scalar_dtypes.push_back(rs.acc);
      b.args.scalars.push_back(float_bits(rs.acc, mean->reduce().divisor));
    }
  } else if (reduce_info(root.op).finish == Finish::Mean) {
    rs.divisor = std::int16_t(b.plan.scalar_dtypes.size());
    b.plan.scalar_dtypes.push_back(rs.acc);
    b.args.scalars.push_back(float_bits(rs.acc, root.reduce().divisor));
  }

  // Index space: kept axes first, reduced axes last, never merged across.
  std::vector<int> perm, group;
  std::int64_t n = 1, m = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < logical.ndim(); ++i) {
      const bool reduced = std::binary_search(root.reduce().axes.begin(), root.reduce().axes.end(), i);
      if (reduced != (pass == 1)) continue;
      perm.push_back(i);
      group.push_back(pass);
      (reduced ? m : n) *= logical.dims()[std::size_t(i)];
    }
  IndexSpace sp = collapse(b, logical, perm, group);
  const bool strided = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided ? std::uint8_t(sp.dims.size()) : 0;
  if (strided) {
    b.args.dims = sp.dims;
    rs.kept_dims = std::uint8_t(std::count(sp.group.begin(), sp.group.end(), 0));
  }
  b.args.count = n;
  b.args.reduce_count = m;

  // A work-item per output where the reduced range is short, or read across
  // rows while there are enough outputs to fill the device (then neighbouring
  // work-items read neighbouring elements); otherwise a work-group per output,
  // split over several groups when there are too few outputs to keep the
  // device busy.
  const int L = tuning.local_size;
  rs.local_size = std::uint16_t(L);
  const bool arg = reduce_info(rs.op).finish == Finish::Index;
  // "Across rows": some load steps through the reduced range with a stride other
  // than 0 or 1 (a column reduction); a work-group would read it scattered.
  const bool across_rows = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return i.access == Access::Strided && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  // Between the two, a column reduction with at least a block of outputs:
  // a work-group per block of neighbouring outputs reads each row's block
  // together, where a group per output would read one element per row.
  const std::int64_t block = codegen::kColumnBlock, block_items = block * codegen::kColumnRows;
  if (m > 16 && across_rows && tuning.column_blocks && column_vectors(b, logical, root.reduce().axes, n, m, tuning))
    return {std::move(b.plan), std::move(b.args)};
  if (lanes_for_rows(b, n, m, arg, online, across_rows, tuning)) return {std::move(b.plan), std::move(b.args)};
  if (rows_in_lanes(b, n, m, arg, online, tuning)) return {std::move(b.plan), std::move(b.args)};
  const bool compensated = is_float(rs.acc) && reduce_info(rs.op).summation == Summation::Kahan;
  if ((m <= 16 && !vector_short_rows(n, m, arg, online, rs.moment != 0, compensated, across_rows, tuning)) ||
      (across_rows && n >= std::int64_t(tuning.target_groups) * 64)) {
    rs.strategy = codegen::ReduceStrategy::ThreadPerOutput;
    b.plan.width = 1;
    rs.moment_blocks = rs.moment && m > codegen::kMomentThreadValues;
  } else if (across_rows && n >= block && tuning.column_blocks &&
             tuning.max_work_group_size >= std::size_t(block_items)) {
    rs.strategy = codegen::ReduceStrategy::ColumnBlock;
    b.plan.width = 1;
    split_column_blocks(b, n, m, block, codegen::kColumnRows, arg, tuning);
  } else {
    rs.strategy = codegen::ReduceStrategy::GroupPerOutput;
    // Arg-reductions in vectors too, each lane's index beside its value
    // (render_reduce_vectors.cpp's arg_vectors), in ints of the value's
    // size: where the row's indices fit them. With a group a row in
    // scalars, PoCL took 14755 / 7792 / 4728 / 2945 us for argmax over rows
    // of 64 / 256 / 1024 and over 2^22 floats; so 1551 / 835 / 604 / 761
    // (bench/RESULTS.md, fifty-third session). A GPU's too, over rows of 8
    // vectors or more: on an H100, 2^26 floats, rows of 40 / 100 / 256 /
    // 1000 / 4096 took 118 / 118 / 109 / 110 / 91 us so against 123 / 155 /
    // 165 / 160 / 146 in scalars (torch.compile 151 / 124 / 96 / 92 / 103),
    // but rows of 17 (4 vectors and one more) 138 against 116 (fifty-seventh
    // session).
    const std::int64_t lanes = tuning.vector_bytes / size_of(rs.acc);
    const bool arg_vectors = arg && (tuning.row_items_cap == 1 || m >= 8 * lanes) && arg_lanes_fit(rs, m);
    b.plan.width = arg && !arg_vectors ? 1 : std::uint8_t(choose_width(b.plan, tuning.vector_bytes, sp.dims.empty() ? 1 : sp.dims.back()));
    // A CPU's work-item a row over rows of fewer than 4 vectors of 16
    // lanes (3 for moments): vectors of 8, so that fewer lanes meet at the
    // end and fewer elements are left past the last whole vector. On PoCL,
    // 2^22 floats, 16 lanes against 8, rows of 40 / 56: sum 615 / 522 us
    // against 388 / 390, max 577 / 504 against 449 / 424, argmax 2107 /
    // 1618 against 1644 / 1459; var over rows of 33 / 40 864 / 732 against
    // 610 / 512, but over rows of 56 582 against 624 (one reading); rows of
    // 64 level (bench/RESULTS.md, fifty-fourth session). The GPU machine's
    // 16-core Xeon (PoCL 5.0) agreed, 1.2-1.8x over rows of 33 to 56; 1- and
    // 2-byte values in 8 lanes were level or faster (max of uint8 over rows
    // of 24 / 33 / 40 on the 2-core machine: 355 / 302 / 216 us against 468 /
    // 385 / 279; fifty-fifth session). Doubles (8 lanes) are not narrowed.
    if (tuning.row_items_cap == 1 && !online && b.plan.width == 16 && m < (rs.moment ? 48 : 64)) b.plan.width = 8;
    // Vectors start at o * m + r with r a multiple of the width.
    b.plan.aligned = (m % b.plan.width == 0 || n == 1) && vector_loads_aligned(b.plan, b.args);
    // Short rows: a smaller group, so the tree in local memory does not dominate.
    int local = L;
    // A float64 moment's at least 32 vectors a work-item (its Chan's
    // updates cost divisions a work-item): on an H100, var of 2^26 doubles
    // over rows of 1024 / 2048 / 8192 took 183 / 183 / 191 us so against
    // 197 / 210 / 201 with 8 (fifty-ninth session).
    const std::int64_t per_item = codegen::chan_moment(rs) ? 32 : 8;
    while (local > 32 && std::int64_t(local) * b.plan.width * per_item > m) local /= 2;
    rs.local_size = std::uint16_t(local);
    std::int64_t g = 1;
    if (n > 0 && n < tuning.target_groups) {  // n == 0: no outputs, nothing is launched
      const std::int64_t want = (tuning.target_groups + n - 1) / n;
      const std::int64_t useful = std::max<std::int64_t>(1, m / (std::int64_t(rs.local_size) * b.plan.width * 8));
      g = std::clamp<std::int64_t>(std::min(want, useful), 1, 4096);
    }
    // A moment's parts: see set_parts (a CPU's few groups per output would
    // otherwise sum rows of any length in one). Softmax's pair is finished
    // by a second kernel (render_reduce.cpp's thread_combine).
    set_parts(b, n, m, g, arg, online ? codegen::SplitFinish::SecondKernel : tuning.split_finish);
    // Arg-reductions too (each row's value and index meet in its part of
    // local memory): on an H100, 2^26 floats, argmax over rows of 17 / 40 /
    // 100 / 256 took 115 / 121 / 155 / 165 us against 2379 / 1013 / 559 /
    // 262 with a group a row (bench/RESULTS.md, fifty-fifth session).
    // A GPU's softmax pair too (each row's work-items hold per_item vectors
    // each), where a row is less than a warp (see the warps below).
    if (!rs.two_stage && (!online || tuning.row_items_cap > 1)) share_groups(rs, n, m, tuning, online ? per_item * b.plan.width : 0);
    // Independent compensated chains where one work-item's additions bound a core.
    if (b.plan.width > 1 && tuning.reduce_chains > 1 && is_float(rs.acc) && !rs.moment &&
        reduce_info(rs.op).summation == Summation::Kahan)
      rs.chains = std::uint8_t(tuning.reduce_chains);
    // A GPU's row in blocks of 4 loads a work-item, as many blocks for each
    // of the row's work-items, the last predicated (ReduceSpec::blocks):
    // where a row's vectors are no multiple of its work-items, the ones with
    // a vector more ran it alone, a load's latency more. On an H100, 2^26
    // floats, us, against a loop of single loads (torch.compile): max over
    // rows of 500 / 768 / 1000 / 1500 / 3000 89.5 / 88.7 / 88.2 / 87.8 / 88.2
    // against 102.2 / 94.8 / 99.6 / 89.6 / 90.7 (90.5 / 89.8 / 89.4 / 89.6 /
    // 88.3); sum over rows of 500 / 1000 89.2 / 88.2 against 92.5 / 90.4
    // (93.7 / 89.4), of int32 over rows of 1000 89.6 against 98.1 (90.4);
    // logsumexp over rows of 500 / 1000 / 1500 / 2000 / 3000 95.6 / 95.3 /
    // 94.1 / 92.7 / 94.4 against 105.2 / 103.9 / 106.3 / 101.1 / 102.6
    // (91.7 / 91.1 / 200.9 / 151.9 / 192.7); rows of 1024 / 4096 level (88.0
    // / 87.4 against 88.0 / 87.3; bench/RESULTS.md, sixty-seventh session).
    // Loads of 8-byte values in blocks of 2, where the row's vectors do not
    // divide evenly among its work-items: min of float64 over rows of 1000 /
    // 2000 took 174.5 / 173.3 us so against 207.5 / 181.5 (torch.compile
    // 176.9 / 176.2), sum over rows of 2000 173.1 against 174.5 (174.2); in
    // blocks of 4 175.0 / 198.6. Over rows of 4096 (2048 vectors, 256
    // work-items) 176.5 against 172.1, so not where they divide evenly
    // (sixty-eighth session). Not softmax's pair of float64 (not measured in
    // blocks).
    if (tuning.row_items_cap > 1 && b.plan.width > 1 && !arg && !rs.moment && rs.chains <= 1) {
      const int bytes = widest_buffer_bytes(b.plan);
      if (bytes <= 4) rs.blocks = 4;
      else if (bytes == 8 && !online && (m / b.plan.width) % codegen::group_row_items(rs) != 0) rs.blocks = 2;
    }
    // Softmax's pair over rows shared by a group (share_groups): half the
    // row's work-items, each then taking more blocks, where that leaves
    // fewer of the last block's loads idle (block_slots; an idle load still
    // takes its exp), with at least 4 work-items a row (64 bytes of a row
    // loaded together) and as many groups as the device wants. On an H100,
    // 2^26 floats, logsumexp over rows of 300 / 400 / 600 / 800 took 102.6 /
    // 104.3 / 99.8 / 101.3 us so against 113.5 / 110.8 / 112.1 / 109.2
    // (torch.compile 93.7 / 93.1 / 92.0 / 93.0), 108.3 / 108.0 / 105.4 /
    // 104.3 with blocks of 2 instead; rows of 256 level (92.0). Not from 4
    // work-items to 2 or 1: over rows of 200 110.6 against 110.3, of 100
    // 133.6 against 116.5. Not max or sum: max over rows of 700 92.9 against
    // 91.8, sum over rows of 300 94.8 against 93.1 (bench/RESULTS.md,
    // sixty-ninth session).
    if (online && rs.blocks == 4 && rs.rows_per_group > 1) {
      const int T = codegen::group_row_items(rs);
      const std::int64_t nvec = m / b.plan.width, R2 = 2 * std::int64_t(rs.rows_per_group);
      if (T >= 8 && block_slots(nvec, T / 2, 4) < block_slots(nvec, T, 4) && (n + R2 - 1) / R2 >= std::int64_t(tuning.target_groups))
        rs.rows_per_group = std::uint16_t(R2);
    }
    // The row's partials meet through warp shuffles where the device has
    // them (render_reduce.cpp's warp_tree, render_moment.cpp's warp_sums,
    // online_softmax.cpp's online_group_combine). Softmax's pair, on an
    // H100, logsumexp of 2^26 floats over rows of 256 / 512 / 1024 / 2048 /
    // 4096, us: 93 / 95 / 91 / 91 / 92 with warps (and shared groups but
    // over rows of 1024, a whole warp each: 95 with them) against 198 / 113
    // / 94 / 92 / 93 with neither, 180 / 108 with warps alone, 96 / 98 with
    // shared groups alone (torch.compile 93 / 92 / 91 / 150 / 143). Not
    // arg-reductions: argmax over rows of 400 / 1000 with the value and
    // index shuffled 102.5 / 98.8 against 102.9 / 99.0 (bench/RESULTS.md,
    // sixty-sixth session).
    const int T = rs.local_size / rs.rows_per_group;
    if (!arg && tuning.row_warp > 0 && rs.local_size % tuning.row_warp == 0 && (T < tuning.row_warp || T % tuning.row_warp == 0))
      rs.row_warp = std::uint8_t(tuning.row_warp);
  }
  return {std::move(b.plan), std::move(b.args)};
}

}  // namespace

int lane_group_size(std::int64_t vectors, const DeviceTuning& tuning) {
  std::int64_t L = std::max<std::int64_t>(1, std::min<std::int64_t>(tuning.local_size, std::int64_t(tuning.max_work_group_size)));
  while (L > 1 && (L / 2 >= vectors || (vectors + L - 1) / L < tuning.target_groups)) L /= 2;
  return int(L);
}

ScheduledKernel plan_reduce(const NodePtr& root, const DeviceTuning& tuning, const PendingOutputs* pending) {
  return plan_reduction(*root, root->inputs[0], 0, nullptr, false, tuning, pending);
}

std::optional<ScheduledKernel> plan_moment(const Node& var, const NodePtr& x, const Node* mean, const DeviceTuning& tuning,
                                           const PendingOutputs* pending) {
  DeviceTuning t = tuning;  // the width rule applies to the loads; moment_width caps it (scheduler.hpp says why)
  const bool f64 = x->dtype == DType::Float64;
  t.vector_bytes = std::min(t.vector_bytes, (f64 ? 8 : 4) * std::max(1, tuning.moment_width));
  auto k = plan_reduction(var, x, mean ? 2 : 1, mean, false, t, pending);
  const auto& rs = k.plan.reduce;
  // A float64 body's kernel (render_moment_chan.cpp) a group an output, a
  // work-item a short row, or down columns in vectors. A CPU's rows of 16
  // (two vectors a work-item, vector_short_rows) too: on the 2-core PoCL
  // machine, var / mean and var of 2^22 doubles over rows of 16 took 2299 /
  // 2571 us in one pass against 2072 / 2196 in two (a work-item a row in
  // scalars: 2549 / 2654), while rows of 4 / 12 / 64 / 1024 took 3818 /
  // 2843 / 810 / 506 against 4922 / 9358 / 1420 / 1418 (fifty-ninth session).
  const bool cpu_vector_rows = tuning.row_items_cap == 1 && rs.rows_per_group > 1 && k.args.reduce_count <= 16;
  // A work-item a row (ThreadPerOutput) is summed in scalars (thread_sums),
  // a form for short rows: a row of more than 16 keeps two passes.
  if (f64 && (cpu_vector_rows || (rs.strategy == codegen::ReduceStrategy::ThreadPerOutput && k.args.reduce_count > 16)))
    return std::nullopt;
  // Column blocks: in vectors of whole outputs with pair kernels on
  // (column_vectors says why); the scalar blocks are declined, float64's too.
  const bool whole = k.plan.ndim > 0 || k.args.count % k.plan.width == 0;
  if (rs.strategy == codegen::ReduceStrategy::ColumnBlock && !(rs.kept_inner && tuning.pair_kernels && whole)) return std::nullopt;
  return k;
}

std::optional<ScheduledKernel> plan_softmax(const Node& max, const NodePtr& x, const DeviceTuning& tuning, const PendingOutputs* pending) {
  if (!tuning.pair_kernels) return std::nullopt;
  auto k = plan_reduction(max, x, 0, nullptr, true, tuning, pending);
  const auto& rs = k.plan.reduce;
  if (rs.strategy == codegen::ReduceStrategy::ThreadPerOutput || (rs.strategy == codegen::ReduceStrategy::ColumnBlock && !rs.kept_inner))
    return std::nullopt;
  return k;
}

}  // namespace fusecl::detail
