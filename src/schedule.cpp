// The scheduling pass (schedule.hpp). It takes the decisions evaluation used
// to take while running kernels, in the same order, so the kernels and their
// count are the same: where a kernel must end (a barrier, a body too large,
// arguments over the device's limit), the part cut off gets a kernel earlier
// in the schedule, and `pending_` makes every later plan read its output
// instead of computing it again. This file walks the roots and their
// barriers and plans elementwise and reduction kernels; row kernels are
// schedule_rows.cpp's, pair kernels schedule_pairs.cpp's (schedule_pass.hpp).
#include "src/schedule_pass.hpp"

#include "fusecl/error.hpp"

#include <algorithm>
#include <optional>
#include <string>

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

}  // namespace

void Scheduler::add_kernel(ScheduledKernel&& k, const Shape& shape, const Outputs& outputs, CutReason reason) {
  // Coordinates in 32 bits where the index space fits them (codegen KernelPlan::index32).
  k.plan.index32 = tuning_.index32 && k.plan.ndim > 0 && index_space_fits_32(k.args.dims);
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
std::uint64_t Scheduler::limit_of(CutReason r) const {
  if (r == CutReason::BodyInstructions) return kMaxBodyInstructions;
  if (r == CutReason::ParameterBytes) return tuning_.max_parameter_bytes;
  if (r == CutReason::RowTooLong) return tuning_.row_bytes;
  if (r == CutReason::ColumnReductions) return tuning_.row_column_bytes;
  return 0;
}

// Reduction n is computed into output `out`: later plans read it, and the
// same reduction built again (find_made) is not computed twice.
void Scheduler::add_made(const NodePtr& n, int out) {
  made_.push_back({n->inputs[0], n->op, n->dtype, n->shape, n->reduce().axes, n->reduce().divisor, n->reduce().post_sqrt, out});
  pending_.add(*n, out);
}

int Scheduler::find_made(const Node& r) const {
  for (const auto& d : made_)
    if (d.input == r.inputs[0] && d.op == r.op && d.dtype == r.dtype && d.shape == r.shape &&
        d.axes == r.reduce().axes && d.divisor == r.reduce().divisor && d.post_sqrt == r.reduce().post_sqrt)
      return d.output;
  return -1;
}

void Scheduler::evaluate_inputs_first(const NodePtr& body) {
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
bool Scheduler::evaluate_parts_to_fit(const NodePtr& body, const OutLayout* out) {
  const auto ndim = std::uint64_t(body->shape.ndim());
  // Fixed arguments, from above: an output, counts, scratch, groups, a
  // mean's divisor, dimensions, a strided output's offset and strides.
  const std::uint64_t fixed = 8 * (6 + ndim) + (out ? 8 * (ndim + 1) : 0);
  const std::uint64_t limit = tuning_.max_parameter_bytes;
  const auto cuts = body_cuts({body}, {kMaxBodyInstructions, limit > fixed ? limit - fixed : 0}, nullptr, &pending_);
  for (const auto& c : cuts) evaluate({c}, CutReason::ParameterBytes);
  return !cuts.empty();
}

ScheduledKernel Scheduler::plan_reduce_fitting(const NodePtr& root) {
  for (;;) {
    auto k = plan_reduce(root, tuning_, &pending_);
    if (fits(k)) return k;
    if (evaluate_parts_to_fit(root->inputs[0], nullptr)) continue;
    evaluate({root->inputs[0]}, CutReason::ParameterBytes);
    return plan_reduce(root, tuning_, &pending_);
  }
}

ScheduledKernel Scheduler::plan_elementwise_fitting(const NodePtr& root, const OutLayout* out) {
  for (;;) {
    auto k = plan_elementwise({&root, 1}, tuning_, out, &pending_);
    if (fits(k)) return k;
    if (!evaluate_parts_to_fit(body_root(root), out)) evaluate_inputs_first(body_root(root));
  }
}

// Schedules first the parts of oversized bodies that body_cuts picks;
// returns the estimated instructions of `bodies` together afterwards.
std::uint64_t Scheduler::split_oversized(std::span<const NodePtr> bodies) {
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

// Kernel k computing `group` (roots of one shape), an output each, which
// later plans read instead of computing them again.
void Scheduler::add_roots_kernel(ScheduledKernel k, const Nodes& group, CutReason cut) {
  Outputs outs;
  for (const auto& g : group) outs.push_back(new_output(g));
  add_kernel(std::move(k), group.front()->shape, outs, cut);
  for (std::size_t i = 0; i < group.size(); ++i) pending_.add(*group[i], outs[i]);
}

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
      // A function of one reduction alone: computed where that reduction stores.
      if (schedule_finish(r, deps, f.barriers ? barrier_reason(*r) : reason)) continue;
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

Schedule make_schedule(const std::vector<NodePtr>& roots, const DeviceTuning& tuning) {
  Schedule out;  // made in place (returned without a move)
  Scheduler s(tuning, out);
  s.evaluate(roots, CutReason::Root);
  for (const auto& r : roots)
    if (const int k = s.output_of(*r); k >= 0) out.outputs[std::size_t(k)].root = true;
  return out;
}

}  // namespace fusecl::detail
