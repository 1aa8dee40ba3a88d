// Nodes carry their kind's data as a tagged union: every node the API makes
// holds exactly the alternative its op calls for, before and after
// evaluation (a node becomes a buffer in place), and asking for another
// kind's data throws instead of reading a field that means nothing.
#include "src/node.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <unordered_set>
#include <variant>
#include <vector>

namespace {

// Every node reachable from `roots`, each once (an explicit stack: no recursion).
std::vector<const fusecl::detail::Node*> all_nodes(const std::vector<fusecl::detail::NodePtr>& roots) {
  std::vector<const fusecl::detail::Node*> out, stack;
  std::unordered_set<const fusecl::detail::Node*> seen;
  for (const auto& r : roots) stack.push_back(r.get());
  while (!stack.empty()) {
    const auto* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    out.push_back(n);
    for (const auto& in : n->inputs) stack.push_back(in.get());
  }
  return out;
}

}  // namespace

TEST_CASE("every node holds the data of its kind, before and after evaluation", "[graph]") {
  using fusecl::Op;
  auto x = fusecl::from_host(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  auto r = fusecl::random::uniform<float>({2, 3}, 7);
  auto t = fusecl::transpose(x);                                       // a view
  auto s = fusecl::sum(x * r + 1.0f, 1, true);                         // a reduction, a scalar, a generator
  auto c = fusecl::concatenate({x, fusecl::full<float>({1, 3}, 2.0f)});  // a concatenation, a view of a scalar
  auto m = fusecl::reshape(t, {6});                                    // not expressible as a view: a copy
  auto y = (c - fusecl::mean(c, 0, true)) * 2.0f;
  std::vector<fusecl::detail::NodePtr> roots{t.node(), s.node(), c.node(), m.node(), y.node()};
  std::unordered_set<Op> kinds;
  for (const auto* n : all_nodes(roots)) {
    INFO(fusecl::op_name(n->op));
    CHECK(fusecl::detail::kind_data_matches(*n));
    kinds.insert(n->op);
  }
  for (Op k : {Op::Buffer, Op::Scalar, Op::Generate, Op::View, Op::Sum, Op::Concat, Op::Contiguous, Op::Mean})
    CHECK(kinds.count(k) == 1);  // the graph above really has every kind

  fusecl::eval(t, s, c, m, y);
  // Waits for the kernels: a process that exits while PoCL still compiles a
  // queued kernel's work-group function can abort in LLVM's teardown.
  fusecl::finish();
  for (const auto& n : roots) {
    CHECK(fusecl::detail::kind_data_matches(*n));
    if (n->op == Op::Buffer) CHECK(n->inputs.empty());
  }
  // A buffer has no view data; a view no buffer.
  CHECK_THROWS_AS(x.node()->view(), std::bad_variant_access);
  CHECK_THROWS_AS(fusecl::transpose(x).node()->buffer(), std::bad_variant_access);
  CHECK_THROWS_AS(fusecl::sum(x + 1.0f).node()->concat_axis(), std::bad_variant_access);
}
