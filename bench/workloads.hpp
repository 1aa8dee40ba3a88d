// The workloads, each written once as a template over an array API: with
// DeviceApi it is the fusecl expression (fused, or eager with fusion off),
// with HostApi the scalar C++ loop on the host and the reference result. So
// every way of every workload evaluates literally the same expression.
//
// A workload is a struct with
//   static WorkloadInfo info();
//   template <class Api> static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& inputs);
// where compute returns a std::tuple of result arrays (evaluated together).
// The list at the bottom fixes the order in which they run and are reported.
#pragma once

#include "bench/host_array.hpp"
#include "codegen/philox.hpp"

#include <fusecl/fusecl.hpp>

#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

namespace fusecl_bench {

/// fusecl arrays; random numbers are generated inside the kernel that uses them.
struct DeviceApi {
  using F32 = fusecl::Array<float>;
  static F32 uniform(const fusecl::Shape& shape, std::uint64_t seed) { return fusecl::random::uniform<float>(shape, seed); }
};

/// Eager host arrays; random numbers from the same Philox4x32-10 mapping as
/// the device's (bitwise equal, so Monte Carlo counts can be compared), drawn
/// in a pass of their own like numpy.random's.
struct HostApi {
  using F32 = host::HostArray<float>;
  static F32 uniform(const fusecl::Shape& shape, std::uint64_t seed) {
    F32 out(shape);
    float* o = out.data();
    const std::int64_t n = out.size();
    for (std::int64_t i = 0; i < n; ++i) o[i] = fusecl::codegen::uniform_f32(std::uint64_t(i), seed);
    return out;
  }
};

/// How a workload's 2^log2 elements are shaped.
enum class Layout {
  flat,          // (n,)
  rows_of_1024,  // (n / 1024, 1024), for reductions along rows
  square,        // (2^(log2/2), 2^(log2 - log2/2)): as square as a power of two allows
};

/// Inputs are drawn uniformly between lo and hi. A transposed input has the
/// workload's shape reversed (x + transpose(y) needs y of shape (c, r)).
struct InputRange {
  float lo, hi;
  bool transposed = false;
};

struct WorkloadInfo {
  const char* name;                // BM_<name>/<way>/<log2 size>
  const char* formula;             // what is computed, for the results table
  std::vector<InputRange> inputs;  // one per input array
  Layout layout = Layout::flat;
  // A device result passes when every element has |device - host| <= atol + rtol * |host|.
  double rtol = 1e-5, atol = 1e-5;
};

/// The shape of a workload's arrays (and of its array results) at 2^log2 elements.
inline fusecl::Shape shape_of(const WorkloadInfo& info, int log2) {
  const std::int64_t n = std::int64_t(1) << log2;
  switch (info.layout) {
    case Layout::flat: return fusecl::Shape{n};
    case Layout::rows_of_1024: {
      const std::int64_t cols = n < 1024 ? n : 1024;
      return fusecl::Shape{n / cols, cols};
    }
    case Layout::square: return fusecl::Shape{std::int64_t(1) << (log2 / 2), std::int64_t(1) << (log2 - log2 / 2)};
  }
  return fusecl::Shape{n};
}

/// The shape of input `i`: the workload's, reversed where the input is transposed.
inline fusecl::Shape input_shape_of(const WorkloadInfo& info, int log2, std::size_t i) {
  const fusecl::Shape shape = shape_of(info, log2);
  if (!info.inputs[i].transposed) return shape;
  return fusecl::Shape(std::vector<std::int64_t>(shape.dims().rbegin(), shape.dims().rend()));
}

// The functions below are called unqualified so that argument-dependent
// lookup picks fusecl's or the host arrays' version from the argument type.

/// Two operations: the smallest chain that fusion can shorten.
struct Chain2 {
  static WorkloadInfo info() { return {"chain2", "x*2 + 1", {{-4, 4}}, Layout::flat, 1e-6, 1e-6}; }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    const auto& x = in[0];
    return std::tuple{x * 2.0f + 1.0f};
  }
};

/// The README's example: eight operations, three of them transcendental.
struct SqrtSinExp {
  static WorkloadInfo info() {
    return {"sqrt_sin_exp", "sqrt(x*x + y*y)*sin(x) + exp(-y)*0.5", {{-4, 4}, {-4, 4}}, Layout::flat, 1e-5, 1e-5};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    const auto& x = in[0];
    const auto& y = in[1];
    return std::tuple{sqrt(x * x + y * y) * sin(x) + exp(-y) * 0.5f};
  }
};

/// A degree-10 polynomial by Horner's rule, written as 10 multiplies and 10
/// adds (no fma), so that it is 20 operations: the Taylor series of exp.
struct Poly20 {
  static WorkloadInfo info() { return {"poly20", "Horner, degree 10: 10 mul + 10 add", {{-1, 1}}, Layout::flat, 1e-5, 1e-5}; }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    // c[k] = 1/k!
    static constexpr std::array<float, 11> c{1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720,
                                             1.0f / 5040, 1.0f / 40320, 1.0f / 362880, 1.0f / 3628800};
    const auto& x = in[0];
    auto p = x * c[10] + c[9];
    for (int k = 8; k >= 0; --k) p = p * x + c[std::size_t(k)];
    return std::tuple{p};
  }
};

/// European call and put prices (Black-Scholes), float32, two results of one
/// evaluation. The normal CDF uses the Abramowitz-Stegun 26.2.17 polynomial
/// (absolute error below 7.5e-8), as the classic GPU versions do: fusecl has
/// no erf. Spot, strike and years to expiry are inputs; rate and volatility
/// are constants.
struct BlackScholes {
  static constexpr float kRate = 0.02f, kVolatility = 0.30f;

  static WorkloadInfo info() {
    // Prices are at most the spot (30): absolute tolerance in money.
    return {"black_scholes", "call and put, A&S normal CDF", {{5, 30}, {1, 100}, {0.25f, 10}}, Layout::flat, 1e-4, 1e-3};
  }

  template <class A>
  static A normal_cdf(const A& d) {
    constexpr float p = 0.2316419f, b1 = 0.319381530f, b2 = -0.356563782f, b3 = 1.781477937f, b4 = -1.821255978f,
                    b5 = 1.330274429f, inv_sqrt_2pi = 0.39894228040143267794f;
    const A k = 1.0f / (1.0f + p * abs(d));
    const A poly = k * (b1 + k * (b2 + k * (b3 + k * (b4 + k * b5))));
    const A upper = inv_sqrt_2pi * exp(-0.5f * d * d) * poly;  // 1 - N(|d|)
    return where(d < 0.0f, upper, 1.0f - upper);
  }

  template <class Api>
  static auto compute(const fusecl::Shape& shape, const std::vector<typename Api::F32>& in) {
    return compute_at<Api>(shape, in, kRate);
  }

  /// At another interest rate, a float or a 0-d array (host_overhead.cpp
  /// changes it every call, in eval and as a fuse() argument).
  template <class Api, class R = float>
  static auto compute_at(const fusecl::Shape&, const std::vector<typename Api::F32>& in, const R& rate) {
    using A = typename Api::F32;
    const A& spot = in[0];
    const A& strike = in[1];
    const A& years = in[2];
    const A vol_sqrt_t = kVolatility * sqrt(years);
    const A d1 = (log(spot / strike) + (rate + 0.5f * kVolatility * kVolatility) * years) / vol_sqrt_t;
    const A d2 = d1 - vol_sqrt_t;
    const A n1 = normal_cdf(d1);
    const A n2 = normal_cdf(d2);
    const A discounted_strike = strike * exp(-rate * years);
    A call = spot * n1 - discounted_strike * n2;
    A put = discounted_strike * (1.0f - n2) - spot * (1.0f - n1);
    return std::tuple{call, put};
  }
};

/// Great-circle distance in km of (lat1, lon1) and (lat2, lon2), in radians,
/// by the haversine formula: transcendental-heavy, four inputs, one result.
/// a is clamped to 1 because rounding can push it just past 1 for nearly
/// antipodal points, and asin(sqrt(a)) would then be NaN on one side only.
struct Haversine {
  static constexpr float kEarthRadiusKm = 6371.0f;

  static WorkloadInfo info() {
    // Near antipodal points asin(sqrt(a)) has an unbounded derivative: a few
    // ulp of a (about 2.4e-7 near 1) move d by up to 2R*sqrt(2*2.4e-7), about
    // 9 km, in any float32 implementation (3.8 km measured against float64 at
    // 2^26). Elsewhere the error is a few ulp of d, hence rtol.
    return {"haversine", "2R asin(sqrt(min(1, sin(dlat/2)^2 + cos(lat1) cos(lat2) sin(dlon/2)^2))), km",
            {{-1.5f, 1.5f}, {-3.1f, 3.1f}, {-1.5f, 1.5f}, {-3.1f, 3.1f}}, Layout::flat, 1e-5, 10};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    using A = typename Api::F32;
    const A& lat1 = in[0];
    const A& lon1 = in[1];
    const A& lat2 = in[2];
    const A& lon2 = in[3];
    const A sin_dlat = sin((lat2 - lat1) * 0.5f);
    const A sin_dlon = sin((lon2 - lon1) * 0.5f);
    const A a = sin_dlat * sin_dlat + cos(lat1) * cos(lat2) * sin_dlon * sin_dlon;
    return std::tuple{(2.0f * kEarthRadiusKm) * asin(sqrt(minimum(a, 1.0f)))};
  }
};

/// BLAS's y = a*x + y (out of place).
struct Saxpy {
  static WorkloadInfo info() { return {"saxpy", "a*x + y", {{-4, 4}, {-4, 4}}, Layout::flat, 1e-6, 1e-6}; }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    return std::tuple{2.5f * in[0] + in[1]};
  }
};

/// An elementwise add where one operand is read transposed: no arithmetic to
/// speak of, only the access pattern (one of x and y is read across rows).
struct TransposeAdd {
  static WorkloadInfo info() {
    // One rounding, the same on every side: exact up to flushed denormals.
    return {"transpose_add", "x + transpose(y), x (r, c) and y (c, r), as square as 2^n allows",
            {{-4, 4}, {-4, 4, true}}, Layout::square, 1e-6, 1e-6};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    return std::tuple{in[0] + transpose(in[1])};
  }
};

/// Softmax of each row of 1024 (max-shifted): two row reductions and an
/// elementwise pass.
struct RowSoftmax {
  static WorkloadInfo info() {
    return {"softmax", "exp(x - max(x,1,keepdims)) / sum(...,1,keepdims), rows of 1024", {{-4, 4}}, Layout::rows_of_1024, 1e-4, 1e-7};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    const auto& x = in[0];
    const auto e = exp(x - max(x, 1, true));
    return std::tuple{e / sum(e, 1, true)};
  }
};

/// Softmax of each column (max-shifted) of an array as square as 2^n allows:
/// two reductions along the leading axis and an elementwise pass, so each
/// result element reads a row of per-column values.
struct ColumnSoftmax {
  static WorkloadInfo info() {
    return {"softmax_axis0", "exp(x - max(x,0,keepdims)) / sum(...,0,keepdims), x (r, c) as square as 2^n allows",
            {{-4, 4}}, Layout::square, 1e-4, 1e-7};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    const auto& x = in[0];
    const auto e = exp(x - max(x, 0, true));
    return std::tuple{e / sum(e, 0, true)};
  }
};

/// Layer norm without the affine part, over rows of 1024: two row reductions
/// (mean, and the population variance) feeding one elementwise pass.
struct RowNorm {
  static WorkloadInfo info() {
    // Results are at most 1.74 in magnitude (uniform rows): a subtraction, a
    // sqrt (3 ulp) and a division (2.5 ulp) after the row's mean and variance,
    // float32 sums of 1024 terms in different orders on the host and the
    // device (about 1e-7 relative; 2.5e-7 measured against float64 at 2^14).
    // atol for results near 0, where the mean's rounding dominates.
    return {"row_norm", "(x - mean(x,1,keepdims)) / sqrt(var(x,1,keepdims) + 1e-5), rows of 1024", {{-4, 4}},
            Layout::rows_of_1024, 1e-5, 1e-5};
  }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    const auto& x = in[0];
    return std::tuple{(x - mean(x, 1, true)) / sqrt(var(x, 1, true, 0) + 1e-5f)};
  }
};

/// A reduction fused with its producer.
struct SumSquares {
  static WorkloadInfo info() { return {"sum_squares", "sum(x*x)", {{-1, 1}}, Layout::flat, 1e-4, 1e-6}; }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    return std::tuple{sum(in[0] * in[0])};
  }
};

/// Two reductions of one array, as people write them.
struct MeanStd {
  static WorkloadInfo info() { return {"mean_std", "mean(x), std(x)", {{1, 3}}, Layout::flat, 1e-4, 1e-6}; }
  template <class Api>
  static auto compute(const fusecl::Shape&, const std::vector<typename Api::F32>& in) {
    return std::tuple{mean(in[0]), stddev(in[0])};
  }
};

/// pi ~ 4 * (points of the unit square inside the quarter circle) / n: on the
/// device one kernel that draws, tests and counts, with nothing uploaded.
struct MonteCarloPi {
  static WorkloadInfo info() {
    // Counts: the device may contract u*u + v*v into an fma, which can move a
    // point lying on the circle to the other side.
    return {"monte_carlo_pi", "count(u*u + v*v <= 1), u, v uniform", {}, Layout::flat, 1e-6, 2};
  }
  template <class Api>
  static auto compute(const fusecl::Shape& shape, const std::vector<typename Api::F32>&) {
    const auto u = Api::uniform(shape, 1);
    const auto v = Api::uniform(shape, 2);
    return std::tuple{sum(u * u + v * v <= 1.0f)};
  }
};

/// Calls f.template operator()<W>() for every workload, in report order.
template <class F>
void for_each_workload(F&& f) {
  [&]<class... W>(std::tuple<W...>*) { (f.template operator()<W>(), ...); }(
      static_cast<std::tuple<Chain2, SqrtSinExp, Poly20, BlackScholes, Haversine, Saxpy, TransposeAdd, RowSoftmax,
                             ColumnSoftmax, RowNorm, SumSquares, MeanStd, MonteCarloPi>*>(nullptr));
}

}  // namespace fusecl_bench
