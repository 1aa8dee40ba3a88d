// A reduction and its consumer in one kernel (codegen KernelPlan::finish):
// where an evaluation root is an elementwise function of one reduction and
// scalars alone (sqrt(sum(x * x, 1)), mean(x, 0) * 2 + 1, log(sum(x))), the
// reduction's kernel computes it where it stores, instead of storing the
// reduction for a kernel of its own to read. Each such kernel saves a launch
// and a pass over the reduced values, which is most of the cost at small
// sizes. FUSECL_REDUCE_FINISH=0: two kernels, to compare.
#include "src/schedule_pass.hpp"

#include "codegen/spelling.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace fusecl::detail {

namespace {

// The most entries a finish holds: a consumer larger than this is no small
// function of the value, and gets its own kernel as before.
constexpr std::size_t kMaxFinish = 64;

// e's body down to r as finish entries (finish[0] is r), and the scalars its
// Scalar entries read (slots left at -1, one entry a node); nullopt where the
// body reads anything else (a buffer, a generator, a view, another
// reduction, an output already scheduled), is too large, or shares a node
// with something outside it: then r's value is wanted elsewhere too, or a
// node between e and r is (an array the caller holds), and computing e at
// r's store would leave them to be computed again.
struct FinishBody {
  std::vector<codegen::Instr> instrs;
  std::vector<std::pair<std::size_t, const Node*>> scalars;  // entry, its scalar node
};

class FinishBuilder {
 public:
  FinishBuilder(const Node& r, const PendingOutputs& pending) : r_(r), pending_(pending) {
    codegen::Instr value;
    value.op = r.op;
    value.dtype = r.dtype;
    body_.instrs.push_back(value);
    at_[&r] = 0;
  }

  // The body of e, or nullopt.
  std::optional<FinishBody> build(const Node& e) {
    if (visit(e) < 0) return std::nullopt;
    // Each node below e is owned only by the body's own nodes, and r also by
    // the scheduler's list of e's dependencies (`deps`, which holds it once).
    constexpr long kSchedulerHolds = 1;
    for (const auto& [node, seen] : refs_)
      if (seen.owners != seen.refs + (node == &r_ ? kSchedulerHolds : 0)) return std::nullopt;
    return std::move(body_);
  }

 private:
  std::int16_t visit(const Node& n) {
    if (auto it = at_.find(&n); it != at_.end()) return it->second;
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
        if (operand.op != Op::Scalar) {
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

  const Node& r_;
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

// Whether plan k can take a finish: one output, a plain reduction (not an
// arg-reduction, a moment or a pair, whose stores are their own), whose
// value is of its accumulator's type; where it stores vectors of outputs,
// every entry has a vector spelling.
bool takes_finish(const codegen::KernelPlan& p, const std::vector<codegen::Instr>& finish) {
  const auto& rs = p.reduce;
  if (p.kind != codegen::KernelKind::Reduce || rs.moment != 0 || rs.online || rs.combine || rs.acc != rs.out ||
      rs.finish == codegen::SplitFinish::Consumer || reduce_info(rs.op).finish == Finish::Index)
    return false;
  const bool vector_stores = p.width > 1 && ((rs.strategy == codegen::ReduceStrategy::ColumnBlock && rs.kept_inner) || rs.row_lanes);
  if (!vector_stores) return true;
  return std::all_of(finish.begin() + 1, finish.end(), [&](const codegen::Instr& in) {
    if (in.op == Op::Scalar) return true;
    return codegen::vectorizable(in.op, codegen::operand_dtype(finish, in));
  });
}

}  // namespace

bool Scheduler::schedule_finish(const NodePtr& e, const Nodes& deps, CutReason cut) {
  if (!tuning_.reduce_finish || deps.size() != 1 || !is_fused(*e, &pending_)) return false;
  const NodePtr& r = deps.front();
  if (op_class(r->op) != OpClass::Reduce || reduce_info(r->op).finish == Finish::Index || e->shape != r->shape ||
      r->shape.size() == 0 || r->inputs[0]->shape.size() == 0)
    return false;
  auto body = FinishBuilder(*r, pending_).build(*e);
  if (!body) return false;
  // Computed already, or by a pair kernel (a var's mean and squares, softmax's max and sum).
  if (find_made(*r) >= 0 || pair_input(*r)) return false;
  if (!unevaluated_barriers_below(r->inputs[0], &pending_).empty()) return false;  // r's own first: the usual way
  split_oversized({&r->inputs[0], 1});
  ScheduledKernel k = plan_reduce_fitting(r);
  if (!takes_finish(k.plan, body->instrs)) return false;
  // The finish's scalars: slots of the plan's, shared with its body where the same node.
  for (const auto& [entry, node] : body->scalars) {
    std::int16_t slot = -1;
    for (const auto& [s, n] : k.args.scalar_nodes)
      if (n == node) slot = s;
    if (slot < 0) {
      slot = std::int16_t(k.plan.scalar_dtypes.size());
      k.plan.scalar_dtypes.push_back(node->dtype);
      k.args.scalars.push_back(node->bits());
      k.args.scalar_nodes.push_back({slot, node});
    }
    body->instrs[entry].slot = slot;
  }
  k.plan.finish = std::move(body->instrs);
  if (!fits(k)) return false;
  const int out = new_output(e);
  add_kernel(std::move(k), r->inputs[0]->shape, {out}, cut);
  pending_.add(*e, out);
  return true;
}

}  // namespace fusecl::detail
