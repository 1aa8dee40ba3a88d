// fusecl::fuse: a function of arrays whose kernels are planned once per
// argument signature and replayed on later calls, as cupy.fuse and
// torch.compile do. For small arrays, building the graph and scheduling it
// cost more than the kernel: Black-Scholes (about 90 operations) at 2^10
// elements takes 43 µs of host time per call built and evaluated (12 to
// build, 12 to schedule, the rest to hash and enqueue), and 9 to 10
// replayed, about what enqueueing any one kernel costs (PoCL, 2-core AMD
// EPYC, 2026-11-23).
#pragma once

#include "fusecl/array.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fusecl {

/// What a fused function did so far (all signatures together).
struct FuseInfo {
  std::uint64_t traces = 0;      // calls that ran the function and planned a replay
  std::uint64_t replays = 0;     // calls that replayed a plan without running the function
  std::uint64_t unreplayed = 0;  // calls that ran the function and evaluated its graph as eval() does
  std::size_t signatures = 0;    // plans held now (at most max_signatures)
  std::string last_reason;       // why the latest unreplayed call could not replay ("" if none was)
};

namespace detail {

struct TraceCache;
std::shared_ptr<TraceCache> make_trace_cache(std::size_t max_signatures);

/// What a binding adds to call_traced for arguments that are not nodes:
/// Python's numbers, whose dtype each operation decides (NEP 50), so they
/// cannot be one scalar node of a dtype fixed in advance. The body makes a
/// scalar slot of the dtype each use needs (trace_scalar), and each replay
/// fills the slots through `fill`.
struct TraceHooks {
  std::vector<std::uint64_t> key;  // signature words besides the arguments' (plans are kept per both)
  // Set by call_traced before the body runs: whether it runs for a plan
  // (trace_scalar makes slots) or only for its values.
  bool tracing = false;
  // Set by the body when it ran for a plan: why no plan may be kept ("": one
  // may), and what the plan keeps to hand to `fill`.
  std::string refuse;
  std::shared_ptr<const void> payload;
  // A replay's slot values (bits, in the order trace_scalar made the slots)
  // for this call, from the payload its trace left. It returns "", or why
  // this call cannot replay: the body then runs instead, and the reason is
  // FuseInfo::last_reason. Called with no lock held; may throw (the call then
  // throws, having launched nothing).
  std::function<std::string(const void* payload, std::vector<std::uint64_t>& bits)> fill;
};

/// The evaluated results of the function `body` calls on the arrays whose
/// nodes are `args`: a replay of the plan for their signature if the cache
/// holds one; otherwise body runs, its results are evaluated, and the plan is
/// kept where it can be replayed. body's argument is the nodes to call the
/// function with.
std::vector<NodePtr> call_traced(TraceCache& cache, const std::vector<NodePtr>& args,
                                 const std::function<std::vector<NodePtr>(const std::vector<NodePtr>&)>& body,
                                 TraceHooks* hooks = nullptr);
FuseInfo trace_info(const TraceCache& cache);

/// While a body runs for a plan (TraceHooks::tracing) on this thread: a
/// scalar of dtype d, now `bits`, as a 0-d array on the arguments' device,
/// whose value each replay takes from TraceHooks::fill (never folded on the
/// host: a cast of it is computed in the kernel). Otherwise null.
NodePtr trace_scalar(DType d, std::uint64_t bits);

template <class R>
struct FusedResult {
  static_assert(is_array_v<R>, "fusecl::fuse: the function must return an Array, or a std::tuple or std::pair of Arrays");
  static std::vector<NodePtr> nodes(const R& r) { return {r.node()}; }
  static R make(const std::vector<NodePtr>& n) { return R(n.at(0)); }
};
template <template <class...> class Tuple, class... A>
struct FusedTuple {
  static_assert((is_array_v<A> && ...), "fusecl::fuse: the function must return Arrays");
  static std::vector<NodePtr> nodes(const Tuple<A...>& r) {
    return std::apply([](const auto&... a) { return std::vector<NodePtr>{a.node()...}; }, r);
  }
  static Tuple<A...> make(const std::vector<NodePtr>& n) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) { return Tuple<A...>(A(n.at(I))...); }(std::index_sequence_for<A...>{});
  }
};
template <class... A>
struct FusedResult<std::tuple<A...>> : FusedTuple<std::tuple, A...> {};
template <class A, class B>
struct FusedResult<std::pair<A, B>> : FusedTuple<std::pair, A, B> {};

// An argument of a fused function: an Array as it is, or an arithmetic
// scalar, which reaches the function as a 0-d Array of its type (a kernel
// argument that replays take from each call).
template <class X>
struct FuseArg {
  static_assert(std::is_arithmetic_v<X>, "fusecl::fuse: arguments are Arrays or arithmetic scalars");
  using S = canonical_t<X>;
  using type = Array<S>;
  static NodePtr node(X x) { return make_scalar(dtype_of_v<S>, bits_of(static_cast<S>(x))); }
};
template <class T>
struct FuseArg<Array<T>> {
  using type = Array<T>;
  static const NodePtr& node(const Array<T>& a) { return a.node(); }
};

}  // namespace detail

/// A function of arrays (see fuse()). Copies share one plan cache; calls
/// from any thread are safe.
template <class F>
class Fused {
 public:
  explicit Fused(F f, std::size_t max_signatures = 8)
      : f_(std::move(f)), cache_(detail::make_trace_cache(max_signatures)) {}

  /// Each argument an Array or an arithmetic scalar (a float reaches the
  /// function as a 0-d Array<float>, and so on).
  template <class... X>
  auto operator()(const X&... args) const {
    using R = std::remove_cvref_t<std::invoke_result_t<const F&, const typename detail::FuseArg<X>::type&...>>;
    // The function gets arrays of the nodes call_traced hands it (for a
    // plan, new nodes over the arguments' buffers and new scalars, so that
    // what it captures is told apart from what it is given).
    auto body = [&](const std::vector<detail::NodePtr>& in) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return detail::FusedResult<R>::nodes(std::invoke(f_, typename detail::FuseArg<X>::type(in[I])...));
      }(std::index_sequence_for<X...>{});
    };
    return detail::FusedResult<R>::make(detail::call_traced(*cache_, {detail::FuseArg<X>::node(args)...}, body));
  }

  FuseInfo info() const { return detail::trace_info(*cache_); }

 private:
  F f_;
  std::shared_ptr<detail::TraceCache> cache_;
};

/// `f`, a function of fusecl Arrays returning an Array or a std::tuple or
/// std::pair of them, made to plan its kernels once per argument signature
/// (dtypes, shapes, device, which arguments are the same array) and replay
/// them on later calls: no graph is built and nothing is scheduled again.
/// Results are evaluated when the call returns (their kernels enqueued), as
/// with eval().
///
/// An argument may also be an arithmetic scalar: the function gets it as a
/// 0-d Array of its C++ type (pass 0.5f, not 0.5, for float32 arithmetic: a
/// 0-d array's dtype counts in promotion, as in NumPy), and a replay uses
/// each call's value. A scalar the function captures instead is fixed when
/// it is traced.
///
/// A replay needs what a plan can be replayed with:
///   - every argument evaluated (a buffer, not a lazy expression, a view or a
///     host view), non-empty, on one device;
///   - the function pure in its arguments: arrays it reads besides them (a
///     captured weight) are read from the buffers they had when it was traced;
///   - nothing evaluated or uploaded while the function runs (to_host, eval,
///     from_host, another fused function, or a graph past
///     FUSECL_MAX_FUSED_OPS), and no random numbers drawn in it: a replay
///     would not do those again.
/// Otherwise the call runs the function and evaluates its results as eval()
/// does: the same values, without the saving. info().last_reason and
/// FUSECL_LOG=schedule say why. At most `max_signatures` plans are kept,
/// the least recently used dropped first.
template <class F>
Fused<std::decay_t<F>> fuse(F&& f, std::size_t max_signatures = 8) {
  return Fused<std::decay_t<F>>(std::forward<F>(f), max_signatures);
}

}  // namespace fusecl
