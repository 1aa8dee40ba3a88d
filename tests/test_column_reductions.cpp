// Reductions over leading axes (column reductions) with ReduceStrategy::
// ColumnBlock: a work-group per block of 32 neighbouring outputs reading each
// row's block together, with the rows split over several groups (and a second
// kernel combining them) when there are too few blocks. On the default CPU
// device (PoCL, a few compute units) the shapes below take it: more than 32
// and fewer than a work-item-per-output's worth of columns, more than 16 rows.
//
// Against the host reference: float sums within the compensated bound
// (a few FLT_EPSILON * sum|x|), everything else exactly; ±0, ±inf and NaN
// among the inputs; tails of every block and part.
#include "support/cache_test_support.hpp"
#include "support/device_compare.hpp"
#include "support/host_array.hpp"
#include "src/launch.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

bool column_blocks(const std::string& src) { return src.find("reqd_work_group_size(32, 8, 1)") != std::string::npos; }
bool split(const std::string& src) { return src.find("scratch") != std::string::npos; }

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
    INFO("output " << i << ": got " << g[i] << ", exact " << exact.data[i]);
    if (std::isnan(exact.data[i])) REQUIRE(std::isnan(g[i]));
    else if (std::isinf(exact.data[i])) REQUIRE(double(g[i]) == exact.data[i]);
    else REQUIRE(std::fabs(double(g[i]) - exact.data[i]) <= 4 * FLT_EPSILON * mag.data[i]);
  }
}

}  // namespace

TEST_CASE("column sums take a work-group per block of columns", "[reduce][columns]") {
  struct Case {
    Dims shape;
    std::vector<int> axes;
  };
  // 33 to 100 outputs (partial blocks), 17 to 4099 rows.
  const Case cases[] = {
      {{17, 33}, {0}}, {{1000, 100}, {0}}, {{4099, 37}, {0}}, {{500, 7, 9}, {0}}, {{50, 40, 37}, {0, 1}}, {{3000, 1, 45}, {0}},
  };
  const std::int64_t target = detail::device_tuning().target_groups;
  int splits = 0;
  for (const Case& c : cases) {
    const auto hx = randoms(c.shape, 11 + std::uint64_t(c.shape[0]), true);
    const auto x = to_device(hx);
    const auto r = c.axes.size() == 1 ? sum(x, c.axes[0]) : sum(x, std::vector<int>(c.axes));
    const std::string src = kernel_source(r);
    INFO(dims_str(c.shape));
    REQUIRE(column_blocks(src));
    // Split where there are fewer blocks than the device's target groups,
    // into no more parts than give each work-item 64 rows.
    std::int64_t n = 1, m = 1;
    for (std::size_t a = 0; a < c.shape.size(); ++a)
      (std::find(c.axes.begin(), c.axes.end(), int(a)) != c.axes.end() ? m : n) *= c.shape[a];
    const std::int64_t blocks = (n + 31) / 32;
    CHECK(split(src) == (blocks < target && std::min((target + blocks - 1) / blocks, m / 512) > 1));
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
    REQUIRE(column_blocks(kernel_source(max(x, 0))));
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
    auto fold = [](float init, auto f) {
      return [init, f](const std::vector<float>& v) {
        float a = init;
        for (float e : v) a = f(a, e);
        return a;
      };
    };
    auto nanmax = [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); };
    auto nanmin = [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); };
    require_matches(max(x, 0), h_reduce<float>(hx, {0}, false, false, fold(-INFINITY, nanmax)));
    require_matches(min(x, 0), h_reduce<float>(hx, {0}, false, false, fold(INFINITY, nanmin)));
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
  REQUIRE(column_blocks(kernel_source(r)));
  check_sums(r, pos, {0});
  check_sums(sum(to_device(hx), 0), hx, {0});
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
  check_sums(r, hx, {0});
}

TEST_CASE("FUSECL_COLUMN_BLOCKS=0 reduces columns as before", "[reduce][columns]") {
  const auto r = run_this_test_binary("FUSECL_COLUMN_BLOCKS=0", "[.column_blocks_off_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}
