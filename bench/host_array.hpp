// Eager host arrays: how NumPy evaluates an expression, one loop and one new
// temporary array per operation. They are the cpp_loop baseline, and the
// reference every device result is checked against before it is timed.
//
// The operations are spelled like fusecl's (operators, sqrt, exp, where, sum,
// max(x, axis, keepdims), ...), so that one workload template, instantiated
// with either array type, is both the baseline and the fused expression.
// Element types: float, and bool for comparison results. Broadcasting covers
// what the workloads need (equal shapes, a single element against anything,
// (r, c) against (r, 1)); anything else throws, rather than guess.
//
// Deliberately single-threaded and without expression templates or in-place
// reuse of temporaries: that is the eager NumPy model this baseline stands for.
// Compiled with the build's optimization (-O3 in Release), so simple loops
// are vectorized; transcendental functions are the C library's.
#pragma once

#include <fusecl/shape.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace fusecl_bench::host {

template <class T>
class HostArray {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>,
                "host arrays hold float, bool (results of comparisons) or int64 (counts)");

 public:
  using value_type = T;
  /// One byte per bool, as NumPy stores them (std::vector<bool> packs bits).
  using storage_type = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;

  HostArray() : HostArray(fusecl::Shape{0}) {}
  /// Uninitialized elements, like numpy.empty: every operation writes its whole
  /// output, and zero-filling it first (as std::vector does) would add a pass
  /// over memory that NumPy does not make.
  explicit HostArray(fusecl::Shape shape)
      : shape_(std::move(shape)),
        size_(shape_.size()),
        data_(std::make_shared_for_overwrite<storage_type[]>(static_cast<std::size_t>(size_))) {}

  const fusecl::Shape& shape() const { return shape_; }
  std::int64_t size() const { return size_; }
  int ndim() const { return shape_.ndim(); }
  storage_type* data() { return data_.get(); }
  const storage_type* data() const { return data_.get(); }
  std::span<const storage_type> values() const { return {data_.get(), static_cast<std::size_t>(size_)}; }

 private:
  fusecl::Shape shape_;
  std::int64_t size_ = 0;
  // Shared, like NumPy's references to one buffer: arrays are never modified
  // after the operation that created them, so sharing is safe and copying an
  // array (into a tuple of results, say) costs nothing.
  std::shared_ptr<storage_type[]> data_;
};

namespace detail {

[[noreturn]] inline void cannot_broadcast(const fusecl::Shape& a, const fusecl::Shape& b) {
  throw std::invalid_argument("host arrays: shapes " + a.str() + " and " + b.str() +
                              " are not a case the benchmark's host arrays broadcast");
}

/// out[i] = f(a[i]): one pass, one new array.
template <class R, class T, class F>
HostArray<R> map(const HostArray<T>& a, F f) {
  HostArray<R> out(a.shape());
  const auto* __restrict in = a.data();
  auto* __restrict o = out.data();
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
  return out;
}

/// out = f(a, b) with the broadcasting described at the top of this file.
template <class R, class A, class B, class F>
HostArray<R> zip(const HostArray<A>& a, const HostArray<B>& b, F f) {
  if (a.shape() == b.shape()) {
    HostArray<R> out(a.shape());
    const auto* __restrict x = a.data();
    const auto* __restrict y = b.data();
    auto* __restrict o = out.data();
    const std::int64_t n = a.size();
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    return out;
  }
  const fusecl::Shape shape = fusecl::broadcast_shapes(a.shape(), b.shape());
  if (b.size() == 1 && a.shape() == shape) {
    const auto s = b.data()[0];
    return map<R>(a, [&](auto v) { return f(v, s); });
  }
  if (a.size() == 1 && b.shape() == shape) {
    const auto s = a.data()[0];
    return map<R>(b, [&](auto v) { return f(s, v); });
  }
  // (r, c) with (r, 1), either way round: one value per row.
  if (a.ndim() == 2 && b.ndim() == 2 && a.shape()[0] == b.shape()[0] && (a.shape()[1] == 1 || b.shape()[1] == 1)) {
    HostArray<R> out(shape);
    const std::int64_t rows = shape[0], cols = shape[1];
    const bool a_per_row = a.shape()[1] == 1;
    for (std::int64_t r = 0; r < rows; ++r) {
      auto* __restrict o = out.data() + r * cols;
      if (a_per_row) {
        const auto s = a.data()[r];
        const auto* __restrict y = b.data() + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) o[c] = f(s, y[c]);
      } else {
        const auto s = b.data()[r];
        const auto* __restrict x = a.data() + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) o[c] = f(x[c], s);
      }
    }
    return out;
  }
  cannot_broadcast(a.shape(), b.shape());
}

/// Sum of n floats with NumPy's pairwise scheme (float accumulators): blocks
/// of up to 128 elements are summed with 8 independent accumulators (which the
/// compiler can vectorize), and blocks are combined as a binary tree, so the
/// rounding error grows with log n rather than n.
inline float pairwise_sum(const float* x, std::int64_t n) {
  if (n < 8) {
    float s = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
  if (n <= 128) {
    float acc[8];
    for (int k = 0; k < 8; ++k) acc[k] = x[k];
    std::int64_t i = 8;
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) acc[k] += x[i + k];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += x[i];
    return s;
  }
  std::int64_t half = n / 2;
  half -= half % 8;  // keep the left half whole blocks of 8
  return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

inline float max_of(const float* x, std::int64_t n) {
  // The workloads' inputs hold no NaN, so NumPy's NaN propagation is not modelled.
  float m = x[0];
  for (std::int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

/// The one reduced axis the host arrays support: the last one of a 2-D array.
inline void check_row_axis(const fusecl::Shape& s, int axis) {
  if (s.ndim() != 2 || fusecl::normalize_axis(axis, 2) != 1)
    throw std::invalid_argument("host arrays reduce along the last axis of a 2-D array only (got axis " +
                                std::to_string(axis) + " of " + s.str() + ")");
}

/// A per-row reduction of a 2-D array: shape (r, 1) with keepdims, else (r,).
template <class F>
HostArray<float> reduce_rows(const HostArray<float>& a, int axis, bool keepdims, F row_value) {
  check_row_axis(a.shape(), axis);
  const std::int64_t rows = a.shape()[0], cols = a.shape()[1];
  HostArray<float> out(keepdims ? fusecl::Shape{rows, 1} : fusecl::Shape{rows});
  for (std::int64_t r = 0; r < rows; ++r) out.data()[r] = row_value(a.data() + r * cols, cols);
  return out;
}

inline HostArray<float> scalar_array(float v) {
  HostArray<float> out{fusecl::Shape{}};
  out.data()[0] = v;
  return out;
}

}  // namespace detail

// ---- arithmetic and comparisons: array with array, array with scalar ----------------

#define FUSECL_BENCH_HOST_BINARY(SYM, RESULT)                                                          \
  template <class T>                                                                                   \
  HostArray<RESULT> operator SYM(const HostArray<T>& a, const HostArray<T>& b) {                       \
    return detail::zip<RESULT>(a, b, [](T x, T y) { return x SYM y; });                               \
  }                                                                                                    \
  template <class T>                                                                                   \
  HostArray<RESULT> operator SYM(const HostArray<T>& a, std::type_identity_t<T> s) {                  \
    return detail::map<RESULT>(a, [s](T x) { return x SYM s; });                                       \
  }                                                                                                    \
  template <class T>                                                                                   \
  HostArray<RESULT> operator SYM(std::type_identity_t<T> s, const HostArray<T>& a) {                  \
    return detail::map<RESULT>(a, [s](T x) { return s SYM x; });                                       \
  }
FUSECL_BENCH_HOST_BINARY(+, T)
FUSECL_BENCH_HOST_BINARY(-, T)
FUSECL_BENCH_HOST_BINARY(*, T)
FUSECL_BENCH_HOST_BINARY(/, T)
FUSECL_BENCH_HOST_BINARY(<, bool)
FUSECL_BENCH_HOST_BINARY(<=, bool)
FUSECL_BENCH_HOST_BINARY(>, bool)
FUSECL_BENCH_HOST_BINARY(>=, bool)
#undef FUSECL_BENCH_HOST_BINARY

// ---- elementwise functions (the C library's float versions) --------------------------

inline HostArray<float> operator-(const HostArray<float>& a) { return detail::map<float>(a, [](float x) { return -x; }); }

#define FUSECL_BENCH_HOST_UNARY(NAME)                                                                  \
  inline HostArray<float> NAME(const HostArray<float>& a) {                                           \
    return detail::map<float>(a, [](float x) { return std::NAME(x); });                               \
  }
FUSECL_BENCH_HOST_UNARY(sqrt)
FUSECL_BENCH_HOST_UNARY(exp)
FUSECL_BENCH_HOST_UNARY(log)
FUSECL_BENCH_HOST_UNARY(sin)
FUSECL_BENCH_HOST_UNARY(cos)
FUSECL_BENCH_HOST_UNARY(asin)
FUSECL_BENCH_HOST_UNARY(abs)
#undef FUSECL_BENCH_HOST_UNARY

/// NumPy's minimum against a scalar (the workloads' inputs hold no NaN).
inline HostArray<float> minimum(const HostArray<float>& a, float s) {
  return detail::map<float>(a, [s](float x) { return x < s ? x : s; });
}

/// The transpose of a 2-D array, as a new array. NumPy's transpose is a view
/// and the next operation reads it strided; a copy is that strided read plus
/// a write, which keeps these arrays contiguous at the cost of one extra pass.
/// Copied in square tiles so that both the reads and the writes stay in cache.
inline HostArray<float> transpose(const HostArray<float>& a) {
  if (a.ndim() != 2) throw std::invalid_argument("host arrays transpose 2-D arrays only (got " + a.shape().str() + ")");
  const std::int64_t rows = a.shape()[0], cols = a.shape()[1];
  HostArray<float> out(fusecl::Shape{cols, rows});
  constexpr std::int64_t tile = 32;
  const float* __restrict in = a.data();
  float* __restrict o = out.data();
  for (std::int64_t r0 = 0; r0 < rows; r0 += tile)
    for (std::int64_t c0 = 0; c0 < cols; c0 += tile)
      for (std::int64_t r = r0; r < std::min(r0 + tile, rows); ++r)
        for (std::int64_t c = c0; c < std::min(c0 + tile, cols); ++c) o[c * rows + r] = in[r * cols + c];
  return out;
}

/// where(cond, a, b) for arrays of one shape (what the workloads use).
inline HostArray<float> where(const HostArray<bool>& cond, const HostArray<float>& a, const HostArray<float>& b) {
  if (cond.shape() != a.shape() || a.shape() != b.shape()) detail::cannot_broadcast(cond.shape(), a.shape());
  HostArray<float> out(a.shape());
  const auto* __restrict c = cond.data();
  const auto* __restrict x = a.data();
  const auto* __restrict y = b.data();
  auto* __restrict o = out.data();
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
  return out;
}

// ---- reductions (results are arrays: 0-d over everything, as in NumPy) --------------

inline HostArray<float> sum(const HostArray<float>& a) { return detail::scalar_array(detail::pairwise_sum(a.data(), a.size())); }

/// Number of true elements, as int64 (NumPy's sum of a bool array).
inline HostArray<std::int64_t> sum(const HostArray<bool>& a) {
  std::int64_t count = 0;
  const auto* __restrict c = a.data();
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) count += c[i];
  HostArray<std::int64_t> out{fusecl::Shape{}};
  out.data()[0] = count;
  return out;
}

inline HostArray<float> sum(const HostArray<float>& a, int axis, bool keepdims = false) {
  return detail::reduce_rows(a, axis, keepdims, [](const float* row, std::int64_t n) { return detail::pairwise_sum(row, n); });
}

inline HostArray<float> max(const HostArray<float>& a) {
  if (a.size() == 0) throw std::invalid_argument("host arrays: max of an empty array");
  return detail::scalar_array(detail::max_of(a.data(), a.size()));
}

inline HostArray<float> max(const HostArray<float>& a, int axis, bool keepdims = false) {
  return detail::reduce_rows(a, axis, keepdims, [](const float* row, std::int64_t n) { return detail::max_of(row, n); });
}

/// NumPy's float32 mean: a float32 pairwise sum divided by the count.
inline HostArray<float> mean(const HostArray<float>& a) {
  return detail::scalar_array(detail::pairwise_sum(a.data(), a.size()) / static_cast<float>(a.size()));
}

/// Row means: a float32 pairwise sum per row divided by the row's length.
inline HostArray<float> mean(const HostArray<float>& a, int axis, bool keepdims = false) {
  return detail::reduce_rows(a, axis, keepdims, [](const float* row, std::int64_t n) {
    return detail::pairwise_sum(row, n) / static_cast<float>(n);
  });
}

/// Row variances as NumPy's var computes them: the row means (kept as a
/// column), the deviations from them (a temporary), their squares (another),
/// their row sums divided by n - ddof.
inline HostArray<float> var(const HostArray<float>& a, int axis, bool keepdims = false, int ddof = 0) {
  const HostArray<float> deviation = a - mean(a, axis, true);
  const HostArray<float> squared = deviation * deviation;
  const float count = static_cast<float>(a.shape()[1] - ddof);
  return detail::reduce_rows(squared, axis, keepdims,
                             [count](const float* row, std::int64_t n) { return detail::pairwise_sum(row, n) / count; });
}

/// NumPy's two-pass standard deviation (ddof 0): the mean, the deviations
/// from it (a temporary), their squares (another), the mean of those, sqrt.
inline HostArray<float> stddev(const HostArray<float>& a) {
  const HostArray<float> deviation = a - mean(a);
  const HostArray<float> squared = deviation * deviation;
  return detail::scalar_array(std::sqrt(mean(squared).data()[0]));
}

}  // namespace fusecl_bench::host
