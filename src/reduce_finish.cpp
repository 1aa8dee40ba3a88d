// A reduction and its consumer in one kernel (codegen KernelPlan::finish):
// where an evaluation root is an elementwise function of one reduction and
// scalars alone (sqrt(sum(x * x, 1)), mean(x, 0) * 2 + 1, log(sum(x)),
// 1 / sqrt(var(x, 1) + eps)), or of the two values one pair kernel computes
// (a logsumexp, log(sum(exp(x - m))) + m from softmax's max and sum; a
// coefficient of variation, std(x) / mean(x), from a moment kernel), the
// reduction's kernel computes it where it stores, instead of storing the
// reduction for a kernel of its own to read.
// Each such kernel saves a launch and a pass over the reduced values, which
// is most of the cost at small sizes. FUSECL_REDUCE_FINISH=0: two kernels,
// to compare.
#include "src/schedule_pass.hpp"

#include "codegen/spelling.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace fusecl::detail {

// e's body down to the reductions' values as finish entries (the first
// ones, in order), and the scalars its Scalar entries read (slots left at
// -1, one entry a node).
struct FinishBody {
  std::vector<codegen::Instr> instrs;
  std::vector<std::pair<std::size_t, const Node*>> scalars;  // entry, its scalar node
};

namespace {

// The most entries a finish holds: a consumer larger than this is no small
// function of the value, and gets its own kernel as before.
constexpr std::size_t kMaxFinish = 64;

// A reduction value a finish reads, and how many owners it has besides the
// finish's own nodes: the scheduler's list of e's dependencies (`deps`,
// which holds each once), and for softmax's max the pair's own read of it
// (x - max, in the sum's body).
struct FinishInput {
  const Node* value;
  long held_elsewhere;
};

// Builds e's FinishBody; nullopt where the body reads anything but them and
// scalars (a buffer, a generator, a view but of a scalar, another
// reduction, an output already scheduled), is too large, or shares a node with something outside it: then
// a value is wanted elsewhere too, or a node between e and it is (an array
// the caller holds), and computing e at the store would leave them to be
// computed again.
class FinishBuilder {
  static bool scalar_view(const Node& n) { return n.op == Op::View && n.inputs[0]->op == Op::Scalar; }

 public:
  FinishBuilder(std::initializer_list<FinishInput> values, const PendingOutputs& pending) : values_(values), pending_(pending) {
    for (const FinishInput& v : values_) {
      codegen::Instr value;
      value.op = v.value->op;
      value.dtype = v.value->dtype;
      at_[v.value] = std::int16_t(body_.instrs.size());
      body_.instrs.push_back(value);
    }
  }

  std::optional<FinishBody> build(const Node& e) {
    if (visit(e) < 0) return std::nullopt;
    // Each node below e is owned only by the body's own nodes, and the
    // values also where values_ says.
    for (const auto& [node, seen] : refs_) {
      long elsewhere = 0;
      for (const FinishInput& v : values_)
        if (v.value == node) elsewhere = v.held_elsewhere;
      if (seen.owners != seen.refs + elsewhere) return std::nullopt;
    }
    return std::move(body_);
  }

 private:
  std::int16_t visit(const Node& n) {
    if (auto it = at_.find(&n); it != at_.end()) return it->second;
    // A scalar read through a view (fuse's scalar arguments, 0-d arrays whose
    // value each replay sets): the scalar, as a kernel body reads it.
    if (scalar_view(n)) return visit(*n.inputs[0]);
    // Bounds the walk (and its recursion) as well as the finish.
    if (body_.instrs.size() >= kMaxFinish || ++visits_ > 2 * kMaxFinish) return -1;
    codegen::Instr in;
    in.op = n.op;
    in.dtype = n.dtype;
    if (n.op == Op::Scalar) {
      body_.scalars.push_back({body_.instrs.size(), &n});
    } else if (is_fused(n, &pending_) && n.inputs.size() <= 3) {
      std::int16_t v[3] = {-1, -1, -1};
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const Node& operand = *n.inputs[i];
        // Scalars and their views are free to read again: any owners.
        if (operand.op != Op::Scalar && !scalar_view(operand)) {
          Owners& o = refs_[&operand];
          ++o.refs;
          o.owners = n.inputs[i].use_count();
        }
        v[i] = visit(operand);
        if (v[i] < 0) return -1;
      }
      in.a = v[0];
      in.b = v[1];
      in.c = v[2];
    } else {
      return -1;
    }
    body_.instrs.push_back(in);
    return at_[&n] = std::int16_t(body_.instrs.size() - 1);
  }

  std::vector<FinishInput> values_;
  const PendingOutputs& pending_;
  FinishBody body_;
  std::size_t visits_ = 0;
  std::unordered_map<const Node*, std::int16_t> at_;
  struct Owners {
    long refs = 0;    // within the body
    long owners = 0;  // in all
  };
  std::unordered_map<const Node*, Owners> refs_;  // node below e
};

// Whether plan k can take a finish: a reduction kernel (not an
// arg-reduction, whose stores are its own; a plain one whose value is of its
// accumulator's type, as the finish reads it), with a vector spelling for
// every entry where it may store vectors of outputs (a pair's or a moment's
// kernel wherever its width is more than one).
bool takes_finish(const codegen::KernelPlan& p, const std::vector<codegen::Instr>& finish) {
  const auto& rs = p.reduce;
  const bool pair = rs.online || rs.moment != 0;
  if (p.kind != codegen::KernelKind::Reduce || rs.combine || (rs.acc != rs.out && !pair) ||
      rs.finish == codegen::SplitFinish::Consumer || reduce_info(rs.op).finish == Finish::Index)
    return false;
  const bool columns = rs.strategy == codegen::ReduceStrategy::ColumnBlock;
  const bool vector_stores = p.width > 1 && (pair || (columns && rs.kept_inner) || rs.row_lanes);
  if (!vector_stores) return true;
  return std::all_of(finish.begin() + codegen::reduce_values(rs), finish.end(), [&](const codegen::Instr& in) {
    if (in.op == Op::Scalar) return true;
    return codegen::vectorizable(in.op, codegen::operand_dtype(finish, in));
  });
}

}  // namespace

bool Scheduler::schedule_finish(const NodePtr& e, const Nodes& deps, CutReason cut) {
  if (!tuning_.reduce_finish || !is_fused(*e, &pending_)) return false;
  if (deps.size() == 2) return schedule_pair_finish(e, deps, cut);
  if (deps.size() != 1) return false;
  const NodePtr& r = deps.front();
  if (op_class(r->op) != OpClass::Reduce || reduce_info(r->op).finish == Finish::Index || e->shape != r->shape ||
      r->shape.size() == 0 || r->inputs[0]->shape.size() == 0)
    return false;
  auto body = FinishBuilder({{r.get(), 1}}, pending_).build(*e);
  if (!body || find_made(*r) >= 0) return false;
  // A var/std in one pass (a moment kernel): that kernel.
  if (const NodePtr* x = moment_input(*r)) {
    if (!unevaluated_barriers_below(*x, &pending_).empty()) return false;
    return add_finished(plan_moment(*r, *x, nullptr, tuning_, &pending_), std::move(*body), e, (*x)->shape, cut);
  }
  if (pair_input(*r)) return false;  // softmax's sum: with its max (schedule_pair_finish)
  if (!unevaluated_barriers_below(r->inputs[0], &pending_).empty()) return false;  // r's own first: the usual way
  split_oversized({&r->inputs[0], 1});
  return add_finished(plan_reduce_fitting(r), std::move(*body), e, r->inputs[0]->shape, cut);
}

// e a function of two reductions one pair kernel computes, which computes e
// where it would store them: softmax's sum s and its max m (a logsumexp,
// log(sum(exp(x - m))) + m with m = max(x); softmax_input), or a var/std and
// a mean of its x over the same axes (std(x) / mean(x); moment_input).
bool Scheduler::schedule_pair_finish(const NodePtr& e, const Nodes& deps, CutReason cut) {
  if (deps[0]->op == Op::Mean && deps[1]->op == Op::Mean) return schedule_moment_finish(e, deps, cut);
  const bool sum_first = deps[0]->op == Op::Sum;
  const NodePtr& s = deps[sum_first ? 0 : 1];
  const NodePtr& m = deps[sum_first ? 1 : 0];
  if (s->op != Op::Sum || m->op != Op::Max || e->shape != s->shape || s->shape.size() == 0) return false;
  // The max is also read by the sum's body (x - m), once.
  auto body = FinishBuilder({{m.get(), 2}, {s.get(), 1}}, pending_).build(*e);
  if (!body || find_made(*s) >= 0 || find_made(*m) >= 0) return false;
  const ReductionPair pair = softmax_input(*s);
  if (!pair.x || pair.first->get() != m.get() || !unevaluated_barriers_below(*pair.x, &pending_).empty()) return false;
  return add_finished(plan_softmax(*m, *pair.x, tuning_, &pending_), std::move(*body), e, (*pair.x)->shape, cut);
}

// A var/std v and a mean of its x (v's own mean, or another of the same
// axes) in one moment kernel: the variance then the mean, as it stores them.
bool Scheduler::schedule_moment_finish(const NodePtr& e, const Nodes& deps, CutReason cut) {
  for (const bool var_first : {true, false}) {
    const NodePtr& v = deps[var_first ? 0 : 1];
    const NodePtr& mn = deps[var_first ? 1 : 0];
    const NodePtr* x = moment_input(*v);
    if (!x || mn->reduce().post_sqrt || mn->inputs[0] != *x || mn->reduce().axes != v->reduce().axes || mn->shape != v->shape ||
        e->shape != v->shape || v->shape.size() == 0)
      continue;
    // v's own mean is also read by its body (x - mean), once.
    const long mean_held = variance_pair(*v, &pending_).first->get() == mn.get() ? 2 : 1;
    auto body = FinishBuilder({{v.get(), 1}, {mn.get(), mean_held}}, pending_).build(*e);
    if (!body || find_made(*v) >= 0 || find_made(*mn) >= 0 || !unevaluated_barriers_below(*x, &pending_).empty()) return false;
    return add_finished(plan_moment(*v, *x, mn.get(), tuning_, &pending_), std::move(*body), e, (*x)->shape, cut);
  }
  return false;
}

// Kernel k of the reduction(s) e reads, over `shape`, computing e where it
// stores: the finish's scalars made slots of k's (shared with its body where
// the same node), e its one output. False where no kernel was planned, where
// it cannot take this finish (takes_finish) or where the arguments do not fit.
bool Scheduler::add_finished(std::optional<ScheduledKernel> planned, FinishBody body, const NodePtr& e, const Shape& shape,
                             CutReason cut) {
  if (!planned || !takes_finish(planned->plan, body.instrs)) return false;
  ScheduledKernel& k = *planned;
  for (const auto& [entry, node] : body.scalars) {
    std::int16_t slot = -1;
    for (const auto& [s, n] : k.args.scalar_nodes)
      if (n == node) slot = s;
    if (slot < 0) {
      slot = std::int16_t(k.plan.scalar_dtypes.size());
      k.plan.scalar_dtypes.push_back(node->dtype);
      k.args.scalars.push_back(node->bits());
      k.args.scalar_nodes.push_back({slot, node});
    }
    body.instrs[entry].slot = slot;
  }
  k.plan.finish = std::move(body.instrs);
  if (!fits(k)) return false;
  const int out = new_output(e);
  add_kernel(std::move(k), shape, {out}, cut);
  pending_.add(*e, out);
  return true;
}

}  // namespace fusecl::detail
