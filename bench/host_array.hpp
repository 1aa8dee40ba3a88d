// Eager host arrays: how NumPy evaluates an expression, one loop and one new
// temporary array per operation. They are the cpp_loop baseline, and the
// reference every device result is checked against before it is timed.
//
// The operations are spelled like fusecl's (operators, sqrt, exp, where, sum,
// max(x, axis, keepdims), ...), so that one workload template, instantiated
// with either array type, is both the baseline and the fused expression.
// Element types: float, and bool for comparison results. Broadcasting covers
// what the workloads need (equal shapes, a single element against anything,
// (r, c) against (r, 1) or (1, c)); anything else throws, rather than guess.
// Reductions along an axis take either axis of a 2-D array.
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
  // (r, c) with (1, c), either way round: one value per column, the row of
  // them read again for every row.
  if (a.ndim() == 2 && b.ndim() == 2 && a.shape()[1] == b.shape()[1] && (a.shape()[0] == 1 || b.shape()[0] == 1)) {
    HostArray<R> out(shape);
    const std::int64_t rows = shape[0], cols = shape[1];
    const bool a_per_column = a.shape()[0] == 1;
    for (std::int64_t r = 0; r < rows; ++r) {
      auto* __restrict o = out.data() + r * cols;
      if (a_per_column) {
        const auto* __restrict s = a.data();
        const auto* __restrict y = b.data() + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) o[c] = f(s[c], y[c]);
      } else {
        const auto* __restrict x = a.data() + r * cols;
        const auto* __restrict s = b.data();
        for (std::int64_t c = 0; c < cols; ++c) o[c] = f(x[c], s[c]);
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

/// Columns summed together, at most this many at a time (the accumulators of
/// pairwise_sum_columns stay in L1).
inline constexpr std::int64_t kColumnBlock = 64;

/// out[j] = pairwise_sum of column j of the n rows at x (row stride `stride`),
/// for w <= kColumnBlock columns, bit for bit the result of pairwise_sum on
/// the column copied out: the same blocks, accumulators and tree, but each
/// step is done for the w columns at once, reading rows contiguously (a column
/// read element by element would touch a cache line per element).
inline void pairwise_sum_columns(const float* x, std::int64_t n, std::int64_t stride, std::int64_t w, float* out) {
  if (n < 8) {
    for (std::int64_t j = 0; j < w; ++j) out[j] = 0.0f;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < w; ++j) out[j] += x[i * stride + j];
    return;
  }
  if (n <= 128) {
    float acc[8][kColumnBlock];
    for (int k = 0; k < 8; ++k)
      for (std::int64_t j = 0; j < w; ++j) acc[k][j] = x[k * stride + j];
    std::int64_t i = 8;
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k)
        for (std::int64_t j = 0; j < w; ++j) acc[k][j] += x[(i + k) * stride + j];
    for (std::int64_t j = 0; j < w; ++j)
      out[j] = ((acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j])) + ((acc[4][j] + acc[5][j]) + (acc[6][j] + acc[7][j]));
    for (; i < n; ++i)
      for (std::int64_t j = 0; j < w; ++j) out[j] += x[i * stride + j];
    return;
  }
  std::int64_t half = n / 2;
  half -= half % 8;  // as pairwise_sum splits
  float right[kColumnBlock];
  pairwise_sum_columns(x, half, stride, w, out);
  pairwise_sum_columns(x + half * stride, n - half, stride, w, right);
  for (std::int64_t j = 0; j < w; ++j) out[j] += right[j];
}

/// The reduced axes the host arrays support: either one of a 2-D array.
/// Returns it normalized (0: down the columns, 1: along the rows).
inline int check_axis(const fusecl::Shape& s, int axis) {
  if (s.ndim() != 2 || axis < -2 || axis > 1)
    throw std::invalid_argument("host arrays reduce along axis 0 or 1 of a 2-D array only (got axis " +
                                std::to_string(axis) + " of " + s.str() + ")");
  return fusecl::normalize_axis(axis, 2);
}

/// A reduction of a 2-D array along `axis`. Axis 1: one value per row,
/// row_value(row, cols), shape (r, 1) with keepdims, else (r,). Axis 0: one
/// value per column, column_values(x, rows, cols, out) writing all c of them,
/// shape (1, c) with keepdims, else (c,).
template <class RowValue, class ColumnValues>
HostArray<float> reduce_axis(const HostArray<float>& a, int axis, bool keepdims, RowValue row_value,
                             ColumnValues column_values) {
  const int along = check_axis(a.shape(), axis);
  const std::int64_t rows = a.shape()[0], cols = a.shape()[1];
  if (along == 0) {
    HostArray<float> out(keepdims ? fusecl::Shape{1, cols} : fusecl::Shape{cols});
    column_values(a.data(), rows, cols, out.data());
    return out;
  }
  HostArray<float> out(keepdims ? fusecl::Shape{rows, 1} : fusecl::Shape{rows});
  for (std::int64_t r = 0; r < rows; ++r) out.data()[r] = row_value(a.data() + r * cols, cols);
  return out;
}

/// Pairwise sums of every column (pairwise_sum_columns, a block of columns at a time).
inline void column_sums(const float* x, std::int64_t rows, std::int64_t cols, float* out) {
  for (std::int64_t c0 = 0; c0 < cols; c0 += kColumnBlock)
    pairwise_sum_columns(x + c0, rows, cols, std::min(kColumnBlock, cols - c0), out + c0);
}

/// Maxima of every column: row 0, then every further row compared in (no NaN, as max_of).
inline void column_maxima(const float* x, std::int64_t rows, std::int64_t cols, float* out) {
  for (std::int64_t c = 0; c < cols; ++c) out[c] = x[c];
  for (std::int64_t r = 1; r < rows; ++r) {
    const float* __restrict row = x + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) out[c] = row[c] > out[c] ? row[c] : out[c];
  }
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
  return detail::reduce_axis(
      a, axis, keepdims, [](const float* row, std::int64_t n) { return detail::pairwise_sum(row, n); }, detail::column_sums);
}

inline HostArray<float> max(const HostArray<float>& a) {
  if (a.size() == 0) throw std::invalid_argument("host arrays: max of an empty array");
  return detail::scalar_array(detail::max_of(a.data(), a.size()));
}

inline HostArray<float> max(const HostArray<float>& a, int axis, bool keepdims = false) {
  if (a.size() == 0) throw std::invalid_argument("host arrays: max of an empty array");
  return detail::reduce_axis(
      a, axis, keepdims, [](const float* row, std::int64_t n) { return detail::max_of(row, n); }, detail::column_maxima);
}

/// NumPy's float32 mean: a float32 pairwise sum divided by the count.
inline HostArray<float> mean(const HostArray<float>& a) {
  return detail::scalar_array(detail::pairwise_sum(a.data(), a.size()) / static_cast<float>(a.size()));
}

/// Row (axis 1) or column (axis 0) means: a float32 pairwise sum per row or
/// column divided by its length.
inline HostArray<float> mean(const HostArray<float>& a, int axis, bool keepdims = false) {
  return detail::reduce_axis(
      a, axis, keepdims,
      [](const float* row, std::int64_t n) { return detail::pairwise_sum(row, n) / static_cast<float>(n); },
      [](const float* x, std::int64_t rows, std::int64_t cols, float* out) {
        detail::column_sums(x, rows, cols, out);
        for (std::int64_t c = 0; c < cols; ++c) out[c] /= static_cast<float>(rows);
      });
}

/// Row or column variances as NumPy's var computes them: the means (kept as a
/// column or a row), the deviations from them (a temporary), their squares
/// (another), their sums along the axis divided by n - ddof.
inline HostArray<float> var(const HostArray<float>& a, int axis, bool keepdims = false, int ddof = 0) {
  const int along = detail::check_axis(a.shape(), axis);
  const HostArray<float> deviation = a - mean(a, along, true);
  const HostArray<float> squared = deviation * deviation;
  const float count = static_cast<float>(a.shape()[along] - ddof);
  return detail::reduce_axis(
      squared, along, keepdims, [count](const float* row, std::int64_t n) { return detail::pairwise_sum(row, n) / count; },
      [count](const float* x, std::int64_t rows, std::int64_t cols, float* out) {
        detail::column_sums(x, rows, cols, out);
        for (std::int64_t c = 0; c < cols; ++c) out[c] /= count;
      });
}

/// NumPy's two-pass standard deviation (ddof 0): the mean, the deviations
/// from it (a temporary), their squares (another), the mean of those, sqrt.
inline HostArray<float> stddev(const HostArray<float>& a) {
  const HostArray<float> deviation = a - mean(a);
  const HostArray<float> squared = deviation * deviation;
  return detail::scalar_array(std::sqrt(mean(squared).data()[0]));
}

}  // namespace fusecl_bench::host
