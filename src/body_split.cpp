// Splits kernel bodies that are too large for one kernel: too many
// instructions to generate and compile in reasonable time, or more kernel
// arguments than the device takes. The graph bound (max_fused_ops) normally
// keeps bodies small; this is the hard limit behind it, whatever bound a user
// sets, and it picks where to cut in one pass over the body, so a long chain
// is split into few kernels instead of being peeled one level at a time.
#include "src/scheduler.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fusecl::detail {

namespace {

struct Cost {
  std::uint64_t instrs = 0, params = 0;
};

// Arguments of an operand that is not computed in the body: a scalar, or a
// load (buffer, offset, strides over the body's dimensions, generator
// parameters), over-estimated.
std::uint64_t operand_params(const Node& n, int ndim) {
  if (n.op == Op::Scalar || (n.op == Op::View && n.inputs[0]->op == Op::Scalar)) return 8;
  return 8 + 8 + 8 * std::uint64_t(ndim) + 32;
}

class Splitter {
 public:
  Splitter(const BodyLimits& limits, int ndim, const PendingOutputs* pending)
      : limits_(limits), ndim_(ndim), pending_(pending) {}

  // Whether `in` is computed in the body (not loaded: a leaf, a barrier, an
  // earlier kernel's output or a cut).
  bool computed(const Node& in) const { return is_fused(in, pending_) && !cut_.count(&in); }

  bool fits(const Cost& c) const { return c.instrs <= limits_.instructions && c.params <= limits_.param_bytes; }

  // The cost of computing input `in` inside a body (a cut one is loaded).
  Cost input_cost(const Node& in) const {
    if (!computed(in)) return {1, operand_params(in, ndim_)};
    return cost_.at(&in);
  }

  // Costs as sums over the inputs count shared nodes once per use; where
  // that passes the limits, count distinct nodes instead (stopping once past).
  Cost exact(const Node& root) const {
    Cost c;
    std::unordered_set<const Node*> seen{&root};
    std::vector<const Node*> stack{&root};
    c.instrs = 1;
    while (!stack.empty() && fits(c)) {
      const Node* n = stack.back();
      stack.pop_back();
      for (const auto& in : n->inputs) {
        if (!seen.insert(in.get()).second) continue;
        c.instrs += 1;
        if (computed(*in)) stack.push_back(in.get());
        else c.params += operand_params(*in, ndim_);
      }
    }
    return c;
  }

  Cost sum(const Node& n) const {
    Cost c{1, 0};
    for (const auto& in : n.inputs) {
      const Cost i = input_cost(*in);
      c.instrs = std::min<std::uint64_t>(c.instrs + i.instrs, std::uint64_t(1) << 62);
      c.params = std::min<std::uint64_t>(c.params + i.params, std::uint64_t(1) << 62);
    }
    return c;
  }

  // Sizes n, whose elementwise inputs are sized, cutting inputs until it fits.
  void size(const NodePtr& n) {
    Cost c = sum(*n);
    while (!fits(c)) {
      const Cost e = exact(*n);
      if (fits(e)) {
        c = e;
        break;
      }
      // Cut the input that costs most of what is over the limit.
      const bool by_params = c.params > limits_.param_bytes;
      const NodePtr* largest = nullptr;
      std::uint64_t most = 0;
      for (const auto& in : n->inputs) {
        if (!computed(*in)) continue;
        const Cost ic = input_cost(*in);
        const std::uint64_t v = by_params ? ic.params : ic.instrs;
        if (!largest || v > most) {
          most = v;
          largest = &in;
        }
      }
      if (!largest) break;  // nothing left to cut: the caller's fallback decides
      cut_.insert(largest->get());
      cuts.push_back(*largest);
      c = sum(*n);
    }
    cost_[n.get()] = c;
  }

  bool sized(const Node& n) const { return cost_.count(&n) != 0; }

  std::vector<NodePtr> cuts;

 private:
  BodyLimits limits_;
  int ndim_;
  const PendingOutputs* pending_;
  std::unordered_map<const Node*, Cost> cost_;
  std::unordered_set<const Node*> cut_;
};

}  // namespace

std::vector<NodePtr> body_cuts(const std::vector<NodePtr>& bodies, const BodyLimits& limits, std::uint64_t* total,
                               const PendingOutputs* pending) {
  if (total) *total = 0;
  if (bodies.empty()) return {};
  Splitter sp(limits, bodies.front()->shape.ndim(), pending);
  struct Frame {
    const NodePtr* node;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (const auto& body : bodies) {
    if (is_fused(*body, pending) && !sp.sized(*body)) stack.push_back({&body, 0});
    // Post-order: a node is sized once all its elementwise inputs are.
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Node& n = **f.node;
      if (f.next < n.inputs.size()) {
        const NodePtr& in = n.inputs[f.next++];
        if (is_fused(*in, pending) && !sp.sized(*in)) stack.push_back({&in, 0});  // f is not used after this
        continue;
      }
      sp.size(*f.node);
      stack.pop_back();
    }
    if (total) *total += sp.input_cost(*body).instrs;
  }
  return std::move(sp.cuts);
}

}  // namespace fusecl::detail
