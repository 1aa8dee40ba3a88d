// Deterministic input vectors for the op tests: random values of a dtype,
// mixed with the edge values where implementations go wrong (zeros of both
// signs, infinities, NaN, subnormals, overflow thresholds, integer extremes,
// shift counts around the bit width).
//
// Everything is a function of the seed alone. Values come from the raw output
// of std::mt19937_64, which the C++ standard fixes, and never from the std::
// distributions, whose results differ between standard libraries; so a seed
// printed on one machine reproduces the same inputs on another.
#pragma once

#include "fusecl/dtype.hpp"
#include "support/value.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fusecl::test {

struct InputOptions {
  /// Share of each vector taken from edge_values() (cycled, from a seeded
  /// starting point, so every edge value appears once the share reaches the
  /// list's length).
  double edge_fraction = 0.25;
  /// Float NaN and infinities (among edge values and random bit patterns).
  bool nan_inf = true;
  /// Float subnormals; turn off for devices without CL_FP_DENORM, which may
  /// flush them to zero on input.
  bool denormals = true;
  /// Where random (non-edge) values fall: [lo, hi], uniformly (floats) or
  /// inclusive and clipped to the dtype (integers). Without it, integers are
  /// uniform over the dtype's range and floats are random bit patterns, i.e.
  /// every exponent equally likely: the full range, log-uniformly.
  std::optional<std::pair<double, double>> range;
};

/// The edge values of dtype t that `opt` allows (its range does not filter
/// them: a test of asin wants to see what happens outside [-1, 1]).
std::vector<Value> edge_values(DType t, const InputOptions& opt = {});

/// One random value of dtype t (never an edge-value pick).
Value random_value(DType t, std::mt19937_64& rng, const InputOptions& opt = {});

/// n values of dtype t, a shuffled mix of edge and random values.
std::vector<Value> random_values(DType t, std::size_t n, std::uint64_t seed, const InputOptions& opt = {});

/// Every pair of edge values of a and b, as two vectors of equal length (the
/// cartesian product), for binary ops.
std::pair<std::vector<Value>, std::vector<Value>> edge_pairs(DType a, DType b, const InputOptions& opt = {});

/// `fallback`, unless the environment variable FUSECL_TEST_SEED holds a seed
/// (decimal or 0x-hex), which lets a failure be rerun with the seed it printed.
/// Throws std::invalid_argument if the variable is set but not a number.
std::uint64_t test_seed(std::uint64_t fallback);

/// "inputs from seed 0x1234; rerun with FUSECL_TEST_SEED=0x1234". Use it in a
/// Catch2 INFO() next to the checks, so a failure prints how to reproduce it.
std::string seed_message(std::uint64_t seed);

/// n values of T from the raw generator: integers from -100000 to 100000
/// (divided by 64 for floats, exactly), nearly all different, so that a
/// row's extremes and integer sums are known exactly (the row kernels'
/// tests; integers narrower than that wrap, as NumPy's casts do).
template <class T>
std::vector<T> spread_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& e : v) {
    const auto k = std::int64_t(rng() % 200001) - 100000;
    if constexpr (std::is_floating_point_v<T>) e = T(k) / T(64);
    else e = T(k);
  }
  return v;
}

/// n floats of uniform noise in [centre - spread, centre + spread], a
/// different value in every lane (the moment kernels' tests).
inline std::vector<float> noisy(std::size_t n, float centre, float spread, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-spread, spread);
  std::vector<float> h(n);
  for (auto& v : h) v = centre + u(rng);
  return h;
}

}  // namespace fusecl::test
