// Reductions over leading axes (column reductions) with ReduceStrategy::
// ColumnBlock: a work-group per block of 32 neighbouring outputs reading each
// row's block together, with the rows split over several groups (and a second
// kernel combining them) when there are too few blocks. On the default CPU
// device (PoCL, a few compute units) the shapes below take it: more than 32
// and fewer than a work-item-per-output's worth of columns, more than 16 rows.
// Where neighbouring outputs are neighbours of every load and a vector tiles
// the outputs (ReduceSpec::kept_inner), each work-item takes a vector of them
// instead: the last test cases here.
//
// Against the host reference: float sums within the compensated bound
// (a few FLT_EPSILON * sum|x|), everything else exactly; ±0, ±inf and NaN
// among the inputs; tails of every block and part.
#include "support/cache_test_support.hpp"
#include "support/device_compare.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/device_rows.hpp"
#include "support/schedule_run.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// The vector form indexes [reduced..., kept...]: position r * n + o.
bool column_vectors(const std::string& src) { return src.find("const long p = r * n + o;") != std::string::npos; }
bool column_blocks(const std::string& src) {
  return src.find("reqd_work_group_size(32, 8, 1)") != std::string::npos && !column_vectors(src);
}
bool split(const std::string& src) { return src.find("scratch") != std::string::npos; }

// The parts a column reduction of `blocks` blocks over m rows is split
// into under tuning t: where the blocks are fewer than t's target groups,
// as many as fit in them (column_one_wave) or enough to reach them, and no
// more than give each of a block's `rows` work-items 64 rows.
std::int64_t parts_expected(const detail::DeviceTuning& t, std::int64_t blocks, std::int64_t m, std::int64_t rows) {
  const std::int64_t target = t.target_groups;
  if (blocks >= target) return 1;
  const std::int64_t want = t.column_one_wave ? target / blocks : (target + blocks - 1) / blocks;
  return std::clamp<std::int64_t>(std::min(want, m / (rows * 64)), 1, 4096);
}

// Whether a column reduction of n outputs over m rows is split, on this device.
bool split_expected(std::int64_t n, std::int64_t m, std::int64_t per_block, std::int64_t rows) {
  return parts_expected(detail::device_tuning(), (n + per_block - 1) / per_block, m, rows) > 1;
}

// A host reduction folding f over a row from init; NumPy's max and min (NaN wins).
template <class T, class F>
auto fold(T init, F f) {
  return [init, f](const std::vector<T>& v) {
    T a = init;
    for (T e : v) a = f(a, e);
    return a;
  };
}

template <class T>
T nan_max(T a, T b) { return std::isnan(a) || std::isnan(b) ? T(NAN) : std::max(a, b); }
template <class T>
T nan_min(T a, T b) { return std::isnan(a) || std::isnan(b) ? T(NAN) : std::min(a, b); }

HostArray<float> randoms(const Dims& shape, std::uint64_t seed, bool edges) {
  std::mt19937_64 rng(seed);
  auto h = h_generate<float>(shape, [&](const Dims&) { return float(2 * rand_unit(rng) - 1); });
  if (edges && h.data.size() > 8) {
    const float e[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN()};
    for (const float v : e) h.data[std::size_t(rand_int(rng, 0, std::int64_t(h.data.size()) - 1))] = v;
  }
  return h;
}

// Float sums: NaN and ±inf exactly where the exact sum has them, else within
// 4 * FLT_EPSILON * sum|x| of it (reductions.cpp's accuracy bound).
void check_sums(const Array<float>& got, const HostArray<float>& x, const std::vector<int>& axes) {
  const auto exact = h_reduce<double>(x, axes, false, false, [](const std::vector<float>& v) {
    long double s = 0;
    for (float f : v) s += f;
    return double(s);
  });
  const auto mag = h_reduce<double>(x, axes, false, false, [](const std::vector<float>& v) {
    long double s = 0;
    for (float f : v) s += std::fabs(f);
    return double(s);
  });
  const auto g = got.to_host();
  REQUIRE(got.shape().to_vector() == exact.shape);
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(exact.data[i])) REQUIRE_EACH(std::isnan(g[i]), "output " << i << ": got " << g[i] << ", exact " << exact.data[i]);
    else if (std::isinf(exact.data[i])) REQUIRE_EACH(double(g[i]) == exact.data[i], "output " << i << ": got " << g[i] << ", exact " << exact.data[i]);
    else REQUIRE_EACH(std::fabs(double(g[i]) - exact.data[i]) <= 4 * FLT_EPSILON * mag.data[i], "output " << i << ": got " << g[i] << ", exact " << exact.data[i]);
  }
}

}  // namespace

TEST_CASE("column sums take a work-group per block of columns", "[reduce][columns]") {
  struct Case {
    Dims shape;
    std::vector<int> axes;
  };
  // 33 to 99 outputs (partial blocks), 17 to 4099 rows. Each input is a
  // view of the first columns of a wider array, so its last axis (odd) is
  // not a whole number of vectors in its rows and the outputs take blocks.
  const Case cases[] = {
      {{17, 33}, {0}}, {{1000, 99}, {0}}, {{4099, 37}, {0}}, {{500, 7, 9}, {0}}, {{50, 40, 37}, {0, 1}}, {{3000, 1, 45}, {0}},
  };
  const std::int64_t target = detail::device_tuning().target_groups;
  int splits = 0;
  for (const Case& c : cases) {
    Dims wide = c.shape;
    ++wide.back();
    const auto hw = randoms(wide, 11 + std::uint64_t(c.shape[0]), true);
    std::vector<Slice> first(c.shape.size());
    first.back() = range(0, c.shape.back());
    const auto hx = h_slice(hw, first);
    const auto x = slice(to_device(hw), first);
    const auto r = c.axes.size() == 1 ? sum(x, c.axes[0]) : sum(x, std::vector<int>(c.axes));
    const std::string src = kernel_source(r);
    INFO(dims_str(c.shape));
    REQUIRE(column_blocks(src));
    // Split where there are fewer blocks than the device's target groups,
    // into no more parts than give each work-item 64 rows.
    std::int64_t n = 1, m = 1;
    for (std::size_t a = 0; a < c.shape.size(); ++a)
      (std::find(c.axes.begin(), c.axes.end(), int(a)) != c.axes.end() ? m : n) *= c.shape[a];
    CHECK(split(src) == split_expected(n, m, 32, 8));
    splits += split(src);
    reset_stats();
    check_sums(r, hx, c.axes);
    CHECK(stats().kernels_launched == (split(src) ? 2 : 1));
  }
  if (target >= 4) CHECK(splits > 0);
}

TEST_CASE("every reduction by column blocks, split and not", "[reduce][columns]") {
  // Small integers: sums, products of few factors, extremes and means are
  // exact or rounded once; many ties for the arg-reductions, whose first
  // index must win across lanes, rows and parts.
  for (const Dims& shape : {Dims{300, 45}, Dims{4099, 40}}) {
    std::mt19937_64 rng{std::uint64_t(shape[0])};
    auto hx = h_generate<float>(shape, [&](const Dims&) { return float(rand_int(rng, -3, 3)); });
    hx.data[std::size_t(shape[0] / 2 * shape[1] + 5)] = std::numeric_limits<float>::quiet_NaN();  // column 5
    hx.data[std::size_t((shape[0] - 1) * shape[1] + 7)] = std::numeric_limits<float>::infinity();  // column 7, last row
    const auto x = to_device(hx);
    INFO(dims_str(shape));
    // Vectors (the last one, for 45 outputs, lane by lane); arg-reductions
    // too, each lane's row beside its value (test_column_args.cpp).
    REQUIRE(column_vectors(kernel_source(max(x, 0))));
    REQUIRE(column_vectors(kernel_source(argmax(x, 0))));
    auto first_of = [](bool want_max) {
      return [want_max](const std::vector<float>& v) {
        std::int64_t best = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (std::isnan(v[std::size_t(best)])) break;
          if (std::isnan(v[i]) || (want_max ? v[i] > v[std::size_t(best)] : v[i] < v[std::size_t(best)])) best = std::int64_t(i);
        }
        return best;
      };
    };
    require_matches(argmax(x, 0), h_reduce<std::int64_t>(hx, {0}, false, false, first_of(true)));
    require_matches(argmin(x, 0), h_reduce<std::int64_t>(hx, {0}, false, false, first_of(false)));
    require_matches(max(x, 0), h_reduce<float>(hx, {0}, false, false, fold(-INFINITY, nan_max<float>)));
    require_matches(min(x, 0), h_reduce<float>(hx, {0}, false, false, fold(INFINITY, nan_min<float>)));
    require_matches(sum(x, 0), h_reduce<float>(hx, {0}, false, false, fold(0.0f, std::plus<float>())));
    // Means: an exact sum divided once.
    require_matches(mean(x, 0), h_reduce<float>(hx, {0}, false, false, [](const std::vector<float>& v) {
                      double s = 0;
                      for (float e : v) s += e;
                      return float(s / double(v.size()));
                    }));
    // Integers accumulate exactly (int32 in int64).
    std::vector<std::int32_t> hi(hx.data.size());
    for (std::size_t i = 0; i < hi.size(); ++i) hi[i] = std::isfinite(hx.data[i]) ? std::int32_t(hx.data[i]) * 1000003 : 1;
    const auto xi = from_host(hi, Shape(shape));
    const auto si = sum(xi, 0).to_host();
    for (std::int64_t col = 0; col < shape[1]; ++col) {
      std::int64_t want = 0;
      for (std::int64_t row = 0; row < shape[0]; ++row) want += hi[std::size_t(row * shape[1] + col)];
      REQUIRE(si[std::size_t(col)] == want);
    }
  }
}

TEST_CASE("float32 column sums of 200000 rows stay within the compensated bound", "[reduce][columns][accuracy]") {
  // A running float sum of 200000 values in [0, 1) is off by hundreds of
  // ulps; per-work-item compensation keeps it to a few.
  const auto hx = randoms({200000, 40}, 0x5EED0104, false);
  HostArray<float> pos = hx;
  for (auto& v : pos.data) v = std::fabs(v);
  const auto r = sum(to_device(pos), 0);
  REQUIRE(column_vectors(kernel_source(r)));  // 40 outputs: vectors, each lane compensated on its own
  check_sums(r, pos, {0});
  check_sums(sum(to_device(hx), 0), hx, {0});
}

TEST_CASE("float32 column sums split into hundreds of parts stay within the compensated bound", "[reduce][columns][accuracy]") {
  // A GPU's layout (32 x 8 work-items, vectors of 4, 528 groups to fill it):
  // 40 outputs are one block, so 200000 rows take 390 parts, whose partials
  // a work-item per output adds in sequence, compensated as the parts were.
  const auto hx = randoms({200000, 40}, 0x5EED0105, false);
  HostArray<float> pos = hx;
  for (auto& v : pos.data) v = std::fabs(v);
  for (const HostArray<float>* h : std::initializer_list<const HostArray<float>*>{&pos, &hx}) {
    const auto r = sum(to_device(*h), 0);
    {
      const auto node = r.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      t.vector_bytes = 16, t.column_items = 32, t.column_rows = 8, t.row_items_cap = 1024, t.target_groups = 528;
      t.max_work_group_size = std::max<std::size_t>(t.max_work_group_size, 256);
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      CHECK(s.steps[0].kernel.plan.reduce.kept_inner);
      CHECK(s.steps[0].kernel.args.groups == 390);
      detail::run_schedule(*node->device, s);
    }
    check_sums(r, *h, {0});
  }
}

TEST_CASE("column blocks split into as many parts as fit in the target groups, or enough to reach them", "[reduce][columns]") {
  // A GPU's layout (32 x 8 work-items, vectors of 4 floats: 128 outputs a
  // block) with the target set around the block count: 1024 outputs are 8
  // blocks. Rounded down (column_one_wave), a target of 9 leaves them one
  // part and one kernel, where rounding up made two parts and a second
  // kernel; 23 gives 2 parts against 3. Sums and maxima against the host,
  // with edge values (softmax's pair and the moments: test_reduction_pairs).
  const auto hx = randoms({4096, 1024}, 0x0a1e, true);
  struct Case {
    int target;
    bool one_wave;
    std::int64_t parts;
  };
  for (const Case c : {Case{9, true, 1}, Case{9, false, 2}, Case{23, true, 2}, Case{23, false, 3}, Case{8, true, 1},
                       Case{7, true, 1}, Case{4, true, 1}, Case{1000, true, 8}, Case{1000, false, 8}}) {
    INFO("target " << c.target << (c.one_wave ? ", rounded down" : ", rounded up"));
    auto t = detail::device_tuning();
    t.vector_bytes = 16, t.column_items = 32, t.column_rows = 8, t.row_items_cap = 1024, t.column_blocks = true;
    t.max_work_group_size = std::max<std::size_t>(t.max_work_group_size, 256);
    t.target_groups = c.target;
    t.column_one_wave = c.one_wave;
    // The rule as the helper has it (4096 rows give at most 8 parts).
    REQUIRE(parts_expected(t, 8, 4096, 8) == c.parts);
    for (const bool maximum : {false, true}) {
      const auto x = to_device(hx);
      const auto r = maximum ? max(x, 0) : sum(x, 0);
      const detail::Schedule s = run_with(r, t);
      REQUIRE(s.kernel_count() == 1);
      const auto& k = s.steps[0].kernel;
      REQUIRE(k.plan.reduce.kept_inner);
      REQUIRE(k.plan.width == 4);
      CHECK(k.args.groups == c.parts);
      CHECK(k.plan.reduce.two_stage == (c.parts > 1));
      if (maximum) require_matches(r, h_reduce<float>(hx, {0}, false, false, fold(-INFINITY, nan_max<float>)));
      else check_sums(r, hx, {0});
    }
  }
}

TEST_CASE("column blocks keep one kernel with their producer and none for empty inputs", "[reduce][columns][fusion]") {
  const auto hx = randoms({100, 64}, 5, false), hy = randoms({64, 100}, 6, false);
  const auto x = to_device(hx), y = to_device(hy);
  const auto r = sum(x * 2.0f + transpose(y), 0);
  REQUIRE(column_blocks(kernel_source(r)));
  reset_stats();
  const auto ty = h_transpose(hy);
  HostArray<float> in{hx.shape, {}};
  for (std::size_t i = 0; i < hx.data.size(); ++i) in.data.push_back(hx.data[i] * 2.0f + ty.data[i]);
  check_sums(r, in, {0});
  CHECK(stats().kernels_launched == 1);

  const auto e = from_host(std::vector<float>{}, Shape({0, 40}));
  reset_stats();
  CHECK(sum(e, 0).to_host() == std::vector<float>(40, 0.0f));
  const auto none = from_host(std::vector<float>{}, Shape({100, 0}));
  CHECK(sum(none, 0).to_host().empty());
}

TEST_CASE("column blocks off child", "[.column_blocks_off_child]") {
  const auto hx = randoms({1000, 100}, 7, true);
  const auto r = sum(to_device(hx), 0);
  REQUIRE_FALSE(column_blocks(kernel_source(r)));
  REQUIRE_FALSE(column_vectors(kernel_source(r)));
  check_sums(r, hx, {0});
}

TEST_CASE("FUSECL_COLUMN_BLOCKS=0 reduces columns as before", "[reduce][columns]") {
  const auto r = run_this_test_binary("FUSECL_COLUMN_BLOCKS=0", "[.column_blocks_off_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

namespace {

// Small integers (sums and products of few factors exact), with the given
// special values at scattered places: a different column, so a different
// lane of a vector, for each.
template <class T>
HostArray<T> integers(const Dims& shape, std::uint64_t seed, std::vector<T> specials = {}) {
  std::mt19937_64 rng(seed);
  auto h = h_generate<T>(shape, [&](const Dims&) { return T(rand_int(rng, -3, 3)); });
  for (std::size_t i = 0; i < specials.size(); ++i) h.data[(i * 7919 + 13) % h.data.size()] = specials[i];
  return h;
}

// Every reduction the vector form takes, on T, against the host, exactly.
template <class T>
void check_every_reduction(const HostArray<T>& hx, const std::vector<int>& axes) {
  const auto x = to_device(hx);
  const std::vector<int> ax = axes;
  INFO(dims_str(hx.shape) << " over " << axes.size() << " axes from " << axes[0]);
  REQUIRE(column_vectors(kernel_source(sum(x, ax))));
  require_matches(sum(x, ax), h_reduce<T>(hx, axes, false, false, fold(T(0), std::plus<T>())));
  require_matches(max(x, ax), h_reduce<T>(hx, axes, false, false, fold(T(-INFINITY), nan_max<T>)));
  require_matches(min(x, ax), h_reduce<T>(hx, axes, false, false, fold(T(INFINITY), nan_min<T>)));
  require_matches(mean(x, ax, true), h_reduce<T>(hx, axes, false, true, [](const std::vector<T>& v) {
                    long double s = 0;
                    for (T e : v) s += e;
                    return T(s / (long double)v.size());
                  }));
  // Products of values in {-1, 1, 2} where the range is short enough to stay finite and exact.
  auto hp = h_map<T>(hx, [](T v) { return std::isfinite(v) ? T(v > 1 ? 2 : v < 0 ? -1 : 1) : v; });
  require_matches(prod(to_device(hp), ax), h_reduce<T>(hp, axes, false, false, fold(T(1), std::multiplies<T>())));
}

}  // namespace

TEST_CASE("column reductions in vectors of neighbouring outputs", "[reduce][columns][vectors]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    Dims shape;
    std::vector<int> axes;
  };
  // Vectors of 16, 8, 4 and 2 on a CPU (4 and 2 on a GPU); the kept axes one
  // run (contiguous loads) or apart (strided rows: coordinates per row and
  // per output), the reduced axes one run or two; contiguous outputs that no
  // vector tiles, whose last vector takes its lanes one at a time (67: a
  // tail of 3 after vectors of 16 or 4; 45, 9, 3).
  const Case cases[] = {
      {{37, 64}, {0}},    {{1001, 40}, {0}}, {{19, 34}, {0}},         {{23, 5, 48}, {0}},  {{6, 77, 32}, {1}},
      {{9, 8, 11, 16}, {0, 2}}, {{5000, 8}, {0}}, {{3, 300, 4, 20}, {1}}, {{37, 67}, {0}}, {{1001, 45}, {0}},
      {{5000, 9}, {0}},  {{40, 3}, {0}},    {{17, 5, 9}, {0}},
  };
  for (const Case& c : cases) {
    // ±0, ±inf and NaN in different columns: one lane each, the others finite.
    check_every_reduction(integers<float>(c.shape, 3, {0.0f, -0.0f, inf, -inf, nan}), c.axes);
    check_every_reduction(integers<float>(c.shape, 4, {inf, -inf}), c.axes);  // +inf and -inf in one column's sum: NaN
    check_every_reduction(integers<double>(c.shape, 5, {double(nan), double(inf)}), c.axes);
  }
  // Integers accumulate exactly in int64, in vectors.
  const auto hi = h_map<std::int32_t>(integers<float>({777, 48}, 6), [](float v) { return std::int32_t(v) * 1000003; });
  const auto si = sum(to_device(hi), 0);
  REQUIRE(column_vectors(kernel_source(si)));
  require_matches(si, h_reduce<std::int64_t>(hi, {0}, false, false, [](const std::vector<std::int32_t>& v) {
                    std::int64_t s = 0;
                    for (auto e : v) s += e;
                    return s;
                  }));
}

TEST_CASE("column reductions in vectors: split parts, fused producers, counts and fallbacks", "[reduce][columns][vectors]") {
  const auto t = detail::device_tuning();
  const std::int64_t w = std::min<std::int64_t>(16, t.vector_bytes / 4);  // float32 lanes (every shape below is a multiple)
  SECTION("few outputs, many rows: parts of the rows, then a second kernel") {
    const auto hx = randoms({20000, 16}, 21, true);
    const auto r = sum(to_device(hx), 0);
    const std::string src = kernel_source(r);
    REQUIRE(column_vectors(src));
    CHECK(split(src) == split_expected(16, 20000, t.column_items * w, t.column_rows));
    reset_stats();
    check_sums(r, hx, {0});
    CHECK(stats().kernels_launched == (split(src) ? 2 : 1));
    if (t.target_groups >= 2) CHECK(split(src));
  }
  SECTION("a producer with broadcast rows and columns fused into the loads") {
    // x * row + col: row (1, C) loads along the outputs (a vector per row),
    // col (R, 1) is one value per row (broadcast across the vector).
    const auto hx = randoms({300, 96}, 22, false), hrow = randoms({1, 96}, 23, false), hcol = randoms({300, 1}, 24, false);
    const auto r = sum(to_device(hx) * to_device(hrow) + to_device(hcol), 0);
    REQUIRE(column_vectors(kernel_source(r)));
    HostArray<float> in{hx.shape, {}};
    for (std::int64_t i = 0; i < 300; ++i)
      for (std::int64_t j = 0; j < 96; ++j)
        in.data.push_back(hx.data[std::size_t(i * 96 + j)] * hrow.data[std::size_t(j)] + hcol.data[std::size_t(i)]);
    reset_stats();
    check_sums(r, in, {0});
    CHECK(stats().kernels_launched == 1);
  }
  SECTION("what the vector form does not take") {
    const auto hx = randoms({200, 64}, 25, false);
    const auto x = to_device(hx);
    CHECK_FALSE(column_vectors(kernel_source(sum(x, 1))));           // a row reduction
    CHECK_FALSE(column_vectors(kernel_source(sum(transpose(x), 0))));  // reads along its rows
    const auto strided = to_device(randoms({200, 64, 3}, 26, false));
    CHECK_FALSE(column_vectors(kernel_source(sum(strided, std::vector<int>{0, 2}))));  // neighbouring outputs 3 apart
    CHECK_FALSE(column_vectors(kernel_source(sum(slice(x, 1, 0, 63), 0))));  // rows of 63 of 64: no whole vectors in a row
    CHECK_FALSE(column_vectors(kernel_source(any(x > 0.5f, 0))));     // truth values
  }
}

namespace {

// A GPU's column layout (launch.cpp: every GPU) on this device.
detail::DeviceTuning gpu_columns() { return gpu_column_tuning(*from_host(std::vector<float>{0.f}, {1}).node()->device); }

// y run under t: its first kernel's width, after checking that it is the
// vector form of column blocks (or, with `vectors` false, is not).
template <class T>
int width_run(const Array<T>& y, const detail::DeviceTuning& t, bool vectors = true) {
  const auto s = run_with(y, t);
  REQUIRE(s.kernel_count() >= 1);
  const auto& plan = s.steps[0].kernel.plan;
  CHECK((plan.reduce.strategy == codegen::ReduceStrategy::ColumnBlock && plan.reduce.kept_inner) == vectors);
  return plan.width;
}

// Column c of the C-order (M, B) h, from column `from` of rows of `stride`.
template <class T>
std::vector<std::int64_t> column_folds(const std::vector<T>& h, std::int64_t M, std::int64_t B, std::int64_t stride, std::int64_t from,
                                       int what) {  // 0 sum, 1 max, 2 min
  std::vector<std::int64_t> out;
  for (std::int64_t c = 0; c < B; ++c) {
    std::int64_t a = what == 0 ? 0 : std::int64_t(h[std::size_t(from + c)]);
    for (std::int64_t r = 0; r < M; ++r) {
      const std::int64_t v = std::int64_t(h[std::size_t(r * stride + from + c)]);
      a = what == 0 ? a + v : what == 1 ? std::max(a, v) : std::min(a, v);
    }
    out.push_back(a);
  }
  return out;
}

template <class U>
void require_equal(const std::vector<U>& got, const std::vector<std::int64_t>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t o = 0; o < got.size(); ++o) REQUIRE_EACH(std::int64_t(got[o]) == want[o], "output " << o);
}

// The lanes of a GPU's column block of n outputs from w lanes, halved to
// tile a strided row's outputs, then to at most n (scheduler.cpp's column_vectors).
int lanes_of(std::int64_t n, int w, bool strided) {
  if (strided)
    while (w > 1 && n % w != 0) w /= 2;
  while (w > 1 && w > n) w /= 2;
  return w;
}

// 8 lanes for columns of bytes where the accumulator is a byte too, or
// where 8-lane blocks of 32 work-items are at least 8 (n >= 2048); else the
// width rule's (an int64 sum's 2 lanes in 16-byte vectors).
int byte_lanes(std::int64_t n, bool byte_acc, bool strided) { return lanes_of(n, byte_acc || n >= 2048 ? 8 : 2, strided); }

template <class T>
void check_byte_columns(std::int64_t M, std::int64_t B, std::uint64_t seed, const detail::DeviceTuning& t) {
  INFO(M << " x " << B);
  std::mt19937_64 rng(seed);
  std::vector<T> h(std::size_t(M * B));
  for (auto& v : h) v = T(rng());
  // The type's extremes in different lanes, and a column of them only.
  for (std::int64_t c = 0; c < B; c += 3) h[std::size_t((c * 7) % M * B + c)] = std::numeric_limits<T>::max();
  for (std::int64_t c = 1; c < B; c += 3) h[std::size_t((c * 5) % M * B + c)] = std::numeric_limits<T>::lowest();
  for (std::int64_t r = 0; r < M; ++r) h[std::size_t(r * B + B / 2)] = std::numeric_limits<T>::max();
  const auto x = from_host(h, {M, B});
  const auto s = sum(x, 0), mx = max(x, 0), mn = min(x, 0);
  CHECK(width_run(s, t) == byte_lanes(B, false, false));
  CHECK(width_run(mx, t) == byte_lanes(B, true, false));
  CHECK(width_run(mn, t) == byte_lanes(B, true, false));
  require_equal(s.to_host(), column_folds(h, M, B, B, 0, 0));
  require_equal(mx.to_host(), column_folds(h, M, B, B, 0, 1));
  require_equal(mn.to_host(), column_folds(h, M, B, B, 0, 2));
  // Rows of B - 1 from column 1 (strided loads): lanes halved to tile
  // B - 1 outputs (to 1: not this form).
  const auto v = slice(x, 1, 1, B);
  const auto sv = sum(v, 0), mv = max(v, 0);
  const int want_s = byte_lanes(B - 1, false, true), want_m = byte_lanes(B - 1, true, true);
  const int got_s = width_run(sv, t, want_s > 1), got_m = width_run(mv, t, want_m > 1);
  if (want_s > 1) CHECK(got_s == want_s);
  if (want_m > 1) CHECK(got_m == want_m);
  require_equal(sv.to_host(), column_folds(h, M, B - 1, B, 1, 0));
  require_equal(mv.to_host(), column_folds(h, M, B - 1, B, 1, 1));
}

}  // namespace

TEST_CASE("a GPU's columns of bytes take 8 lanes where their accumulator is a byte or their blocks are many", "[reduce][columns][vectors]") {
  const auto t = gpu_columns();
  // Few rows (one part), many (parts of the rows met by a second kernel),
  // outputs that 8 lanes do not tile, fewer outputs than 8, and 2048 or
  // more outputs (8 blocks of 8 lanes: sums take 8 lanes too).
  for (const auto& [M, B] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {301, 45}, {5000, 65}, {40, 17}, {900, 5}, {64, 9}, {20, 2049}, {40, 2051}, {24, 4104}}) {
    check_byte_columns<std::int8_t>(M, B, std::uint64_t(M * 131 + B), t);
    check_byte_columns<std::uint8_t>(M, B, std::uint64_t(M * 137 + B), t);
  }
  // Truth values counted (loads of one byte, sums of int64): 2 lanes for 40
  // outputs, 8 for 4096.
  std::mt19937_64 rng(0x8b);
  for (const std::int64_t B : {40, 4096}) {
    std::vector<std::uint8_t> hb(std::size_t(30 * B));
    for (auto& v : hb) v = std::uint8_t(rng() % 3 == 0);
    const auto cb = sum(from_host(hb, {30, B}).astype<bool>(), 0);
    CHECK(width_run(cb, t) == (B >= 2048 ? 8 : 2));
    require_equal(cb.to_host(), column_folds(hb, 30, B, B, 0, 0));
  }
  // argmax of int8 (int32 values and rows: 4 lanes by the width rule): 8
  // lanes from 2048 outputs.
  for (const std::int64_t B : {256, 4096}) {
    std::vector<std::int8_t> ha(std::size_t(40 * B));
    for (auto& v : ha) v = std::int8_t(rng() % 5);
    const auto am = argmax(from_host(ha, {40, B}), 0);
    CHECK(width_run(am, t) == (B >= 2048 ? 8 : 4));
    const auto got = am.to_host();
    for (std::int64_t c = 0; c < B; ++c) {
      std::int64_t best = 0;
      for (std::int64_t r = 1; r < 40; ++r)
        if (ha[std::size_t(r * B + c)] > ha[std::size_t(best * B + c)]) best = r;
      REQUIRE_EACH(std::int64_t(got[std::size_t(c)]) == best, "column " << c);
    }
  }
  // Wider loads keep the width rule: float32 in 16-byte vectors, and a
  // body loading int8 and float32.
  const auto f = from_host(std::vector<float>(300 * 64, 1.5f), {300, 64});
  CHECK(width_run(sum(f, 0), t) == 4);
  const auto i8 = from_host(std::vector<std::int8_t>(300 * 64, 2), {300, 64});
  const auto mixed = sum(i8 * f, 0);
  CHECK(width_run(mixed, t) == 4);
  for (float e : mixed.to_host()) REQUIRE_EACH(e == 900.0f, "");
}
