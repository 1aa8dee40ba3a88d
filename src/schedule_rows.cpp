// The scheduling pass's row kernels (schedule_pass.hpp): a reduction fused
// with what reads it (row_fusion.hpp), rows held in registers, split over
// segments, or a whole array's reduction read again (the grid form); where
// none fits, today's kernels, one per reduction, and the reason is kept for
// FUSECL_LOG=schedule.
#include "src/schedule_pass.hpp"

#include <algorithm>

namespace fusecl::detail {

// Computes `root` with one row kernel (row_fusion.hpp) where its body has
// that form, its rows fit and the plan fits the kernel limits; true if it
// did. `later` roots of the same shape and rows join it (as roots of one
// shape share an elementwise kernel), each one more output.
bool Scheduler::schedule_row(const NodePtr& root, CutReason cut, std::span<const NodePtr> later) {
  if (tuning_.row_bytes == 0 || !is_elementwise(body_root(root)->op)) return false;
  auto rf = find_row_fusion(root, &pending_);
  // A body that may pass the instruction limit: today's kernels, which cut it.
  if (!rf || rf->instructions > kMaxBodyInstructions) return false;
  if (tuning_.row_split == 2 && schedule_split(root, *rf, cut)) return true;
  if (rf->row_bytes > tuning_.row_bytes) {
    // A row held in registers needs no cache: a GPU's rows of up to 1024 x
    // 16 elements (an H200, softmax and layer norm over rows of 16384
    // floats at 2^26: 268 and 188 us, against 295 and 225 in today's three
    // kernels). Rows longer still lost in a loop (rows of 32768: 511
    // against 299; bench/RESULTS.md, twenty-first session).
    // Odd rows (odd_rows_today) stay in registers only where those hold
    // them in vectors (ReduceSpec::row_skew).
    const bool odd = odd_rows_today(root, *rf);
    if (schedule_in_registers(root, *rf, cut, odd)) return true;
    if (odd) {
      for (const Node* r : rf->reductions) today_.emplace_back(r, CutReason::RowTooLong);
      return false;
    }
    if (schedule_grid(root, *rf, cut)) return true;
    // Split where today's kernels read rows that are not whole vectors and
    // their output kernel's vectors may not cross rows (FUSECL_CROSS_ROWS=0;
    // its reads of the reductions then lose their vector form): an H200's
    // softmax / layer norm over rows of 50257, 2^26 floats, 252 / 257 us
    // split against 495 / 296. With vectors across rows today's kernels win:
    // 176 / 192 against 240 / 240 split (twenty-ninth session). Where rows are whole vectors
    // today's kernels won (rows of 32768: 298 / 228 against 307 / 274;
    // columns of 16384: 399 / 304 against 424 / 386): the layer norm's one-
    // pass moment kernel, and column reductions in blocks, read as well.
    if (tuning_.row_split > 0 && !tuning_.cross_rows && !whole_vectors(root, rf->row_elements) && schedule_split(root, *rf, cut))
      return true;
    // Today's kernels: each reduction first; the log says why.
    for (const Node* r : rf->reductions) today_.emplace_back(r, CutReason::RowTooLong);
    return false;
  }
  Nodes group{root};
  for (const auto& other : later) {
    if (other->shape != root->shape || done(*other) || !is_elementwise(body_root(other)->op) ||
        std::any_of(group.begin(), group.end(), [&](const NodePtr& g) { return g.get() == other.get(); }))
      continue;
    const auto more = find_row_fusion(other, &pending_);
    if (!more || more->axes != rf->axes || more->row_bytes > tuning_.row_bytes ||
        rf->instructions + more->instructions > kMaxBodyInstructions)
      continue;
    rf->instructions += more->instructions;
    for (const Node* r : more->reductions)
      if (std::find(rf->reductions.begin(), rf->reductions.end(), r) == rf->reductions.end()) rf->reductions.push_back(r);
    group.push_back(other);
  }
  auto k = plan_row({group.data(), group.size()}, rf->reductions, rf->axes, tuning_, &pending_);
  if (group.size() == 1 && columns_today(root, *rf, k.plan)) {
    for (const Node* r : rf->reductions) today_.emplace_back(r, CutReason::ColumnReductions);
    return false;
  }
  // A GPU's large array whose row kernel would loop over its rows: split
  // over segments that stay in registers, where the rows of the groups in
  // flight would pass the cache (DeviceTuning::row_split).
  if (group.size() == 1 && split_wanted(root, *rf, k.plan) && schedule_split(root, *rf, cut)) return true;
  // Its combine's local memory too (many reductions in large groups).
  if (!fits(k) || k.plan.instrs.size() > kMaxBodyInstructions || codegen::row_local_bytes(k.plan) > tuning_.local_mem_bytes) {
    if (group.size() > 1) return schedule_row(root, cut);  // alone, then
    return false;  // today's kernels cut it as they do
  }
  add_roots_kernel(std::move(k), group, cut);
  return true;
}

// `root`, whose rows pass row_bytes, in one row kernel where that holds its
// rows in registers (the register form; with `vectors`, in vectors only);
// true if it did.
bool Scheduler::schedule_in_registers(const NodePtr& root, const RowFusion& rf, CutReason cut, bool vectors) {
  auto k = plan_row({&root, 1}, rf.reductions, rf.axes, tuning_, &pending_);
  if (k.plan.reduce.row_chunks == 0 || (vectors && k.plan.width == 1) || !fits(k) || k.plan.instrs.size() > kMaxBodyInstructions ||
      codegen::row_local_bytes(k.plan) > tuning_.local_mem_bytes)
    return false;
  add_roots_kernel(std::move(k), Nodes{root}, cut);
  return true;
}

// Whether `root`'s rows are split where `one`, one kernel, would re-read
// them (DeviceTuning::row_split): a GPU's array reading row_split_bytes or
// more (the rows of the groups in flight then pass the L2 cache). Not a
// one-pass softmax of columns shorter than 4096: two passes over them still
// hit the cache, where the split computes exp twice as well and combines
// more partials. On an H200, 2^26 floats over axis 0 (softmax / layer
// norm, us): 8192 x 8192 423 / 390 split against 479 / 451; 32768 x 2048
// 433 / 397 against 608 / 442; 2048 x 32768 424 / 384 against 382 / 457;
// at 2^24 (64 MiB), 1024 x 16384: 125 / 120 against 111 / 105
// (bench/RESULTS.md, twenty-second session).
bool Scheduler::split_wanted(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const {
  if (tuning_.row_items_cap <= 1 || tuning_.row_split == 0 || one.reduce.row_chunks != 0) return false;
  const std::uint64_t per = rf.row_bytes / std::uint64_t(std::max<std::int64_t>(1, rf.row_elements));
  if (per * std::uint64_t(root->shape.size()) < tuning_.row_split_bytes) return false;
  return !one.reduce.row_online || rf.row_elements >= 4096;
}

// Whether `root`, whose rows run down the columns of an array of
// row_column_bytes or more, takes today's kernels instead of `one`, a row
// kernel of the column form that would loop down them (on GPUs, in whole
// vectors): each reduction then reads the columns in vectors (ReduceSpec::
// kept_inner), and the last kernel reads them once more with the array.
// On an H200, softmax / layer norm over axis 0 (us): 8192 x 8192 317 / 321
// against 423 / 389 split (torch.compile 273 / 219); 4096 x 4096 115 / 106
// against 148 / 137 in one row kernel (torch.compile 167 / 126); 2048 x
// 32768 363 / 363 against 381 / 386 (bench/RESULTS.md, twenty-third session).
bool Scheduler::columns_today(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const {
  if (tuning_.row_items_cap <= 1 || tuning_.row_column_bytes == 0 || !one.reduce.row_columns || one.reduce.row_chunks != 0)
    return false;
  if (int(one.width) * size_of(body_root(root)->dtype) < tuning_.vector_bytes) return false;
  const std::uint64_t per = rf.row_bytes / std::uint64_t(std::max<std::int64_t>(1, rf.row_elements));
  return per * std::uint64_t(root->shape.size()) >= tuning_.row_column_bytes;
}

// `root`'s rows split over segments (plan_row's RowSplit), on GPUs, where
// its reductions' partials merge: a kernel storing each segment's partials,
// then one whose segments combine their row's and compute the outputs.
// Each segment is held in registers where it fits. True if it did.
bool Scheduler::schedule_split(const NodePtr& root, const RowFusion& rf, CutReason cut) {
  if (tuning_.row_items_cap <= 1) return false;
  RowSplit split;
  auto first = plan_row({&root, 1}, rf.reductions, rf.axes, tuning_, &pending_, nullptr, &split);
  auto usable = [&](const ScheduledKernel& k) {
    return k.plan.ndim == 0 && fits(k) && k.plan.instrs.size() <= kMaxBodyInstructions &&
           codegen::row_local_bytes(k.plan) <= tuning_.local_mem_bytes;
  };
  if (!usable(first) || !codegen::row_splittable(first.plan)) return false;
  const std::size_t outputs_before = schedule.outputs.size();
  Outputs outs;
  split.segments = first.args.groups;
  split.partials.assign(first.plan.instrs.size(), -1);
  const std::int64_t lanes = first.plan.reduce.row_columns ? first.plan.width : 1;  // a vector of columns: its lanes
  for (const auto k : first.plan.outputs) {
    schedule.outputs.push_back({{}, first.plan.instrs[std::size_t(k)].dtype, first.args.count * lanes * split.segments, false, nullptr});
    split.partials[std::size_t(k)] = int(schedule.outputs.size() - 1);
    outs.push_back(split.partials[std::size_t(k)]);
  }
  auto second = plan_row({&root, 1}, rf.reductions, rf.axes, tuning_, &pending_, nullptr, &split);
  if (!usable(second)) {
    schedule.outputs.resize(outputs_before);
    return false;
  }
  add_kernel(std::move(first), root->shape, outs, CutReason::SegmentPartials);
  add_roots_kernel(std::move(second), Nodes{root}, cut);
  return true;
}

// A whole array too large for one row kernel, read with one reduction of
// all of it (x - mean(x), x / sum(x)): the reduction's partial results
// (plan_reduce, split over groups), then the root in a row kernel whose
// every group combines them first. Two kernels, whatever the device's
// atomics (a split reduction alone may need two). True if it did.
bool Scheduler::schedule_grid(const NodePtr& root, const RowFusion& rf, CutReason cut) {
  if (rf.nodes.size() != 1 || int(rf.axes.size()) != body_root(root)->shape.ndim()) return false;
  const NodePtr& r = rf.nodes.front();
  DeviceTuning t = tuning_;
  t.split_finish = codegen::SplitFinish::Consumer;
  auto red = plan_reduce(r, t, &pending_);
  if (!red.plan.reduce.two_stage || !fits(red) || red.plan.instrs.size() > kMaxBodyInstructions) return false;
  schedule.outputs.push_back({{}, red.plan.reduce.acc, red.args.count * red.args.groups, false, nullptr});
  const RowPartials partials{int(schedule.outputs.size() - 1), red.args.groups};
  auto k = plan_row({&root, 1}, rf.reductions, rf.axes, tuning_, &pending_, &partials);
  if (!fits(k) || k.plan.instrs.size() > kMaxBodyInstructions) {
    schedule.outputs.pop_back();
    return false;
  }
  add_kernel(std::move(red), r->inputs[0]->shape, {partials.output}, CutReason::Partials);
  add_roots_kernel(std::move(k), Nodes{root}, cut);
  return true;
}

// Whether `root`'s rows, along its last axis, too long for a row kernel's
// registers at 16 elements a work-item and no multiple of the vector width,
// take today's kernels (DeviceTuning::row_odd_elements) unless a register
// form holds them in vectors (row_skew): otherwise it loads them an element
// at a time. An H200, softmax over 2^26 floats
// (us): rows of 12289 292 in registers against 179 (torch.compile 193),
// 20001 915 against 148 (149), 50257 split 240 against 176 (221); rows of
// 3001 148 in registers against 180 (163) (bench/RESULTS.md, twenty-ninth
// session).
bool Scheduler::odd_rows_today(const NodePtr& root, const RowFusion& rf) const {
  if (!tuning_.cross_rows || tuning_.row_odd_elements == 0 || rf.row_elements <= tuning_.row_odd_elements) return false;
  const Node& body = *body_root(root);
  const int last = body.shape.ndim() - 1;
  // Not a whole array's reduction (x - mean(x)): the grid form's two kernels.
  if (last < 0 || int(rf.axes.size()) == body.shape.ndim()) return false;
  if (std::find(rf.axes.begin(), rf.axes.end(), last) == rf.axes.end()) return false;
  return !whole_vectors(root, body.shape.dims()[std::size_t(last)]);
}

}  // namespace fusecl::detail
