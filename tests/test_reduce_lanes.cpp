// Reductions over short rows on a CPU, a lane a row (codegen ReduceSpec::
// row_lanes with ThreadPerOutput; lane_rows.cpp's rows_in_lanes): a
// work-item's W neighbouring rows loaded as vectors and turned into lanes,
// each lane folding its row in order. The results must be those of a
// work-item a row in scalars (the same operations on the same values) bit
// for bit, and the host's: exact where the sums are (the values are
// multiples of 1/64 whose sums over a short row need few bits), within the
// rounding of each step elsewhere. NaN, infinities of both signs, -0,
// subnormals and the largest floats sit at positions that differ from row
// to row, so in some lanes of a vector and not in their neighbours; row
// counts leave the last vector part full (its rows taken one by one).
// The layout is a CPU's (device_rows.hpp), set on any device's tuning.
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning cpu_lanes(bool lanes) {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  auto t = detail::tuning_of(dev);
  cpu_row_layout(t, lanes);
  return t;
}

// y's one kernel under t, run: its host values, and whether it took rows in lanes.
template <class T>
std::vector<T> run_one(const Array<T>& y, const detail::DeviceTuning& t, bool* lanes = nullptr, int* width = nullptr) {
  const detail::Schedule s = schedule_with(y, t);
  REQUIRE(s.kernel_count() == 1);
  const auto& plan = s.steps[0].kernel.plan;
  REQUIRE(plan.kind == codegen::KernelKind::Reduce);
  if (lanes) *lanes = plan.reduce.row_lanes;
  if (width) *width = plan.width;
  reset_stats();
  (void)run_with(y, t);
  CHECK(stats().kernels_launched == 1);
  return y.to_host();
}

template <class T>
bool same_bits(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// make() (a new graph each call) under a CPU's layout with rows in lanes
// (which it must take where `expect_lanes`, in vectors of `expect_width`)
// and without: the same bits everywhere (but where `bitwise` is false); the
// lanes' values.
template <class Make>
auto lanes_and_scalars(const Make& make, bool expect_lanes, int expect_width = 0, bool bitwise = true) {
  bool took = false;
  int width = 0;
  const auto got = run_one(make(), cpu_lanes(true), &took, &width);
  CHECK(took == expect_lanes);
  if (took && expect_width) CHECK(width == expect_width);
  bool scalar_took = true;
  const auto ref = run_one(make(), cpu_lanes(false), &scalar_took);
  CHECK_FALSE(scalar_took);
  REQUIRE(got.size() == ref.size());
  for (std::size_t i = 0; i < got.size() && bitwise; ++i) {
    REQUIRE_EACH(same_bits(got[i], ref[i]), "output " << i << ": " << got[i] << " in lanes, " << ref[i] << " a work-item a row");
  }
  return got;
}

// Float rows of spread values with edge values planted row by row.
std::vector<float> planted(std::int64_t rows, std::int64_t m, std::uint64_t seed) {
  auto h = spread_values<float>(std::size_t(rows * m), seed);
  auto at = [&](std::int64_t r, std::int64_t k) -> float& { return h[std::size_t(r * m + k % m)]; };
  for (std::int64_t r = 0; r < rows; ++r) {
    if (r % 13 == 0) at(r, r * 7) = std::numeric_limits<float>::quiet_NaN();
    if (r % 17 == 5) at(r, r * 3) = INFINITY;
    if (r % 19 == 7) at(r, r * 5 + 1) = -INFINITY;  // rows 83, 140, ...: both infinities, NaN
    if (r % 11 == 3) at(r, r) = -0.0f;
    if (r % 7 == 2) at(r, r + 2) = 1e-41f;  // subnormal
    if (r % 23 == 11) at(r, 0) = FLT_MAX, at(r, m - 1) = FLT_MAX;  // (rows of 1 element: one)
  }
  return h;
}

}  // namespace

TEST_CASE("reductions over short rows in lanes: float32, the same bits as a work-item a row and the host's values", "[reduce][lanes]") {
  // Rows of 2 to 32 floats (at most two vectors of 16), 33 (more: not in
  // lanes); a GPU, which takes this form only where a test sets a CPU's
  // layout, builds fewer of these kernels (its compiler takes seconds over
  // the turning of the longest rows).
  const bool cpu = default_device().info().type == "CPU";
  std::vector<std::int64_t> lengths = {3, 17};
  if (cpu) lengths = {2, 3, 5, 8, 10, 15, 16, 17, 20, 31, 32, 33};
  for (const std::int64_t m : lengths)
    for (const std::int64_t rows : {16, 17, 100, 1001}) {
      if (!cpu && rows == 100) continue;
      INFO(rows << " rows of " << m);
      const auto h = planted(rows, m, 0x1a5e + std::uint64_t(m * 131 + rows));
      const auto x = from_host(h, {rows, m});
      // Rows of two whole vectors: compensated sums a work-item a row (in chains).
      const bool sums = m < 32, extremes = m <= 32;
      const auto sm = lanes_and_scalars([&] { return sum(x, 1); }, sums, 16);
      const auto me = lanes_and_scalars([&] { return mean(x, 1); }, sums, 16);
      const auto mx = lanes_and_scalars([&] { return max(x, 1); }, extremes, 16);
      const auto mn = lanes_and_scalars([&] { return min(x, 1); }, extremes, 16);
      // Indices: the first of the extreme values, or of the NaNs (NumPy's).
      const auto amx = lanes_and_scalars([&] { return argmax(x, 1); }, extremes, 16);
      const auto amn = lanes_and_scalars([&] { return argmin(x, 1); }, extremes, 16);
      for (std::int64_t r = 0; r < rows; ++r) {
        bool nan = false;
        long double total = 0;
        float emax = -INFINITY, emin = INFINITY;
        std::int64_t first_nan = -1, at_max = -1, at_min = -1;
        for (std::int64_t k = 0; k < m; ++k) {
          const float v = h[std::size_t(r * m + k)];
          if (std::isnan(v) && !nan) first_nan = k;
          nan = nan || std::isnan(v);
          total += v;
          if (!std::isnan(v) && (at_max < 0 || v > emax)) emax = v, at_max = k;
          if (!std::isnan(v) && (at_min < 0 || v < emin)) emin = v, at_min = k;
        }
        const std::size_t o = std::size_t(r);
        if (nan) {
          REQUIRE_EACH(std::isnan(sm[o]), "row " << r);
          REQUIRE_EACH(std::isnan(mx[o]), "row " << r);
          REQUIRE_EACH(std::isnan(mn[o]), "row " << r);
          REQUIRE_EACH(amx[o] == first_nan, "row " << r);
          REQUIRE_EACH(amn[o] == first_nan, "row " << r);
          continue;
        }
        REQUIRE_EACH(amx[o] == at_max, "row " << r);
        REQUIRE_EACH(amn[o] == at_min, "row " << r);
        REQUIRE_EACH(same_bits(mx[o], emax), "row " << r);
        REQUIRE_EACH(same_bits(mn[o], emin), "row " << r);
        if (std::isnan(double(total))) {  // both infinities
          REQUIRE_EACH(std::isnan(sm[o]), "row " << r);
        } else if (std::fabs(total) > FLT_MAX) {
          REQUIRE_EACH(sm[o] == float(total > 0 ? INFINITY : -INFINITY), "row " << r);
        } else {
          // The spread values' sums are exact in float; a subnormal adds
          // less than half an ulp of any other sum.
          REQUIRE_EACH(sm[o] == float(total), "row " << r);
          REQUIRE_EACH(std::fabs(me[o] - float(total) / float(m)) <= 2 * FLT_EPSILON * std::fabs(float(total) / float(m)), "row " << r);
        }
      }
    }
}

TEST_CASE("reductions over short rows in lanes: products, two operands, a scalar, exp, views", "[reduce][lanes]") {
  const bool cpu = default_device().info().type == "CPU";
  const std::int64_t rows = 1001;
  for (const std::int64_t m : {5, 12, 24}) {
    if (!cpu && m != 5) continue;
    INFO(rows << " rows of " << m);
    const auto s = spread_values<float>(std::size_t(rows * m), 0x90d + std::uint64_t(m));
    std::vector<float> near1(s.size()), other(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) near1[i] = 1.0f + s[i] / 131072.0f, other[i] = s[(i * 7919) % s.size()] / 64.0f;
    const auto a = from_host(near1, {rows, m});
    const auto b = from_host(other, {rows, m});
    // Rows longer than a vector a work-item folds in vectors (and chains):
    // in another order, rounded otherwise, so the host's values alone there.
    const bool order = m <= 16;
    const auto pr = lanes_and_scalars([&] { return prod(a, 1); }, true, 16, order);
    const auto two = lanes_and_scalars([&] { return sum(a * b + 2.0f, 1); }, true, 16, order);
    // (exp in vectors need not round as exp in scalars: the host's value alone.)
    const auto ex = lanes_and_scalars([&] { return sum(exp(b * 0.01f), 1); }, true, 16, false);
    for (std::int64_t r = 0; r < rows; ++r) {
      long double p = 1, t = 0, e = 0, size = 0;
      for (std::int64_t k = 0; k < m; ++k) {
        const std::size_t i = std::size_t(r * m + k);
        p *= near1[i];
        const float term = near1[i] * other[i] + 2.0f;
        t += term, size += std::fabs(term);
        e += std::exp((long double)(other[i] * 0.01f));
      }
      const std::size_t o = std::size_t(r);
      REQUIRE_EACH(std::fabs(pr[o] - p) <= (m + 1) * FLT_EPSILON * p, "row " << r);
      REQUIRE_EACH(std::fabs(two[o] - t) <= 4 * FLT_EPSILON * size, "row " << r);
      REQUIRE_EACH(std::fabs(ex[o] - e) <= 8 * FLT_EPSILON * e, "row " << r);
    }
    // Rows 5 on of a larger array: contiguous from an offset, in lanes; a
    // slice of the columns: each row strided, a work-item a row.
    const auto big = from_host(spread_values<float>(std::size_t((rows + 5) * (m + 3)), 0x51 + std::uint64_t(m)), {rows + 5, m + 3});
    const auto hb = big.to_host();
    const auto tail = reshape(slice(reshape(big, {(rows + 5) * (m + 3)}), 0, 5 * (m + 3), (rows + 5) * (m + 3)), {rows, m + 3});
    const auto st = lanes_and_scalars([&] { return sum(tail, 1); }, m + 3 <= 32);
    const auto sc = lanes_and_scalars([&] { return sum(slice(big, 1, 1, m + 1), 1); }, false);
    for (std::int64_t r = 0; r < rows; ++r) {
      long double t1 = 0, t2 = 0;
      for (std::int64_t k = 0; k < m + 3; ++k) t1 += hb[std::size_t((r + 5) * (m + 3) + k)];
      for (std::int64_t k = 1; k < m + 1; ++k) t2 += hb[std::size_t(r * (m + 3) + k)];
      REQUIRE_EACH(st[std::size_t(r)] == float(t1), "row " << r);
      REQUIRE_EACH(sc[std::size_t(r)] == float(t2), "row " << r);
    }
  }
}

TEST_CASE("reductions over short rows in lanes: integers and float64, 3-D arrays", "[reduce][lanes]") {
  const bool cpu = default_device().info().type == "CPU";
  const bool fp64 = default_device().info().fp64;
  for (const std::int64_t m : {3, 9, 16, 17}) {
    if (!cpu && m != 3) continue;
    for (const std::int64_t rows : {8, 37, 500}) {
      INFO(rows << " rows of " << m);
      const std::size_t N = std::size_t(rows * m);
      const auto hi = spread_values<std::int32_t>(N, 0x77 + std::uint64_t(m));
      const auto hl = spread_values<std::int64_t>(N, 0x78 + std::uint64_t(m));
      const auto xi = from_host(hi, {rows, m});
      const auto xl = from_host(hl, {rows, m}) * (std::int64_t(1) << 30);  // sums past 32 bits
      // int32 sums accumulate in int64 (vectors of 8), max and min in int32 (16).
      const bool whole8 = rows >= 8;
      const auto si = lanes_and_scalars([&] { return sum(xi, 1); }, whole8 && m <= 16, 8);
      const auto mxi = lanes_and_scalars([&] { return max(xi, 1); }, rows >= 16 && m <= 32, 16);
      const auto mni = lanes_and_scalars([&] { return min(xi, 1); }, rows >= 16 && m <= 32, 16);
      const auto sl = lanes_and_scalars([&] { return sum(xl, 1); }, whole8 && m <= 16, 8);
      const auto hlv = xl.to_host();
      // Indices over few distinct values (ties: the first stays), int32 in
      // vectors of 16, int64 of 8.
      std::vector<std::int32_t> hc(N);
      for (std::size_t i = 0; i < N; ++i) hc[i] = hi[i] / 30000;
      const auto xc = from_host(hc, {rows, m});
      const auto xcl = xc.astype<std::int64_t>();
      const auto ami = lanes_and_scalars([&] { return argmax(xc, 1); }, rows >= 16 && m <= 32, 16);
      const auto aml = lanes_and_scalars([&] { return argmin(xcl, 1); }, whole8 && m <= 16, 8);
      for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t ei = 0, el = 0, at_max = 0, at_min = 0;
        std::int32_t emx = hi[std::size_t(r * m)], emn = emx;
        for (std::int64_t k = 0; k < m; ++k) {
          const std::size_t i = std::size_t(r * m + k);
          ei += hi[i], el += hlv[i];
          emx = std::max(emx, hi[i]), emn = std::min(emn, hi[i]);
          if (hc[i] > hc[std::size_t(r * m + at_max)]) at_max = k;
          if (hc[i] < hc[std::size_t(r * m + at_min)]) at_min = k;
        }
        REQUIRE_EACH(si[std::size_t(r)] == ei, "row " << r);
        REQUIRE_EACH(sl[std::size_t(r)] == el, "row " << r);
        REQUIRE_EACH(mxi[std::size_t(r)] == emx, "row " << r);
        REQUIRE_EACH(mni[std::size_t(r)] == emn, "row " << r);
        REQUIRE_EACH(ami[std::size_t(r)] == at_max, "row " << r);
        REQUIRE_EACH(aml[std::size_t(r)] == at_min, "row " << r);
      }
      if (!fp64) continue;
      std::vector<double> hd(N);
      for (std::size_t i = 0; i < N; ++i) hd[i] = double(hi[i]) / 64.0;
      const auto xd = from_host(hd, {rows, m});
      // Compensated float64 sums over rows of two whole vectors of 8: a work-item a row.
      const auto sd = lanes_and_scalars([&] { return sum(xd, 1); }, whole8 && m < 16, 8);
      const auto mi = lanes_and_scalars([&] { return mean(xi, 1); }, whole8 && m < 16, 8);  // float64 means of int32
      const auto ad = lanes_and_scalars([&] { return argmax(xd, 1); }, whole8 && m <= 16, 8);
      for (std::int64_t r = 0; r < rows; ++r) {
        double e = 0;
        std::int64_t t = 0, at = 0;
        for (std::int64_t k = 0; k < m; ++k) {
          e += hd[std::size_t(r * m + k)], t += hi[std::size_t(r * m + k)];
          if (hd[std::size_t(r * m + k)] > hd[std::size_t(r * m + at)]) at = k;
        }
        REQUIRE_EACH(ad[std::size_t(r)] == at, "row " << r);
        REQUIRE_EACH(sd[std::size_t(r)] == e, "row " << r);
        REQUIRE_EACH(mi[std::size_t(r)] == double(t) / double(m), "row " << r);
      }
    }
  }
  // 3-D: the last axis, and the last two (rows of 3 x 5 = 15 neighbouring elements).
  const auto h = spread_values<float>(7 * 3 * 5 * 4, 0x3d);
  const auto x = from_host(h, {28, 3, 5});
  const auto last = lanes_and_scalars([&] { return sum(x, 2); }, true);
  const auto two = lanes_and_scalars([&] { return sum(x, std::vector<int>{1, 2}); }, true);
  for (std::int64_t r = 0; r < 28 * 3; ++r) {
    long double t = 0;
    for (std::int64_t k = 0; k < 5; ++k) t += h[std::size_t(r * 5 + k)];
    REQUIRE(last[std::size_t(r)] == float(t));
  }
  for (std::int64_t r = 0; r < 28; ++r) {
    long double t = 0;
    for (std::int64_t k = 0; k < 15; ++k) t += h[std::size_t(r * 15 + k)];
    REQUIRE(two[std::size_t(r)] == float(t));
  }
}

namespace {

// The moment kernel of `roots` (one kernel: var or std of x, with x's mean
// where asked) under t, run: whether it took rows in lanes, and its width.
bool run_moment(const std::vector<detail::NodePtr>& roots, const detail::DeviceTuning& t, int* width) {
  const detail::GraphLock lock(roots);
  detail::Schedule s = detail::make_schedule(roots, t);
  REQUIRE(s.kernel_count() == 1);
  const auto& plan = s.steps[0].kernel.plan;
  REQUIRE(plan.kind == codegen::KernelKind::Reduce);
  REQUIRE(plan.reduce.moment == roots.size());
  *width = plan.width;
  const bool lanes = plan.reduce.row_lanes;
  reset_stats();
  detail::run_schedule(*roots.front()->device, s);
  CHECK(stats().kernels_launched == 1);
  return lanes;
}

}  // namespace

TEST_CASE("var, std and mean over short rows in lanes: the same bits as a work-item a row, and the long double reference",
          "[reduce][lanes][moments]") {
  if (!default_device().info().fp64) {
    WARN("the device has no float64: var and std take two passes there");
    return;
  }
  // Rows of 2 to 32 floats in lanes (33: not); values around a centre far
  // from 0 with an outlier in some rows' first place (the shift each lane's
  // sums take), and edge values planted row by row (planted()): NaN, both
  // infinities (deviations inf - inf: NaN), -0, subnormals, FLT_MAX twice
  // (a variance past float32's range, a mean sum past it: inf).
  const bool cpu = default_device().info().type == "CPU";
  std::vector<std::int64_t> lengths = {3, 17};
  if (cpu) lengths = {2, 3, 5, 10, 16, 17, 31, 32, 33};
  for (const std::int64_t m : lengths)
    for (const std::int64_t rows : {16, 17, 1001}) {
      auto h = planted(rows, m, 0x3e7 + std::uint64_t(m * 31 + rows));
      const auto base = noisy(h.size(), 1e4f, 1.5f, std::uint64_t(m + rows));
      for (std::size_t i = 0; i < h.size(); ++i) h[i] += base[i];  // NaN, inf, FLT_MAX stay
      for (std::int64_t r = 0; r < rows; r += 5) h[std::size_t(r * m)] += r % 2 ? 3e4f : -5e4f;
      const auto x = from_host(h, {rows, m});
      for (const int ddof : {0, 1}) {
        INFO(rows << " rows of " << m << ", ddof " << ddof);
        std::vector<float> got[3], ref[3];
        for (const bool lanes : {true, false}) {
          auto v = var(x, 1, false, ddof);
          auto mu = mean(x, 1);
          auto sd = stddev(x, 1, false, ddof);
          int width = 0;
          const bool took = run_moment({v.node(), mu.node()}, cpu_lanes(lanes), &width);
          CHECK(took == (lanes && m <= 32));
          if (took) CHECK(width == 16);
          CHECK(run_moment({sd.node()}, cpu_lanes(lanes), &width) == took);
          (lanes ? got : ref)[0] = v.to_host(), (lanes ? got : ref)[1] = mu.to_host(), (lanes ? got : ref)[2] = sd.to_host();
        }
        for (int k = 0; k < 3; ++k)
          for (std::size_t i = 0; i < got[k].size(); ++i) {
            REQUIRE_EACH(same_bits(got[k][i], ref[k][i]), "output " << k << " of row " << i << ": " << got[k][i] << " in lanes, " << ref[k][i] << " a work-item a row");
          }
        for (std::int64_t r = 0; r < rows; ++r) {
          long double total = 0, ss = 0;
          for (std::int64_t k = 0; k < m; ++k) total += h[std::size_t(r * m + k)];
          const long double mean_ = total / m;
          for (std::int64_t k = 0; k < m; ++k) ss += (h[std::size_t(r * m + k)] - mean_) * (h[std::size_t(r * m + k)] - mean_);
          const long double want = ss / (m - ddof);
          const std::size_t o = std::size_t(r);
          // The mean: the float64 sum rounded to float32, over m in float32.
          const float want_mean = float(total) / float(m);
          if (std::isnan(double(want))) {  // NaN, or an infinity
            REQUIRE_EACH(std::isnan(got[0][o]), "row " << r);
            REQUIRE_EACH(std::isnan(got[2][o]), "row " << r);
          } else {
            // Float64 sums rounded once: within two ulps of float32 (past its range, inf).
            if (want > FLT_MAX) REQUIRE_EACH(got[0][o] == INFINITY, "row " << r);
            else REQUIRE_EACH(std::fabs(got[0][o] - want) <= 2 * FLT_EPSILON * want, "row " << r);
            REQUIRE_EACH(std::fabs(got[2][o] - std::sqrt(want)) <= 2 * FLT_EPSILON * std::sqrt(want), "row " << r);
          }
          if (std::isnan(want_mean)) REQUIRE_EACH(std::isnan(got[1][o]), "row " << r);
          else if (std::isinf(want_mean)) REQUIRE_EACH(got[1][o] == want_mean, "row " << r);
          else REQUIRE_EACH(std::fabs(got[1][o] - want_mean) <= FLT_EPSILON * std::fabs(want_mean), "row " << r);
        }
      }
    }
}

TEST_CASE("reductions over short rows in lanes: where the form is taken", "[reduce][lanes]") {
  auto lanes_of = [](const auto& y, bool on = true) {
    const detail::Schedule s = schedule_with(y, cpu_lanes(on));
    REQUIRE(s.kernel_count() == 1);
    return s.steps[0].kernel.plan.kind == codegen::KernelKind::Reduce && s.steps[0].kernel.plan.reduce.row_lanes;
  };
  auto ones = [](std::int64_t r, std::int64_t c) { return from_host(std::vector<float>(std::size_t(r * c), 1.0f), {r, c}); };
  CHECK(lanes_of(sum(ones(64, 10), 1)));
  CHECK_FALSE(lanes_of(sum(ones(64, 10), 1), false));  // FUSECL_ROW_LANES=0
  CHECK(lanes_of(max(ones(64, 32), 1)));
  CHECK(lanes_of(sum(ones(64, 31), 1)));
  CHECK_FALSE(lanes_of(sum(ones(64, 32), 1)));  // a compensated sum over two whole vectors: in chains
  CHECK(lanes_of(sum(ones(64, 16), 1)));
  CHECK_FALSE(lanes_of(sum(ones(64, 33), 1)));  // more than two vectors
  CHECK_FALSE(lanes_of(sum(ones(15, 10), 1)));  // fewer rows than a vector
  CHECK_FALSE(lanes_of(sum(ones(10, 64), 0)));  // down columns
  CHECK(lanes_of(argmax(ones(64, 10), 1)));
  CHECK(lanes_of(argmin(ones(64, 32), 1)));
  CHECK_FALSE(lanes_of(argmin(ones(64, 33), 1)));
  CHECK(lanes_of(var(ones(64, 10), 1)));  // a moment kernel in lanes (render_moment.cpp)
  CHECK(lanes_of(stddev(ones(64, 32), 1)));
  CHECK_FALSE(lanes_of(var(ones(64, 33), 1)));
  CHECK_FALSE(lanes_of(any(ones(64, 10) > 0.0f, 1)));
  const auto w = from_host(std::vector<float>(10, 2.0f), {10});
  CHECK_FALSE(lanes_of(sum(ones(64, 10) * w, 1)));  // an operand broadcast along the rows
  CHECK(lanes_of(sum(ones(64, 10) * 2.0f, 1)));     // a scalar is uniform
}
