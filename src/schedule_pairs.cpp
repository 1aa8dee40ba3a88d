// The scheduling pass's pair kernels (schedule_pass.hpp): two reductions of
// one array computed by one kernel in one pass, a variance with its mean
// (plan_moment) and softmax's sum with its max (plan_softmax). Each is
// decided once per node and kept, so that the walk over the barriers and the
// kernels' run decide alike.
#include "src/schedule_pass.hpp"

#include <algorithm>

namespace fusecl::detail {

// Whether one kernel computes reduction n with its pair: `check`'s answer,
// planned once per node and kept, so that evaluate and run decide alike.
template <class Check>
bool Scheduler::decided(const Node& n, Check&& check) {
  if (const auto kept = decision(n)) return *kept;
  const bool ok = check();
  pair_ok_.emplace_back(&n, ok);
  return ok;
}

// The float32 or float64 x of `v`, a var/std as make_moment builds it (the mean of
// (x - m) * (x - m), m the mean of x over the same axes), where one moment
// kernel computes it in one pass (plan_moment): the device has float64,
// the body has that form and the kernel would read x along its rows.
// Decided the same way wherever it is asked (evaluate skips m's kernel).
const NodePtr* Scheduler::moment_input(const Node& v) {
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
ReductionPair Scheduler::softmax_input(const Node& s) {
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
const NodePtr* Scheduler::pair_input(const Node& r) {
  if (const NodePtr* x = moment_input(r)) return x;
  return softmax_input(r).x;
}

// Computes `first` with one moment kernel where it is a var/std that has
// one (moment_input), or a mean that one in `todo` can compute too; every
// mean of the same array over the same axes in `todo` is its second
// output. Takes them out of `todo`; true once `first` is scheduled (by
// that kernel, or by the fallback where it does not fit).
bool Scheduler::schedule_moment(const NodePtr& first, Nodes& todo, CutReason cut) {
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
bool Scheduler::schedule_softmax(const NodePtr& first, Nodes& todo, CutReason cut) {
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

}  // namespace fusecl::detail
