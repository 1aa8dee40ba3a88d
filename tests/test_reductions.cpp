// Reductions against the host reference (support/reference.hpp's ref_reduce
// per output, gathered by support/host_array.hpp's h_reduce): every op over
// all elements, one axis, several axes, negative axes and keepdims, on random
// and fixed shapes with size-0 and size-1 dimensions and non-contiguous
// inputs, for float32, float64, int32, uint8 and bool; NumPy's result dtypes;
// NaN, infinities and empty inputs; the accuracy of long float32 sums; each
// reduction strategy of the code generator; and how many kernels the common
// patterns take.
//
// Data is chosen so that most results are exact whatever the summation order
// (small integers, products of powers of two): then any difference is a bug,
// not rounding. Where rounding is unavoidable the tolerance is stated next to
// the check.
//
// Kernel structures: every (op, dtype, access pattern, strategy) is a new
// kernel to build, so each op and dtype is checked on one layout that matters
// for it, and the strategies on a few ops; values and sizes are varied freely
// (they are kernel arguments).
#include "src/node.hpp"
#include "support/device_compare.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/reference.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <csignal>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- host reference per output ------------------------------------------------------------

/// numpy.var(xs, ddof=ddof) in long double (two-pass, as NumPy computes it).
long double ref_var(const std::vector<long double>& xs, int ddof) {
  long double mean = 0;
  for (auto x : xs) mean += x;
  mean /= static_cast<long double>(xs.size());
  long double ss = 0;
  for (auto x : xs) ss += (x - mean) * (x - mean);
  return ss / static_cast<long double>(static_cast<long double>(xs.size()) - ddof);
}

template <class T>
std::vector<long double> widen(const std::vector<T>& xs) {
  return std::vector<long double>(xs.begin(), xs.end());
}

struct Layout {
  Dims shape;
  std::vector<int> axes;  // empty with all = true: every axis
  bool all = false;
  bool keepdims = false;
  std::string name;
};

// The layouts of the dtype matrix (each is one kernel structure per op and dtype).
const Layout kRow{{37, 29}, {-1}, false, true, "axis -1 of (37, 29), keepdims: a work-group per row, vector loads"};
const Layout kAll{{37, 29}, {}, true, false, "all elements of (37, 29)"};
const Layout kCols{{29, 37}, {0}, false, false, "axis 0 of (29, 37): strided reduced range"};
const Layout kMulti{{6, 5, 7}, {0, -1}, false, false, "axes (0, -1) of (6, 5, 7): several strided axes"};
const Layout kTiny{{40, 6}, {1}, false, false, "axis 1 of (40, 6): a short reduced range, a work-item per output"};

template <class R, class T, class F>
Array<R> pick(const Array<T>& x, const Layout& l, F f) {
  if constexpr (!std::is_same_v<decltype(f(x)), Array<R>>) {
    throw std::logic_error("apply: wrong result type");
  } else {
    if (l.all) return f(x);
    if (l.axes.size() == 1) return f(x, l.axes[0], l.keepdims);
    if constexpr (std::is_invocable_v<F, const Array<T>&, std::vector<int>, bool>) return f(x, l.axes, l.keepdims);
    else throw std::logic_error("apply: this reduction takes one axis");
  }
}

template <class R, class T>
Array<R> apply(Op op, const Array<T>& x, const Layout& l) {
  // One generic lambda per op (an overload set cannot be passed as it is).
#define FUSECL_PICK(NAME) \
  pick<R>(x, l, [](const auto& a, auto... rest) -> decltype(NAME(a, rest...)) { return NAME(a, rest...); })
  switch (op) {
    case Op::Sum: return FUSECL_PICK(sum);
    case Op::Prod: return FUSECL_PICK(prod);
    case Op::Min: return FUSECL_PICK(min);
    case Op::Max: return FUSECL_PICK(max);
    case Op::Mean: return FUSECL_PICK(mean);
    case Op::All: return FUSECL_PICK(all);
    case Op::Any: return FUSECL_PICK(any);
    case Op::ArgMin: return FUSECL_PICK(argmin);
    case Op::ArgMax: return FUSECL_PICK(argmax);
    default: break;
  }
#undef FUSECL_PICK
  throw std::logic_error("apply: not a reduction");
}

/// Compares a device reduction with ref_reduce on every output, exactly
/// (`ulps` = 0, NaN equal to NaN) or within `ulps` of R.
template <class R, class T>
void check_op(Op op, const HostArray<T>& hx, const Layout& l, double ulps = 0) {
  INFO(op_name(op) << " of " << dtype_name(dtype_of_v<T>) << " over " << l.name);
  const Array<R> got = apply<R>(op, to_device(hx), l);
  const auto want = h_reduce<R>(hx, l.axes, l.all, l.keepdims, [&](const std::vector<T>& v) { return ref_reduce_as<R>(op, v); });
  const auto values = got.to_host();
  REQUIRE(got.shape().to_vector() == want.shape);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const R g = values[i], w = want.data[i];
    if constexpr (std::is_floating_point_v<R>) {
      if (std::isnan(w)) {
        REQUIRE_EACH(std::isnan(g), "output " << i << ": got " << double(values[i]) << ", want " << double(want.data[i]));
      } else if (ulps == 0) {
        REQUIRE_EACH(g == w, "output " << i << ": got " << double(values[i]) << ", want " << double(want.data[i]));
      } else {
        const double d = std::is_same_v<R, float> ? ulp_distance_f32(float(g), float(w)) : ulp_distance_f64(double(g), double(w));
        REQUIRE_EACH(d <= ulps, "output " << i << ": got " << double(values[i]) << ", want " << double(want.data[i]));
      }
    } else {
      REQUIRE_EACH(g == w, "output " << i << ": got " << double(values[i]) << ", want " << double(want.data[i]));
    }
  }
}

/// var or stddev against ref_var: relative error within `rel` (see the callers).
template <class R, class T>
void check_moment(bool is_std, int ddof, const HostArray<T>& hx, const Layout& l, double rel) {
  INFO((is_std ? "stddev" : "var") << " ddof " << ddof << " of " << dtype_name(dtype_of_v<T>) << " over " << l.name);
  const auto x = to_device(hx);
  Array<R> got = is_std ? (l.all ? stddev(x) : stddev(x, l.axes, l.keepdims, ddof)) : (l.all ? var(x) : var(x, l.axes, l.keepdims, ddof));
  const auto want = h_reduce<long double>(hx, l.axes, l.all, l.keepdims, [&](const std::vector<T>& v) {
    const long double w = ref_var(widen(v), ddof);
    return is_std ? std::sqrt(w) : w;
  });
  const auto values = got.to_host();
  REQUIRE(got.shape().to_vector() == want.shape);
  for (std::size_t i = 0; i < values.size(); ++i) {
    REQUIRE_EACH(std::fabs(double(values[i]) - double(want.data[i])) <= rel * double(want.data[i]), "output " << i << ": got " << double(values[i]) << ", want " << double(want.data[i]));
  }
}

// ---- data ------------------------------------------------------------------------------------

/// Small integers (exact in any float and any summation order), with ties.
template <class T>
HostArray<T> small_ints(const Dims& shape, std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
  std::mt19937_64 rng(seed);
  return h_generate<T>(shape, [&](const Dims&) { return static_cast<T>(rand_int(rng, lo, hi)); });
}

/// Signed powers of two around 1: products are exact (no rounding) for rows of up to ~100.
template <class T>
HostArray<T> powers_of_two(const Dims& shape, std::uint64_t seed) {
  static const double vals[] = {1, -1, 2, -2, 0.5, -0.5, 1, 1, 4, 0.25};
  std::mt19937_64 rng(seed);
  return h_generate<T>(shape, [&](const Dims&) { return static_cast<T>(vals[rand_int(rng, 0, 9)]); });
}

std::string strategy_of(const std::string& src) {
  if (src.find("reqd_work_group_size") == std::string::npos) return "work-item per output";
  if (src.find("reqd_work_group_size(32, 8, 1)") != std::string::npos) return "column blocks";  // test_column_reductions.cpp
  return src.find("scratch") != std::string::npos ? "split over groups" : "work-group per output";
}

}  // namespace

TEST_CASE("result dtypes are NumPy's", "[reduce][dtype]") {
  using F = Array<float>;
  using D = Array<double>;
  using I32 = Array<std::int32_t>;
  using I8 = Array<std::int8_t>;
  using U8 = Array<std::uint8_t>;
  using U16 = Array<std::uint16_t>;
  using I64 = Array<std::int64_t>;
  using B = Array<bool>;
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<I32>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<I8>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<I64>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<U8>()))::value_type, std::uint64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<U16>(), 0))::value_type, std::uint64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<B>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(prod(std::declval<I32>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(prod(std::declval<U8>()))::value_type, std::uint64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<F>()))::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(sum(std::declval<D>()))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(mean(std::declval<I32>()))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(mean(std::declval<U8>(), 0))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(mean(std::declval<B>()))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(mean(std::declval<F>()))::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(var(std::declval<I32>()))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(stddev(std::declval<U8>(), 0))::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(var(std::declval<F>()))::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(min(std::declval<U8>()))::value_type, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(max(std::declval<I32>(), 1))::value_type, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(max(std::declval<B>()))::value_type, bool>);
  STATIC_REQUIRE(std::is_same_v<decltype(argmax(std::declval<U8>()))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(argmin(std::declval<F>(), 0))::value_type, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(all(std::declval<F>()))::value_type, bool>);
  STATIC_REQUIRE(std::is_same_v<decltype(any(std::declval<I32>(), {0, 1}))::value_type, bool>);
}

TEST_CASE("sum over random axes of random shapes and random views matches exactly", "[reduce][random]") {
  const std::uint64_t seed = test_seed(0x5EED0101);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const Dims shape = random_dims(rng, max_ndim, 2500);
    auto hx = small_ints<float>(shape, rng(), -8, 8);  // integer sums: exact in any order
    Array<float> x = to_device(hx);
    std::string what = "x";
    what += dims_str(shape);
    // Half the time the input is a non-contiguous view.
    if (hx.ndim() > 1 && rand_unit(rng) < 0.5) {
      std::vector<int> p(static_cast<std::size_t>(hx.ndim()));
      std::iota(p.rbegin(), p.rend(), 0);
      std::swap(p[0], p[std::size_t(rand_int(rng, 0, hx.ndim() - 1))]);
      x = permute(x, p);
      hx = h_permute(hx, p);
      what += " permuted";
    }
    if (hx.ndim() > 0 && rand_unit(rng) < 0.4) {
      const int a = int(rand_int(rng, 0, hx.ndim() - 1));
      x = slice(x, a, std::nullopt, std::nullopt, -2);
      std::vector<Slice> spec(std::size_t(a + 1));
      spec.back().step = -2;
      hx = h_slice(hx, spec);
      what += " [::-2 on axis " + std::to_string(a) + "]";
    }
    std::vector<int> axes;
    const bool all_axes = rand_unit(rng) < 0.15;
    for (int k = 0; k < hx.ndim(); ++k)
      if (rand_unit(rng) < 0.5) axes.push_back(rand_unit(rng) < 0.5 ? k - hx.ndim() : k);  // negative spellings too
    const bool keepdims = rand_unit(rng) < 0.5;
    std::string ax;
    for (int a : axes) ax += std::to_string(a) + ",";
    INFO("case " << iter << ": sum of " << what << " over " << (all_axes ? "all" : "(" + ax + ")") << " keepdims " << keepdims);
    const Array<float> got = all_axes ? sum(x) : sum(x, axes, keepdims);
    const auto want = h_reduce<float>(hx, axes, all_axes, all_axes ? false : keepdims, [](const std::vector<float>& v) {
      return std::accumulate(v.begin(), v.end(), 0.0f);
    });
    const auto values = got.to_host();
    INFO(describe_mismatch(got.shape(), values, want));
    REQUIRE(first_mismatch(got.shape(), values, want) == -1);
  }
}

TEST_CASE("argmin and argmax over a random axis return the first extreme index", "[reduce][random]") {
  const std::uint64_t seed = test_seed(0x5EED0102);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 24; ++iter) {
    Dims shape = random_dims(rng, 5, 2000, 7, 0.0);
    if (shape.empty()) shape.push_back(5);
    auto hx = small_ints<float>(shape, rng(), 0, 3);  // many ties
    Array<float> x = to_device(hx);
    const bool flat = rand_unit(rng) < 0.25, keepdims = rand_unit(rng) < 0.5, is_max = rand_unit(rng) < 0.5;
    if (flat && hx.ndim() > 1 && rand_unit(rng) < 0.5) {
      // The flattened index of a view counts in the view's own C order.
      x = transpose(x);
      hx = h_transpose(hx);
      shape = hx.shape;
    }
    const int axis = int(rand_int(rng, -hx.ndim(), hx.ndim() - 1));
    INFO("case " << iter << ": " << (is_max ? "argmax" : "argmin") << " of " << dims_str(shape) << " over "
                 << (flat ? std::string("the flattened array") : "axis " + std::to_string(axis)) << " keepdims " << keepdims);
    const Op op = is_max ? Op::ArgMax : Op::ArgMin;
    const Array<std::int64_t> got = flat ? (is_max ? argmax(x) : argmin(x))
                                         : (is_max ? argmax(x, axis, keepdims) : argmin(x, axis, keepdims));
    const auto want = h_reduce<std::int64_t>(hx, {axis}, flat, flat ? false : keepdims,
                                             [&](const std::vector<float>& v) { return ref_reduce_as<std::int64_t>(op, v); });
    const auto values = got.to_host();
    INFO(describe_mismatch(got.shape(), values, want));
    REQUIRE(first_mismatch(got.shape(), values, want) == -1);
  }
}

TEST_CASE("argmin and argmax along an axis of one element are 0 without reading the values", "[reduce][arg]") {
  // NaN, infinities and a lazy producer: every index is 0 all the same, and
  // the values are neither computed nor read (make_reduce_ex says why).
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> h = {nan, -inf, 3.0f, inf, -0.0f, 1e-45f, 7.0f};
  const auto x = from_host(h, {1, 7});
  for (const bool keepdims : {false, true}) {
    INFO("keepdims " << keepdims);
    reset_stats();
    const auto a = argmax(x * 2.0f, 0, keepdims), b = argmin(reshape(x, {7, 1}), 1, keepdims);
    CHECK(a.node()->op != Op::ArgMax);  // no reduction reads x (checked before evaluation makes them buffers)
    CHECK(b.node()->op != Op::ArgMin);
    CHECK(a.shape() == (keepdims ? Shape{1, 7} : Shape{7}));
    CHECK(b.shape() == (keepdims ? Shape{7, 1} : Shape{7}));
    CHECK(a.to_host() == std::vector<std::int64_t>(7, 0));
    CHECK(b.to_host() == std::vector<std::int64_t>(7, 0));
    CHECK(stats().uploads == 0);
    CHECK(stats().kernels_launched <= 2);  // at most a fill each
  }
  // Of a single element, flattened or along its only axis; a 0-size output.
  CHECK(argmax(from_host(std::vector<float>{nan}, {1})).to_host() == std::vector<std::int64_t>{0});
  CHECK(argmin(from_host(std::vector<double>{2.0}, {1, 1, 1}), 2).to_host() == std::vector<std::int64_t>{0});
  CHECK(argmax(from_host(std::vector<float>{}, {0, 1}), 1).shape() == Shape{0});
  CHECK_THROWS_WITH(argmax(from_host(std::vector<float>{}, {1, 0}), 1), Catch::Contains("zero-size array"));
}

TEST_CASE("every reduction of float32 over rows", "[reduce][float32]") {
  const auto hx = small_ints<float>(kRow.shape, 11, -9, 9);
  check_op<float>(Op::Sum, hx, kRow);
  check_op<float>(Op::Min, hx, kRow);
  check_op<float>(Op::Max, hx, kRow);
  check_op<std::int64_t>(Op::ArgMin, hx, kRow);
  check_op<std::int64_t>(Op::ArgMax, hx, kRow);
  // The row sums are exact; dividing by 29 rounds once (0 ulp where division
  // is correctly rounded, as on PoCL; OpenCL allows 2.5 ulp), and the
  // reference rounds its long double quotient once more: 3 ulp.
  check_op<float>(Op::Mean, hx, kRow, 3);
  check_op<float>(Op::Prod, powers_of_two<float>(kRow.shape, 12), kRow);  // exact: powers of two
  // all/any: a third of the values are zero, so some rows are mixed; add an
  // all-nonzero row and an all-zero row.
  auto hb = small_ints<float>(kRow.shape, 13, -1, 1);
  for (std::int64_t j = 0; j < 29; ++j) {
    hb.data[std::size_t(j)] = 0.5f;             // row 0: all true
    hb.data[std::size_t(29 + j)] = -0.0f;       // row 1: all false (-0.0 is false)
  }
  hb.data[std::size_t(2 * 29 + 28)] = float(kNaN);  // NaN is true
  check_op<bool>(Op::All, hb, kRow);
  check_op<bool>(Op::Any, hb, kRow);
  // var/std: two-pass in float32. With |mean| below the spread, the mean's
  // rounding (3 ulp) perturbs the deviations by well under their size, each
  // square rounds once, and the compensated sum of non-negative terms adds a
  // few ulp: 16 * FLT_EPSILON relative covers it with room.
  for (int ddof : {0, 1}) {
    check_moment<float>(false, ddof, hx, kRow, 16 * FLT_EPSILON);
    check_moment<float>(true, ddof, hx, kRow, 16 * FLT_EPSILON);
  }
}

TEST_CASE("float64 reductions over several strided axes", "[reduce][float64]") {
  const auto hx = small_ints<double>(kMulti.shape, 21, -20, 20);
  check_op<double>(Op::Sum, hx, kMulti);
  check_op<double>(Op::Max, hx, kMulti);
  check_op<double>(Op::Mean, hx, kMulti, 1);  // exact sum, one correctly rounded division (double), reference rounding
  check_op<double>(Op::Prod, powers_of_two<double>(kMulti.shape, 22), kMulti);
  const Layout axis0{kMulti.shape, {0}, false, true, "axis 0 of (6, 5, 7), keepdims"};
  check_op<std::int64_t>(Op::ArgMax, hx, axis0);
  // Same argument as float32, with DBL_EPSILON.
  for (int ddof : {0, 1}) {
    check_moment<double>(false, ddof, hx, kMulti, 16 * DBL_EPSILON);
    check_moment<double>(true, ddof, hx, kMulti, 16 * DBL_EPSILON);
  }
}

TEST_CASE("int32 reductions over a strided axis accumulate in int64", "[reduce][int32]") {
  // Column sums of values near 2^30 overflow int32: the int64 result must not.
  const auto big = small_ints<std::int32_t>(kCols.shape, 31, 1'000'000'000, 2'000'000'000);
  check_op<std::int64_t>(Op::Sum, big, kCols);
  check_op<std::int32_t>(Op::Max, big, kCols);
  const auto hx = small_ints<std::int32_t>(kCols.shape, 32, -1000, 1000);
  check_op<std::int64_t>(Op::Sum, hx, kCols);
  check_op<std::int64_t>(Op::ArgMin, hx, kCols);
  check_op<std::int64_t>(Op::ArgMin, small_ints<std::int32_t>(kCols.shape, 33, -2, 2), kCols);  // ties
  // mean of integers is float64: the sum is exact in double, one rounding for
  // the division and one for the reference: 1 ulp.
  check_op<double>(Op::Mean, big, kCols, 1);
  // prod wraps in int64 like NumPy's: 29 values up to 1000 overflow 2^63 many times over.
  check_op<std::int64_t>(Op::Prod, hx, kCols);
  check_op<std::int64_t>(Op::Prod, small_ints<std::int32_t>(kCols.shape, 34, -3, 3), kCols);
  check_moment<double>(false, 1, hx, kCols, 16 * DBL_EPSILON);
  // Contiguous rows: the int64 accumulation in vectors.
  check_op<std::int64_t>(Op::Sum, small_ints<std::int32_t>(kRow.shape, 36, -2'000'000'000, 2'000'000'000), kRow);
}

TEST_CASE("uint8 reductions over rows accumulate in uint64", "[reduce][uint8]") {
  // Rows of 29 one-byte values: the widest vector loads (uchar16 on CPUs).
  const auto hx = small_ints<std::uint8_t>(kRow.shape, 41, 200, 255);  // row sums pass 255
  check_op<std::uint64_t>(Op::Sum, hx, kRow);
  check_op<std::uint8_t>(Op::Max, hx, kRow);
  check_op<std::int64_t>(Op::ArgMin, small_ints<std::uint8_t>(kRow.shape, 42, 0, 2), kRow);
  check_op<double>(Op::Mean, hx, kRow, 1);
}

TEST_CASE("bool reductions over all elements", "[reduce][bool]") {
  for (std::int64_t hi : {0, 1}) {
    for (std::uint64_t s : {51u, 52u}) {
      auto hx = small_ints<bool>(kAll.shape, s, 0, hi);
      INFO("values in [0, " << hi << "], seed " << s);
      check_op<std::int64_t>(Op::Sum, hx, kAll);
      check_op<bool>(Op::All, hx, kAll);
      check_op<bool>(Op::Any, hx, kAll);
      check_op<std::int64_t>(Op::ArgMax, hx, kAll);
    }
  }
  // all true but one, and the one true: both at the last element.
  auto ones = h_generate<bool>(kAll.shape, [](const Dims&) { return true; });
  ones.data.back() = false;
  check_op<bool>(Op::All, ones, kAll);
  check_op<std::int64_t>(Op::ArgMax, h_map<bool>(ones, [](bool b) { return !b; }), kAll);
}

TEST_CASE("NaN and infinities in reductions", "[reduce][nan]") {
  // The float32 row layout again (no new kernels): rows with NaN at the
  // first, a middle and the last position (inside and after the vector loop).
  auto hx = small_ints<float>(kRow.shape, 61, -9, 9);
  auto put = [&](std::int64_t row, std::int64_t col, double v) { hx.data[std::size_t(row * 29 + col)] = float(v); };
  put(0, 0, kNaN);
  put(1, 13, kNaN);
  put(2, 28, kNaN);
  put(3, 5, kNaN);
  put(3, 20, kNaN);  // two NaNs: arg-reductions return the first
  put(4, 7, kInf);   // sum inf
  put(5, 7, kInf);
  put(5, 9, -kInf);  // inf - inf: NaN
  put(6, 3, -kInf);
  put(6, 27, kNaN);  // NaN beats -inf in argmin
  put(7, 0, kInf);
  put(7, 1, kInf);   // ties of inf: the first
  for (std::int64_t j = 0; j < 29; ++j) put(8, j, -kInf);  // all -inf: max is -inf, argmax 0
  check_op<float>(Op::Sum, hx, kRow);
  check_op<float>(Op::Min, hx, kRow);
  check_op<float>(Op::Max, hx, kRow);
  check_op<std::int64_t>(Op::ArgMin, hx, kRow);
  check_op<std::int64_t>(Op::ArgMax, hx, kRow);
  check_op<float>(Op::Mean, hx, kRow, 3);
  // Spot checks that the reference says what NumPy says.
  const auto mx = max(to_device(hx), 1).to_host();
  CHECK(std::isnan(mx[0]));
  CHECK(std::isnan(mx[2]));
  CHECK(mx[8] == -INFINITY);
  const auto am = argmax(to_device(hx), 1).to_host();
  CHECK(am[3] == 5);
  CHECK(am[7] == 0);
  CHECK(am[1] == 13);
}

TEST_CASE("empty reductions give sum 0 and prod 1 and mean NaN while min max argmin argmax raise", "[reduce][empty]") {
  const auto e = from_host(std::vector<float>{}, {3, 0});
  CHECK(sum(e).to_host() == std::vector<float>{0.0f});
  CHECK(sum(e).shape() == Shape{});
  CHECK(prod(e).to_host() == std::vector<float>{1.0f});
  CHECK(std::isnan(mean(e).to_host()[0]));
  CHECK(sum(e, 1).to_host() == std::vector<float>{0, 0, 0});
  CHECK(sum(e, 1, true).shape() == Shape{3, 1});
  CHECK(sum(e, 0).shape() == Shape{0});
  const auto m = mean(e, -1).to_host();
  REQUIRE(m.size() == 3);
  CHECK((std::isnan(m[0]) && std::isnan(m[1]) && std::isnan(m[2])));
  CHECK(sum(from_host(std::vector<std::int32_t>{}), 0).to_host() == std::vector<std::int64_t>{0});
  CHECK(all(e).to_host() == std::vector<bool>{true});
  CHECK(any(e).to_host() == std::vector<bool>{false});
  // No identity: an error when a reduced range is empty (as NumPy raises),
  // not when there are no outputs.
  CHECK_THROWS_AS(min(e), Error);
  CHECK_THROWS_AS(max(e), Error);
  CHECK_THROWS_AS(argmin(e), Error);
  CHECK_THROWS_AS(argmax(e), Error);
  CHECK_THROWS_AS(max(e, 1), Error);
  CHECK_THROWS_AS(argmax(e, -1), Error);
  CHECK(max(e, 0).shape() == Shape{0});  // (0,) outputs: nothing reduced, nothing to raise
  CHECK(max(e, 0).to_host().empty());
}

#if defined(__unix__) || defined(__APPLE__)
namespace {
// Default SIGFPE handling while alive. PoCL installs a SIGFPE handler that
// skips integer divisions by zero (meant for kernel code running on the CPU),
// which also hides a division by zero in the host code; Catch2 restores its
// own handlers between test cases, so whether a host division by zero
// crashes would depend on which test case first started the device.
class DefaultSigfpe {
 public:
  DefaultSigfpe() {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGFPE, &dfl, &saved_);
  }
  ~DefaultSigfpe() { sigaction(SIGFPE, &saved_, nullptr); }
  DefaultSigfpe(const DefaultSigfpe&) = delete;
  DefaultSigfpe& operator=(const DefaultSigfpe&) = delete;

 private:
  struct sigaction saved_ {};
};
}  // namespace

TEST_CASE("reductions with no outputs and a long reduced range", "[reduce][empty]") {
  // (0, 5000) over axis 1: nothing to compute, but the planner still sizes
  // the work for 0 outputs (a crash here is a host division by zero).
  const auto x = from_host(std::vector<float>{}, {0, 5000});
  const auto xt = transpose(from_host(std::vector<float>{}, {5000, 0}));  // strided
  (void)(x + 1.0f).to_host();  // the device (and PoCL's handler) is up before the guard
  const DefaultSigfpe guard;
  CHECK(sum(x, 1).shape() == Shape{0});
  CHECK(sum(x, 1).to_host().empty());
  CHECK(mean(xt, -1, true).shape() == Shape{0, 1});
  CHECK(mean(xt, -1, true).to_host().empty());
  CHECK(max(x, 1).to_host().empty());
  CHECK(argmax(xt, 1).to_host().empty());
}
#endif

TEST_CASE("axis arguments with negative axes and keepdims and duplicate or out-of-range axes", "[reduce][axes]") {
  const auto hx = small_ints<float>({2, 3, 4}, 71, -5, 5);
  const auto x = to_device(hx);
  CHECK(sum(x, -1).shape() == Shape{2, 3});
  CHECK(sum(x, {0, -1}).shape() == Shape{3});
  CHECK(sum(x, {-1, 0}, true).shape() == Shape{1, 3, 1});
  CHECK(max(x, 1, true).shape() == Shape{2, 1, 4});
  CHECK(sum(x, {0, 1, 2}).shape() == Shape{});
  CHECK(sum(x, std::vector<int>{}).shape() == Shape{2, 3, 4});  // numpy.sum(x, axis=()) reduces nothing
  CHECK_THROWS_AS(sum(x, 3), ShapeError);
  CHECK_THROWS_AS(sum(x, -4), ShapeError);
  CHECK_THROWS_AS(sum(x, {0, 0}), ShapeError);
  CHECK_THROWS_AS(sum(x, {1, -2}), ShapeError);  // the same axis twice
  CHECK_THROWS_AS(argmax(x, 3), ShapeError);
  CHECK_THROWS_AS(var(x, 5), ShapeError);
  // 0-d input: the one element.
  const auto s = from_host(std::vector<float>{4.5f}, Shape{});
  CHECK(sum(s).to_host() == std::vector<float>{4.5f});
  CHECK(argmax(s).to_host() == std::vector<std::int64_t>{0});
}

TEST_CASE("float32 sums of 1M to 16M values stay within a few ulp of sum of |x|", "[reduce][accuracy]") {
  // Bound: |sum - exact| <= c * FLT_EPSILON * sum|x|. A running float sum can
  // be off by up to (n - 1) * FLT_EPSILON/2 * sum|x| (millions of ulps here);
  // with Kahan compensation per work-item and trees across work-items and
  // groups the error is a few roundings of the partial sums: c = 4 leaves room
  // for the lanes of a vector accumulator that are added without compensation.
  constexpr double c = 4;
  const std::uint64_t seed = test_seed(0x5EED0103);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (const std::int64_t n : {std::int64_t(1) << 20, (std::int64_t(1) << 22) + 3, std::int64_t(1) << 24}) {
    for (const bool symmetric : {false, true}) {
      std::vector<float> h(static_cast<std::size_t>(n));
      for (auto& v : h) v = float(symmetric ? 2 * rand_unit(rng) - 1 : rand_unit(rng));
      long double exact = 0, abs_sum = 0;
      for (float v : h) {
        exact += v;
        abs_sum += std::fabs(v);
      }
      const float got = sum(from_host(h)).to_host()[0];
      const double err = std::fabs(double(got) - double(exact));
      INFO("n " << n << (symmetric ? " in [-1, 1)" : " in [0, 1)") << ": got " << got << ", exact " << double(exact)
                << ", error " << err / (FLT_EPSILON * double(abs_sum)) << " * FLT_EPSILON * sum|x|");
      CHECK(err <= c * FLT_EPSILON * double(abs_sum));
    }
  }
  SECTION("float64: the same bound with DBL_EPSILON") {
    std::vector<double> h(std::size_t(1) << 22);
    for (auto& v : h) v = rand_unit(rng) - 0.25;
    long double exact = 0, abs_sum = 0;
    for (double v : h) {
      exact += v;
      abs_sum += std::fabs(v);
    }
    const double got = sum(from_host(h)).to_host()[0];
    INFO("got " << got << ", exact " << double(exact));
    CHECK(std::fabs(got - double(exact)) <= c * DBL_EPSILON * double(abs_sum));
  }
  SECTION("1e8 followed by 16M - 1 ones, which a running float sum loses entirely") {
    const std::size_t n = std::size_t(1) << 24;
    std::vector<float> h(n, 1.0f);
    h[0] = 1e8f;
    const double exact = 1e8 + double(n - 1), abs_sum = exact;
    float naive = 0;
    for (float v : h) naive += v;  // stays at 1e8: 1e8 + 1 rounds back to 1e8
    REQUIRE(std::fabs(double(naive) - exact) > c * FLT_EPSILON * abs_sum);  // the case can fail
    const float got = sum(from_host(h)).to_host()[0];
    INFO("got " << got << ", exact " << exact << ", naive " << naive);
    CHECK(std::fabs(double(got) - exact) <= c * FLT_EPSILON * abs_sum);
    // mean divides the same sum by n.
    const float m = mean(from_host(h)).to_host()[0];
    CHECK(std::fabs(double(m) - exact / double(n)) <= (c + 1) * FLT_EPSILON * abs_sum / double(n));
  }
}

TEST_CASE("each reduction strategy gives the right values", "[reduce][strategy]") {
  // The layouts below select, on any device of up to ~100 compute units: a
  // long full reduction split over several groups with a last group that
  // finishes; a group per row; a work-item per column of a wide matrix (CPUs)
  // or a group per block of columns (GPUs); a work-item per output for short ranges.
  std::set<std::string> seen;
  auto run = [&](const char* what, const Array<float>& r, const HostArray<float>& want, double tol_scale) {
    const std::string strategy = strategy_of(kernel_source(r));
    seen.insert(strategy);
    INFO(what << " (" << strategy << ")");
    const auto got = r.to_host();
    REQUIRE(r.shape().to_vector() == want.shape);
    for (std::size_t i = 0; i < got.size(); ++i) {
      REQUIRE_EACH(std::fabs(double(got[i]) - double(want.data[i])) <= tol_scale, "output " << i << ": got " << got[i] << ", want " << want.data[i]);
    }
  };
  auto add = [](const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f); };
  // Integer data again: every partial sum is exact, tolerance 0.
  const auto big = small_ints<float>({1 << 22}, 81, -3, 3);
  run("sum of 4M elements", sum(to_device(big)), h_reduce<float>(big, {}, true, false, add), 0);
  const auto rows = small_ints<float>({512, 1000}, 82, -3, 3);
  run("row sums of (512, 1000)", sum(to_device(rows), 1), h_reduce<float>(rows, {1}, false, false, add), 0);
  const auto two = small_ints<float>({2, 300000}, 83, -3, 3);
  run("row sums of (2, 300000)", sum(to_device(two), -1), h_reduce<float>(two, {-1}, false, false, add), 0);
  const auto cols = small_ints<float>({64, 4096}, 84, -3, 3);
  run("column sums of (64, 4096)", sum(to_device(cols), 0), h_reduce<float>(cols, {0}, false, false, add), 0);
  const auto tall = small_ints<float>({200000, 3}, 87, -3, 3);
  run("column sums of (200000, 3)", sum(to_device(tall), 0), h_reduce<float>(tall, {0}, false, false, add), 0);
  // Rows of 15, no whole vectors: a GPU reads rows of 16 in lanes (test_lane_rows.cpp).
  const auto tiny = small_ints<float>({1000, 15}, 85, -3, 3);
  run("row sums of (1000, 15)", sum(to_device(tiny), 1), h_reduce<float>(tiny, {1}, false, false, add), 0);
  CHECK(seen.count("split over groups") == 1);
  CHECK(seen.count("work-group per output") == 1);
  CHECK(seen.count("work-item per output") == 1);

  SECTION("arg-reductions and NaN across split groups") {
    auto h = small_ints<float>({1 << 22}, 86, -1000, 1000);
    h.data[3'000'001] = 5000;  // the maximum, twice: the first wins
    h.data[3'500'000] = 5000;
    h.data[2'000'000] = -5000;
    CHECK(argmax(to_device(h)).to_host()[0] == 3'000'001);
    h.data[4'000'000] = float(kNaN);
    h.data[1'234'567] = float(kNaN);
    CHECK(argmax(to_device(h)).to_host()[0] == 1'234'567);
    CHECK(std::isnan(sum(to_device(h)).to_host()[0]));
  }
  SECTION("argmax of tall columns: strided and split") {
    auto h = small_ints<float>({200000, 3}, 88, -1000, 1000);
    h.data[std::size_t(150'000 * 3 + 1)] = 2000;
    h.data[std::size_t(170'000 * 3 + 1)] = 2000;
    h.data[std::size_t(5 * 3 + 2)] = float(kNaN);
    const auto want = h_reduce<std::int64_t>(h, {0}, false, false, [](const std::vector<float>& v) { return ref_reduce_as<std::int64_t>(Op::ArgMax, v); });
    CHECK(want.data[1] == 150'000);  // the first of the two maxima
    CHECK(want.data[2] == 5);        // the NaN
    CHECK(argmax(to_device(h), 0).to_host() == want.data);
  }
  SECTION("bool sums across split groups") {
    std::vector<bool> h(std::size_t(1) << 22, true);
    h[4'000'000] = false;
    CHECK(sum(from_host(h)).to_host()[0] == (std::int64_t(1) << 22) - 1);
  }
}

TEST_CASE("a split reduction with several outputs after one with fewer", "[reduce][strategy]") {
  // Split reductions share one scratch buffer for their per-output counters
  // and partial results; what one leaves behind must not disturb the next.
  for (int round = 0; round < 2; ++round) {
    CHECK(sum(from_host(std::vector<float>(std::size_t(1) << 22, 1.0f))).to_host() == std::vector<float>{4194304.0f});
    CHECK(sum(from_host(std::vector<float>(600000, 1.0f), {200000, 3}), 0).to_host() == std::vector<float>(3, 200000.0f));
    CHECK(sum(from_host(std::vector<float>(1000000, 1.0f), {2, 500000}), 1).to_host() == std::vector<float>(2, 500000.0f));
  }
}

TEST_CASE("kernel counts of reductions and their producers and consumers", "[reduce][fusion]") {
  const auto hx = small_ints<float>({37, 29}, 91, -4, 4);
  SECTION("sum(x * x): one upload, one kernel, one download") {
    reset_stats();
    const auto x = from_host(hx.data, {37, 29});
    const float s = sum(x * x).to_host()[0];
    CHECK(stats().uploads == 1);
    CHECK(stats().kernels_launched == 1);
    CHECK(stats().downloads == 1);
    float want = 0;
    for (float v : hx.data) want += v * v;
    CHECK(s == want);
  }
  const auto x = to_device(hx);
  SECTION("x - mean(x): one row kernel (the whole array is one row that fits)") {
    reset_stats();
    const auto r = (x - mean(x)).to_host();
    CHECK(stats().kernels_launched == 1);
    double m = 0;
    for (float v : hx.data) m += v;
    m /= double(hx.data.size());
    // The mean is within 3 ulp (an exact sum, one rounded division), the
    // subtraction rounds once: 4 ulp of the largest magnitude, |x - mean| < 8.
    for (std::size_t i = 0; i < r.size(); ++i)
      REQUIRE(std::fabs(double(r[i]) - (double(hx.data[i]) - m)) <= 4 * FLT_EPSILON * 8);
  }
  SECTION("var: one kernel where the device has float64 (one pass), else two") {
    reset_stats();
    const float v = var(x).to_host()[0];
    CHECK(stats().kernels_launched == (default_device().info().fp64 ? 1u : 2u));
    CHECK(std::fabs(double(v) - double(ref_var(widen(hx.data), 0))) <= 16 * FLT_EPSILON * double(v));
  }
  SECTION("one reduction of one array written twice in an expression runs once") {
    reset_stats();
    const auto r = (max(x, 1, true) - min(x, 1, true) + max(x, 1, true)).to_host();
    CHECK(stats().kernels_launched == 3);  // max, min, the expression
    for (std::int64_t i = 0; i < 37; ++i) {
      float mx = -INFINITY, mn = INFINITY;
      for (std::int64_t j = 0; j < 29; ++j) {
        mx = std::max(mx, hx.data[std::size_t(i * 29 + j)]);
        mn = std::min(mn, hx.data[std::size_t(i * 29 + j)]);
      }
      REQUIRE(r[std::size_t(i)] == mx - mn + mx);
    }
  }
  SECTION("softmax over rows: one row kernel") {
    // exp is within 3 ulp (OpenCL), the row sum of 29 such values within a few
    // more, one division: 16 * FLT_EPSILON relative is generous and still
    // catches any wrong row or column.
    auto check_softmax = [&](const std::vector<float>& r) {
      for (std::int64_t i = 0; i < 37; ++i) {
        double mx = -kInf, s = 0;
        for (std::int64_t j = 0; j < 29; ++j) mx = std::max(mx, double(hx.data[std::size_t(i * 29 + j)]));
        for (std::int64_t j = 0; j < 29; ++j) s += std::exp(double(hx.data[std::size_t(i * 29 + j)]) - mx);
        for (std::int64_t j = 0; j < 29; ++j) {
          const double want = std::exp(double(hx.data[std::size_t(i * 29 + j)]) - mx) / s;
          REQUIRE(std::fabs(double(r[std::size_t(i * 29 + j)]) - want) <= 16 * FLT_EPSILON * want);
        }
      }
    };
    // Written out in full, with the row maximum spelled twice.
    reset_stats();
    const auto sm = exp(x - max(x, 1, true)) / sum(exp(x - max(x, 1, true)), 1, true);
    check_softmax(sm.to_host());
    CHECK(stats().kernels_launched == 1);
    // With the shifted exponentials named once (test_row_fusion.cpp checks
    // the row kernels further).
    reset_stats();
    const auto e = exp(x - max(x, 1, true));
    check_softmax((e / sum(e, 1, true)).to_host());
    CHECK(stats().kernels_launched == 1);
  }
}
