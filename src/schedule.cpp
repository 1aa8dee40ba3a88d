// The scheduling pass (schedule.hpp). It takes the decisions evaluation used
// to take while running kernels, in the same order, so the kernels and their
// count are the same: where a kernel must end (a barrier, a body too large,
// arguments over the device's limit), the part cut off gets a kernel earlier
// in the schedule, and `pending_` makes every later plan read its output
// instead of computing it again.
#include "src/schedule.hpp"

#include "codegen/body.hpp"
#include "fusecl/error.hpp"
#include "src/reduction_pairs.hpp"
#include "src/row_fusion.hpp"

#include <algorithm>
#include <optional>

namespace fusecl::detail {

int Schedule::output_of(const Node& n) const {
  for (std::size_t k = 0; k < outputs.size(); ++k)
    for (const auto& node : outputs[k].nodes)
      if (node.get() == &n) return int(k);
  return -1;
}

std::size_t Schedule::kernel_count() const {
  return std::size_t(std::count_if(steps.begin(), steps.end(), [](const ScheduleStep& s) {
    return s.kind == ScheduleStep::Kind::Kernel;
  }));
}

namespace {

// Why a barrier below a root is computed first.
CutReason barrier_reason(const Node& n) {
  if (op_class(n.op) == OpClass::Reduce) return CutReason::Reduction;
  if (n.op == Op::Concat) return CutReason::Concatenate;
  if (n.op == Op::Transfer) return CutReason::Transfer;
  return CutReason::Contiguous;
}

// A reduction already in the schedule: one reduction of one array, built
// twice in the same expression (a softmax written out: exp(x - max(x, 1,
// true)) / sum(exp(x - max(x, 1, true)), 1, true)), runs once. Holding the
// input keeps its address from being reused while the schedule is made.
struct MadeReduction {
  NodePtr input;
  Op op;
  DType dtype;
  Shape shape;
  std::vector<int> axes;
  double divisor;
  bool post_sqrt;
  int output;
};

class Scheduler {
  // Short lists made for every evaluation: held in place (scheduler.hpp).
  using Nodes = SmallVector<NodePtr, 4>;
  using Outputs = ScheduleStep::OutputList;

 public:
  Scheduler(const DeviceTuning& tuning, Schedule& out) : schedule(out), tuning_(tuning) {}

  // Schedules `roots` and, first, the barriers below them; `reason` is why
  // the roots get kernels (the barriers have their own).
  void evaluate(const std::vector<NodePtr>& roots, CutReason reason);

  Schedule& schedule;  // being made

  // The output computing n, or -1: Schedule::output_of without its walk.
  int output_of(const Node& n) const { return pending_.find(n); }

 private:
  bool done(const Node& n) const { return is_evaluated(n, &pending_); }

  // Distinct nodes of `nodes` not scheduled or evaluated yet, in order.
  Nodes todo_of(const std::vector<NodePtr>& nodes) const {
    Nodes todo;
    for (const auto& r : nodes)
      if (r->op != Op::Scalar && !done(*r) &&
          std::none_of(todo.begin(), todo.end(), [&](const NodePtr& t) { return t.get() == r.get(); }))
        todo.push_back(r);
    return todo;
  }

  void run(Nodes& todo, std::optional<CutReason> reason);

  // A new output holding n's value. Added to pending_ by the caller only
  // after the kernel computing it is planned, so that plan computes n.
  int new_output(const NodePtr& n) {
    schedule.outputs.push_back({{n}, n->dtype, n->shape.size(), false, nullptr});
    return int(schedule.outputs.size() - 1);
  }

  void add_kernel(ScheduledKernel&& k, const Shape& shape, const Outputs& outputs, CutReason reason) {
    ScheduleStep& s = schedule.steps.emplace_back();  // made in place: a kernel's plan and arguments are large
    for (const auto& in : k.args.inputs)
      if (in.pending >= 0) s.reads.push_back(in.pending);
    s.kernel = std::move(k);
    s.shape = shape;
    s.outputs = outputs;
    s.reason = reason;
    s.limit = limit_of(reason);
  }

  // The limit a cut of this reason passed.
  std::uint64_t limit_of(CutReason r) const {
    if (r == CutReason::BodyInstructions) return kMaxBodyInstructions;
    if (r == CutReason::ParameterBytes) return tuning_.max_parameter_bytes;
    if (r == CutReason::RowTooLong) return tuning_.row_bytes;
    if (r == CutReason::ColumnReductions) return tuning_.row_column_bytes;
    return 0;
  }

  // Reduction n is computed into output `out`: later plans read it, and the
  // same reduction built again (find_made) is not computed twice.
  void add_made(const NodePtr& n, int out) {
    made_.push_back({n->inputs[0], n->op, n->dtype, n->shape, n->reduce().axes, n->reduce().divisor, n->reduce().post_sqrt, out});
    pending_.add(*n, out);
  }

  int find_made(const Node& r) const {
    for (const auto& d : made_)
      if (d.input == r.inputs[0] && d.op == r.op && d.dtype == r.dtype && d.shape == r.shape &&
          d.axes == r.reduce().axes && d.divisor == r.reduce().divisor && d.post_sqrt == r.reduce().post_sqrt)
        return d.output;
    return -1;
  }

  // Kernel arguments are limited (CL_DEVICE_MAX_PARAMETER_SIZE, 1 KiB on
  // some devices) and a body with many strided loads or scalars needs many.
  // Where a plan does not fit, parts of the body get kernels first (each
  // smaller, its result read by the rest with one load); the elementwise
  // inputs of the body root, evaluate_inputs_first, are the fallback.
  bool fits(const ScheduledKernel& k) const { return codegen::param_bytes(k.plan) <= tuning_.max_parameter_bytes; }

  void evaluate_inputs_first(const NodePtr& body) {
    std::vector<NodePtr> parts;
    for (const auto& in : body->inputs)
      if (is_fused(*in, &pending_)) parts.push_back(in);
    if (parts.empty())
      throw Error("internal: a kernel with only " + std::to_string(body->inputs.size()) +
                  " loads exceeds the device's kernel-argument size");
    for (const auto& p : parts) evaluate({p}, CutReason::ParameterBytes);
  }

  // Where a plan does not fit, schedules parts of its body first, chosen in
  // one pass (body_cuts) to keep the arguments within the limit; true if it did.
  bool evaluate_parts_to_fit(const NodePtr& body, const OutLayout* out) {
    const auto ndim = std::uint64_t(body->shape.ndim());
    // Fixed arguments, from above: an output, counts, scratch, groups, a
    // mean's divisor, dimensions, a strided output's offset and strides.
    const std::uint64_t fixed = 8 * (6 + ndim) + (out ? 8 * (ndim + 1) : 0);
    const std::uint64_t limit = tuning_.max_parameter_bytes;
    const auto cuts = body_cuts({body}, {kMaxBodyInstructions, limit > fixed ? limit - fixed : 0}, nullptr, &pending_);
    for (const auto& c : cuts) evaluate({c}, CutReason::ParameterBytes);
    return !cuts.empty();
  }

  ScheduledKernel plan_reduce_fitting(const NodePtr& root) {
    for (;;) {
      auto k = plan_reduce(root, tuning_, &pending_);
      if (fits(k)) return k;
      if (evaluate_parts_to_fit(root->inputs[0], nullptr)) continue;
      evaluate({root->inputs[0]}, CutReason::ParameterBytes);
      return plan_reduce(root, tuning_, &pending_);
    }
  }

  ScheduledKernel plan_elementwise_fitting(const NodePtr& root, const OutLayout* out = nullptr) {
    for (;;) {
      auto k = plan_elementwise({&root, 1}, tuning_, out, &pending_);
      if (fits(k)) return k;
      if (!evaluate_parts_to_fit(body_root(root), out)) evaluate_inputs_first(body_root(root));
    }
  }

  // Schedules first the parts of oversized bodies that body_cuts picks;
  // returns the estimated instructions of `bodies` together afterwards.
  std::uint64_t split_oversized(std::span<const NodePtr> bodies) {
    // A node's weight counts the nodes of its body from above (a shared node
    // once per use), so bodies light enough by weight need no walk: the
    // common case, on the path of every evaluation.
    std::uint64_t weight = 0;
    for (const auto& b : bodies) weight += is_fused(*b, &pending_) ? b->weight : 1;
    if (weight <= kMaxBodyInstructions) return weight;
    std::uint64_t total = 0;
    const std::vector<NodePtr> all(bodies.begin(), bodies.end());
    for (const auto& c : body_cuts(all, BodyLimits{}, &total, &pending_)) evaluate({c}, CutReason::BodyInstructions);
    return total;
  }

  // Computes `root` with one row kernel (row_fusion.hpp) where its body has
  // that form, its rows fit and the plan fits the kernel limits; true if it
  // did. `later` roots of the same shape and rows join it (as roots of one
  // shape share an elementwise kernel), each one more output.
  bool schedule_row(const NodePtr& root, CutReason cut, std::span<const NodePtr> later = {}) {
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
      if (schedule_in_registers(root, *rf, cut)) return true;
      if (schedule_grid(root, *rf, cut)) return true;
      // Split where today's kernels read rows that are not whole vectors
      // (their output kernel's reads of the reductions lose their vector
      // form): an H200's softmax / layer norm over rows of 50257, 2^26 floats,
      // 252 / 257 us split against 495 / 296. Where rows are whole vectors
      // today's kernels won (rows of 32768: 298 / 228 against 307 / 274;
      // columns of 16384: 399 / 304 against 424 / 386): the layer norm's one-
      // pass moment kernel, and column reductions in blocks, read as well.
      const auto lanes = std::uint64_t(std::max(1, tuning_.vector_bytes / size_of(body_root(root)->dtype)));
      if (tuning_.row_split > 0 && std::uint64_t(rf->row_elements) % lanes != 0 && schedule_split(root, *rf, cut)) return true;
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

  // Kernel k computing `group` (roots of one shape), an output each, which
  // later plans read instead of computing them again.
  void add_roots_kernel(ScheduledKernel k, const Nodes& group, CutReason cut) {
    Outputs outs;
    for (const auto& g : group) outs.push_back(new_output(g));
    add_kernel(std::move(k), group.front()->shape, outs, cut);
    for (std::size_t i = 0; i < group.size(); ++i) pending_.add(*group[i], outs[i]);
  }

  // `root`, whose rows pass row_bytes, in one row kernel where that holds its
  // rows in registers (the register form); true if it did.
  bool schedule_in_registers(const NodePtr& root, const RowFusion& rf, CutReason cut) {
    auto k = plan_row({&root, 1}, rf.reductions, rf.axes, tuning_, &pending_);
    if (k.plan.reduce.row_chunks == 0 || !fits(k) || k.plan.instrs.size() > kMaxBodyInstructions ||
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
  bool split_wanted(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const {
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
  bool columns_today(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const {
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
  bool schedule_split(const NodePtr& root, const RowFusion& rf, CutReason cut) {
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
  bool schedule_grid(const NodePtr& root, const RowFusion& rf, CutReason cut) {
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

  // Whether one kernel computes reduction n with its pair: `check`'s answer,
  // planned once per node and kept, so that evaluate and run decide alike.
  template <class Check>
  bool decided(const Node& n, Check&& check) {
    if (const auto kept = decision(n)) return *kept;
    const bool ok = check();
    pair_ok_.emplace_back(&n, ok);
    return ok;
  }

  // decided's answer for n, if it has given one.
  std::optional<bool> decision(const Node& n) const {
    for (const auto& [node, ok] : pair_ok_)
      if (node == &n) return ok;
    return std::nullopt;
  }

  // The float32 x of `v`, a var/std as make_moment builds it (the mean of
  // (x - m) * (x - m), m the mean of x over the same axes), where one moment
  // kernel computes it in one pass (plan_moment): the device has float64,
  // the body has that form and the kernel would read x along its rows.
  // Decided the same way wherever it is asked (evaluate skips m's kernel).
  const NodePtr* moment_input(const Node& v) {
    if (!tuning_.one_pass_moments) return nullptr;
    const ReductionPair pair = variance_pair(v, &pending_);
    if (!pair.x) return nullptr;
    const bool ok = decided(v, [&] { return plan_moment(v, *pair.x, nullptr, tuning_, &pending_) != std::nullopt; });
    return ok ? pair.x : nullptr;
  }

  // Softmax's sum `s` and its max where one kernel computes both in one
  // pass (plan_softmax): the max is still to compute and that kernel takes
  // them. A row kernel that takes them never asks; one that gave them to
  // today's kernels (down the columns of a large array, or rows too long for
  // it), or a sum no row kernel reads (a logsumexp, log(s) + max, whose
  // consumers are the reduced shape's), asks here. Decided the same way
  // wherever it is asked (evaluate skips the max's kernel).
  ReductionPair softmax_input(const Node& s) {
    if (!tuning_.pair_kernels) return {};
    const ReductionPair pair = softmax_pair(s, &pending_);
    if (!pair.x || done(**pair.first)) return {};
    // x's own reductions first (a softmax of a layer-normed row: its mean and
    // variance): its body cannot be planned before they are. Not decided
    // yet, so a later ask may say yes; a yes is kept (the max is skipped).
    if (!decision(s) && !unevaluated_barriers_below(*pair.x, &pending_).empty()) return {};
    const bool ok = decided(s, [&] {
      if (!today(s)) {  // no row kernel asked: where its rows are long enough (DeviceTuning::pair_sum_elements)
        std::int64_t m = 1;
        for (const int a : s.reduce().axes) m *= s.inputs[0]->shape[a];
        if (m < tuning_.pair_sum_elements) return false;
      }
      return plan_softmax(**pair.first, *pair.x, tuning_, &pending_) != std::nullopt;
    });
    return ok ? pair : ReductionPair{};
  }

  // The array a reduction computed with its pair's other reads (a var/std,
  // softmax's sum), where one kernel computes both: what it needs first is
  // what that array needs, not the other reduction.
  const NodePtr* pair_input(const Node& r) {
    if (const NodePtr* x = moment_input(r)) return x;
    return softmax_input(r).x;
  }

  // Computes `first` with one moment kernel where it is a var/std that has
  // one (moment_input), or a mean that one in `todo` can compute too; every
  // mean of the same array over the same axes in `todo` is its second
  // output. Takes them out of `todo`; true once `first` is scheduled (by
  // that kernel, or by the fallback where it does not fit).
  bool schedule_moment(const NodePtr& first, Nodes& todo, CutReason cut) {
    NodePtr var;
    const NodePtr* x = moment_input(*first);
    if (x) {
      var = first;
    } else if (first->op == Op::Mean && !first->reduce().post_sqrt) {
      for (const auto& t : todo) {
        if (t.get() == first.get() || op_class(t->op) != OpClass::Reduce || done(*t)) continue;
        const NodePtr* tx = moment_input(*t);
        if (tx && first->inputs[0] == *tx && first->reduce().axes == t->reduce().axes) {
          var = t;
          x = tx;
          break;
        }
      }
    }
    if (!var) return false;
    Nodes means;
    for (const auto& t : todo)
      if (t->op == Op::Mean && !done(*t) && !t->reduce().post_sqrt && !t->inputs.empty() && t->inputs[0] == *x &&
          t->reduce().axes == var->reduce().axes && t->shape.size() == var->shape.size())
        means.push_back(t);
    auto k = plan_moment(*var, *x, means.empty() ? nullptr : means.front().get(), tuning_, &pending_);
    if (k && !fits(*k) && !means.empty()) {
      // The mean's output and divisor past the arguments' limit: var alone in
      // one pass, the means in kernels of their own.
      means.clear();
      k = plan_moment(*var, *x, nullptr, tuning_, &pending_);
    }
    if (!k || !fits(*k)) {
      // Too many arguments for one kernel (moment_input said yes, so
      // evaluate did not schedule var's mean): the two-pass kernels, the mean
      // first. Done if `first` was that mean (the caller must not compute it again).
      for (const auto& b : todo_of(unevaluated_barriers(var, &pending_))) evaluate({b}, CutReason::Reduction);
      return done(*first);
    }
    Outputs outs{new_output(var)};
    if (!means.empty()) {
      schedule.outputs.push_back({{}, means.front()->dtype, means.front()->shape.size(), false, nullptr});
      for (const auto& mn : means) schedule.outputs.back().nodes.push_back(mn);
      outs.push_back(int(schedule.outputs.size() - 1));
    }
    add_kernel(std::move(*k), (*x)->shape, outs, cut);
    add_made(var, outs[0]);
    for (const auto& mn : means) add_made(mn, outs[1]);
    todo.erase(std::remove_if(todo.begin(), todo.end(), [&](const NodePtr& t) { return done(*t); }), todo.end());
    return done(*first);  // not where `first` was a mean this kernel left out
  }

  // Computes `first` with one softmax pair kernel (plan_softmax) where it is
  // softmax's sum that has one (softmax_input), or the max of one in `todo`:
  // the max its first output, the sum its second. Takes them out of `todo`;
  // true once `first` is scheduled (by that kernel, or by the fallback where
  // it does not fit).
  bool schedule_softmax(const NodePtr& first, Nodes& todo, CutReason cut) {
    NodePtr sum;
    ReductionPair pair = softmax_input(*first);
    if (pair.x) {
      sum = first;
    } else if (first->op == Op::Max) {
      for (const auto& t : todo) {
        if (t.get() == first.get() || done(*t)) continue;
        pair = softmax_input(*t);
        if (pair.x && pair.first->get() == first.get()) {
          sum = t;
          break;
        }
      }
    }
    if (!sum) return false;
    const NodePtr max = *pair.first;
    auto k = plan_softmax(*max, *pair.x, tuning_, &pending_);
    if (!k || !fits(*k)) {
      // Too many arguments (softmax_input said yes, so evaluate did not
      // schedule the max): a kernel each, the max first. Done if `first` was
      // that max (the caller must not compute it again).
      for (const auto& b : todo_of(unevaluated_barriers(sum, &pending_))) evaluate({b}, CutReason::Reduction);
      return done(*first);
    }
    const Outputs outs{new_output(max), new_output(sum)};
    add_kernel(std::move(*k), (*pair.x)->shape, outs, cut);
    add_made(max, outs[0]);
    add_made(sum, outs[1]);
    todo.erase(std::remove_if(todo.begin(), todo.end(), [&](const NodePtr& t) { return done(*t); }), todo.end());
    return true;
  }

  // Why today's kernels compute reduction n, where a row kernel did not (RowTooLong, ColumnReductions).
  std::optional<CutReason> today(const Node& n) const {
    for (const auto& [node, why] : today_)
      if (node == &n) return why;
    return std::nullopt;
  }

  DeviceTuning tuning_;
  PendingOutputs pending_;
  std::vector<MadeReduction> made_;
  std::vector<std::pair<const Node*, CutReason>> today_;  // reductions a row kernel did not take, and why
  std::vector<std::pair<const Node*, bool>> pair_ok_;  // decided's answers (moment_input, softmax_input), asked again in run
};

void Scheduler::evaluate(const std::vector<NodePtr>& roots, CutReason reason) {
  // Each root needs the barriers below its body first, and they need theirs:
  // a frame runs its roots once the barriers below every one of them are
  // scheduled, each root's barriers as one frame of their own. An explicit
  // stack instead of recursion, so a chain of many barriers needs no deep stack.
  struct Frame {
    Nodes todo;
    std::size_t next = 0;     // the next root whose barriers are looked for
    bool barriers = false;    // the frame holds barriers, each cut for its own kind
  };
  SmallVector<Frame, 2> frames;
  frames.push_back({todo_of(roots)});
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.next < f.todo.size()) {
      const NodePtr& r = f.todo[f.next++];  // not used once a frame is pushed
      if (done(*r)) continue;  // scheduled below an earlier root
      // A var/std computed in one pass needs what its input needs, not its
      // mean; softmax's sum computed with its max, not the max.
      const NodePtr* mx = pair_input(*r);
      auto deps = todo_of(mx ? unevaluated_barriers_below(*mx, &pending_) : unevaluated_barriers(r, &pending_));
      if (deps.empty()) continue;
      // Its reductions inside; with the frame's later roots where they can share the kernel.
      if (schedule_row(r, f.barriers ? barrier_reason(*r) : reason,
                       f.barriers ? std::span<const NodePtr>{} : std::span<const NodePtr>(f.todo.data() + f.next, f.todo.size() - f.next)))
        continue;
      frames.push_back({std::move(deps), 0, true});  // f is not used after this
      continue;
    }
    // Run in place: what run schedules on the way (splits, parts that do
    // not fit) goes through evaluate calls with frames of their own.
    run(f.todo, f.barriers ? std::nullopt : std::optional<CutReason>(reason));
    frames.pop_back();
  }
}

// Schedules the kernels computing `todo`, whose barriers are all scheduled.
// Elementwise roots of one shape share one kernel; each reduction has its own.
void Scheduler::run(Nodes& todo, std::optional<CutReason> reason) {
  while (!todo.empty()) {
    const NodePtr first = todo.front();
    if (done(*first)) {  // scheduled as another root's dependency
      todo.erase(todo.begin());
      continue;
    }
    const CutReason cut = reason ? *reason : today(*first).value_or(barrier_reason(*first));
    if (first->op == Op::Transfer) {
      // The source is evaluated on its own device when the step runs.
      ScheduleStep s;
      s.kind = ScheduleStep::Kind::Copy;
      s.source = first->inputs[0];
      s.shape = first->shape;
      s.outputs = {new_output(first)};
      s.reason = cut;
      s.limit = limit_of(cut);
      pending_.add(*first, s.outputs[0]);
      schedule.steps.push_back(std::move(s));
      todo.erase(todo.begin());
      continue;
    }
    if (op_class(first->op) == OpClass::Reduce) {
      if (const int same = find_made(*first); same >= 0) {
        schedule.outputs[std::size_t(same)].nodes.push_back(first);  // computed already in this schedule
        pending_.add(*first, same);
        todo.erase(todo.begin());
        continue;
      }
      if (schedule_moment(first, todo, cut) || schedule_softmax(first, todo, cut)) continue;
      // Their fallbacks may have computed the same reduction under another
      // node (a var's own mean): the next turn finds it.
      if (find_made(*first) >= 0) continue;
      split_oversized({&first->inputs[0], 1});
      auto k = plan_reduce_fitting(first);
      const int out = new_output(first);
      add_kernel(std::move(k), first->inputs[0]->shape, {out}, cut);
      add_made(first, out);
      todo.erase(todo.begin());
      continue;
    }
    if (first->op == Op::Concat) {
      // One kernel per non-empty input, each writing its slab of the output in place.
      const int out = new_output(first);
      const auto strides = contiguous_strides(first->shape);
      std::int64_t start = 0;
      for (const auto& in : first->inputs) {
        OutLayout lay{start * strides[std::size_t(first->concat_axis())], strides};
        if (in->shape.size() > 0) {
          split_oversized({&in, 1});
          add_kernel(plan_elementwise_fitting(in, &lay), in->shape, {out}, cut);
        }
        start += in->shape.dims()[std::size_t(first->concat_axis())];
      }
      pending_.add(*first, out);
      todo.erase(todo.begin());
      continue;
    }
    Nodes group;
    for (auto it = todo.begin(); it != todo.end();) {
      const Node& n = **it;
      const bool own_kernels = op_class(n.op) == OpClass::Reduce || n.op == Op::Concat || n.op == Op::Transfer;
      if (!done(n) && !own_kernels && n.shape == first->shape) {
        group.push_back(*it);
        it = todo.erase(it);
      } else {
        ++it;
      }
    }
    Nodes bodies;
    for (const auto& g : group) bodies.push_back(body_root(g));
    if (split_oversized({bodies.data(), bodies.size()}) > kMaxBodyInstructions && group.size() > 1) {
      for (const auto& g : group) evaluate({g}, reason ? *reason : barrier_reason(*g));  // too large together: one kernel each
      continue;
    }
    auto k = plan_elementwise({group.data(), group.size()}, tuning_, nullptr, &pending_);
    if (!fits(k)) {
      if (group.size() > 1) {
        // One kernel each: the roots share nothing that must stay together.
        for (const auto& g : group) evaluate({g}, reason ? *reason : barrier_reason(*g));
        continue;
      }
      k = plan_elementwise_fitting(group.front());
    }
    add_roots_kernel(std::move(k), group, cut);
  }
}

}  // namespace

Schedule make_schedule(const std::vector<NodePtr>& roots, const DeviceTuning& tuning) {
  Schedule out;  // made in place (returned without a move)
  Scheduler s(tuning, out);
  s.evaluate(roots, CutReason::Root);
  for (const auto& r : roots)
    if (const int k = s.output_of(*r); k >= 0) out.outputs[std::size_t(k)].root = true;
  return out;
}

}  // namespace fusecl::detail
