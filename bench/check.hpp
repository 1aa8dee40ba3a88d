// Device results back on the host, and their comparison with the C++ loop
// reference. Every device way is checked once, after its warm-up and before it
// is timed: a fast wrong answer must fail loudly instead of being reported.
#pragma once

#include "bench/host_array.hpp"
#include "bench/workloads.hpp"

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fusecl_bench {

/// Host vectors with one vector per result array, of its element type.
template <class Results>
struct host_vectors;
template <class... A>
struct host_vectors<std::tuple<A...>> {
  using type = std::tuple<std::vector<typename A::value_type>...>;
};
template <class Results>
using host_vectors_t = typename host_vectors<Results>::type;

/// Queues the evaluation of every result: results of one shape share a kernel.
template <class... A>
void eval_all(const std::tuple<A...>& results) {
  std::apply([](const auto&... a) { fusecl::eval(a...); }, results);
}

/// Vectors sized like the reference's arrays, to download into.
template <class Vectors, class Reference>
Vectors sized_like(const Reference& ref) {
  Vectors out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((std::get<I>(out).resize(static_cast<std::size_t>(std::get<I>(ref).size()))), ...);
  }(std::make_index_sequence<std::tuple_size_v<Reference>>{});
  return out;
}

/// Copies each (already queued) result into its host vector; blocking.
template <class... A, class... V>
void download_all(const std::tuple<A...>& results, std::tuple<V...>& out) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (std::get<I>(results).to_host(std::span(std::get<I>(out))), ...);
  }(std::index_sequence_for<A...>{});
}

/// Empty when every element agrees with the reference within
/// |got - want| <= atol + rtol * |want|; otherwise which element of which
/// result is furthest off, with both values.
template <class Vectors, class Reference>
std::string compare_results(const Vectors& got, const Reference& want, const WorkloadInfo& info) {
  std::string problem;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    auto one = [&](std::size_t result, const auto& g, const auto& w) {
      if (!problem.empty()) return;
      const auto ref = w.values();
      if (g.size() != ref.size()) {
        problem = "result " + std::to_string(result) + " has " + std::to_string(g.size()) + " elements, expected " +
                  std::to_string(ref.size());
        return;
      }
      double worst = 0;  // in units of the allowed error
      std::size_t at = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = double(g[i]), r = double(ref[i]);
        const double excess = std::abs(d - r) / (info.atol + info.rtol * std::abs(r));
        if (!(excess <= worst)) {  // also catches NaN
          worst = excess;
          at = i;
          if (std::isnan(excess)) break;
        }
      }
      if (!(worst <= 1.0)) {
        char text[256];
        std::snprintf(text, sizeof text, "result %zu element %zu is %.9g, the C++ loop says %.9g (rtol %g, atol %g)", result,
                      at, double(g[at]), double(ref[at]), info.rtol, info.atol);
        problem = std::string(info.name) + ": wrong answer: " + text;
      }
    };
    (one(I, std::get<I>(got), std::get<I>(want)), ...);
  }(std::make_index_sequence<std::tuple_size_v<Reference>>{});
  return problem;
}

}  // namespace fusecl_bench
