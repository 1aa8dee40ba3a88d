// Which nodes below a kernel's body must be evaluated first: the walk every
// scheduling decision starts from (scheduler.hpp).
#include "src/scheduler.hpp"

namespace fusecl::detail {

namespace {

// The walk below the bodies on `stack`.
std::vector<NodePtr> barriers_from(SmallVector<const NodePtr*, 16>& stack, const PendingOutputs* pending) {
  std::vector<NodePtr> out;
  const std::uint32_t epoch = next_walk_epoch();
  while (!stack.empty()) {
    const NodePtr& n = *stack.back();
    stack.pop_back();
    if (n->mark == epoch) continue;
    n->mark = epoch;
    if (pending && pending->find(*n) >= 0) continue;  // an earlier kernel of the schedule computes it
    if (is_barrier(*n)) {
      out.push_back(n);
      continue;
    }
    if (n->op == Op::View && is_barrier(*n->inputs[0]) && !is_evaluated(*n->inputs[0], pending)) {
      out.push_back(n->inputs[0]);
      continue;
    }
    if (is_elementwise(n->op))
      for (const auto& in : n->inputs) stack.push_back(&in);
  }
  return out;
}

}  // namespace

std::vector<NodePtr> unevaluated_barriers(const NodePtr& root, const PendingOutputs* pending) {
  if (root->op == Op::Transfer) return {};  // its input is another device's, evaluated there
  // Pointers to the graph's own references: the graph does not change during
  // the walk (the caller holds its lock), and no reference count is touched
  // for each node of every body of every evaluation.
  SmallVector<const NodePtr*, 16> stack;
  if (op_class(root->op) == OpClass::Reduce || root->op == Op::Concat)
    for (const auto& in : root->inputs) stack.push_back(&in);
  else
    stack.push_back(&body_root(root));
  return barriers_from(stack, pending);
}

std::vector<NodePtr> unevaluated_barriers_below(const NodePtr& body, const PendingOutputs* pending) {
  SmallVector<const NodePtr*, 16> stack{&body};
  return barriers_from(stack, pending);
}

}  // namespace fusecl::detail
