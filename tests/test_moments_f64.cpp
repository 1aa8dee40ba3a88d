// var and std of float64 and integer arrays in one pass (moment kernels of a
// float64 body, codegen/render_moment_chan.cpp): blocks of at most
// kMomentChanBlock values a lane around their first value, met in Chan's
// update, means relative to the output's first value. Checked against
// NumPy's two passes in long double on the device's layout and a GPU's
// (groups of 256, double2 loads, several short rows a group, split rows
// finished by the last group or a second kernel), with outliers where the
// shifts are taken, data far from zero, views that start mid-vector and
// strided ones, integers, the NaN / inf / overflow / empty cases NumPy has;
// and the kernel counts.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/f64_moments.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <random>

using namespace fusecl;
using namespace fusecl::test;

namespace {

bool device_has_fp64() { return default_device().info().fp64; }

// Restores the devices' default finish of split reductions when a test ends.
struct SecondKernel {
  explicit SecondKernel(bool on) { detail::set_reduce_two_kernels(on); }
  ~SecondKernel() { detail::set_reduce_two_kernels(false); }
  SecondKernel(const SecondKernel&) = delete;
  SecondKernel& operator=(const SecondKernel&) = delete;
};

// A GPU's layout on any device: groups of up to 256, double2 loads, 132
// SMs' worth of groups, several short rows a group.
detail::DeviceTuning gpu_tuning(const Array<double>& v, codegen::SplitFinish finish) {
  auto t = detail::tuning_of(*v.node()->device);
  h200_moment_layout(t);
  t.split_finish = finish;
  return t;
}

// The kernels v takes on the default device: one moment kernel (a Catch2
// REQUIRE), two where its rows are split over groups and a second kernel
// finishes them (a GPU's few long rows).
template <class T>
std::uint64_t moment_kernels(const Array<T>& v) {
  const auto s = schedule_with(v, detail::tuning_of(*v.node()->device));
  REQUIRE(s.kernel_count() == 1);
  const auto& rs = s.steps[0].kernel.plan.reduce;
  REQUIRE(rs.moment != 0);
  return rs.two_stage && rs.finish == codegen::SplitFinish::SecondKernel ? 2 : 1;
}

}  // namespace

TEST_CASE("float64 var and std in one pass: kernel counts", "[reduce][moments][float64]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64");
    return;
  }
  const auto h = rows_of(1, 1 << 20, 3.0, 2.0, false, 1);
  const auto x = from_host(h);
  for (bool two_kernels : {false, true}) {
    INFO((two_kernels ? "split reductions finished by a second kernel" : "the device's finish"));
    SecondKernel finish(two_kernels);
    reset_stats();
    auto m = mean(x);
    auto s = stddev(x);
    eval(m, s);
    const auto whole = stats().kernels_launched;  // one, two where the partials need a second
    CHECK(whole <= 2);
    if (two_kernels) CHECK(whole == 2);
    reset_stats();
    (void)var(x).to_host();
    CHECK(stats().kernels_launched == whole);
  }
  // Along rows of every length the tests name, and a middle axis.
  for (const std::int64_t len : {1, 3, 17, 1000, 4099}) {
    INFO("rows of " << len);
    const auto y = from_host(rows_of(64, len, 1.0, 1.0, false, 2), {64, len});
    const auto want = moment_kernels(var(y, 1));  // 64 rows of 4099: split on a GPU
    reset_stats();
    auto m = mean(y, 1, true);
    auto v = var(y, 1, true);
    eval(m, v);
    CHECK(stats().kernels_launched == want);
    reset_stats();
    (void)stddev(y, 1).to_host();
    CHECK(stats().kernels_launched == want);
  }
  const auto z = from_host(rows_of(8, 64 * 5, 1.0, 1.0, false, 3), {8, 64, 5});
  reset_stats();
  (void)var(z, 1).to_host();
  const auto middle = stats().kernels_launched;
  reset_stats();
  (void)var(z.astype<float>(), 1).to_host();
  CHECK(middle <= stats().kernels_launched);  // as float32's
  // Integers: var is float64, of the values cast.
  const auto i = from_host(std::vector<std::int32_t>(4099 * 16, 7), {16, 4099});
  const auto want_i = moment_kernels(var(i, 1));
  reset_stats();
  (void)var(i, 1).to_host();
  CHECK(stats().kernels_launched == want_i);
  // A GPU's layout: a row's work-items meet through warp shuffles (the GPU
  // suite runs them; a device that refuses the PTX builds the plan without).
  // (Rows of up to 64 take lanes: test_lane_moments_f64.cpp.)
  for (const std::int64_t len : {128, 1000, 5000}) {
    INFO("a GPU's rows of " << len);
    const auto v = var(from_host(rows_of(64, len, 1.0, 1.0, false, 5), {64, len}), 1);
    const auto planned = schedule_with(v, gpu_tuning(v, codegen::SplitFinish::SecondKernel));
    REQUIRE(planned.kernel_count() == 1);
    const auto& plan = planned.steps[0].kernel.plan;
    CHECK(plan.reduce.moment == 1);
    CHECK(int(plan.reduce.row_warp) == 32);
    const std::string text = codegen::render(plan, "k");
    CHECK(text.find("fcl_chan_merge(&n_, &m_, &q_, n2, m2, q2)") != std::string::npos);
    CHECK(text.find("shq[lid + s_]") == std::string::npos);  // no tree in local memory
  }
  // Down the columns of a wide array: one pass in vectors (two kernels
  // where the columns are split over groups).
  const auto c = from_host(rows_of(512, 512, 1.0, 1.0, false, 4), {512, 512});
  reset_stats();
  auto cm = mean(c, 0);
  auto cv = var(c, 0);
  eval(cm, cv);
  CHECK(stats().kernels_launched <= 2);
  const auto plan = schedule_with(var(c, 0), gpu_tuning(cv, codegen::SplitFinish::SecondKernel)).steps.at(0).kernel.plan;
  CHECK(plan.reduce.moment == 1);
  CHECK(plan.reduce.strategy == codegen::ReduceStrategy::ColumnBlock);
}

TEST_CASE("float64 var and std in one pass down columns, against NumPy's two passes in long double", "[reduce][moments][float64][columns]") {
  if (!device_has_fp64()) return;
  // Columns of 1 to 5000 rows: one block a work-item or many, one group
  // down them or several (the second kernel's partials); 8 and 1030 columns
  // (a whole number of any vector width).
  for (const std::int64_t rows : {1, 7, 100, 1000, 5000})
  for (const std::int64_t cols : {8, 1032})
  for (const bool outliers : {false, true}) {
    const auto h = rows_of(rows, cols, outliers ? 0.0 : -4e9, 2.0, false, std::uint64_t(rows * cols));
    std::vector<double> hx = h;
    if (outliers)  // far out in the first rows (the shifts) and every 97th
      for (std::int64_t r = 0; r < rows; ++r)
        if (r < 3 || r % 97 == 0)
          for (std::int64_t c = 0; c < cols; ++c) hx[std::size_t(r * cols + c)] += (c % 2 ? 4e5 : -3e5);
    const auto x = from_host(hx, {rows, cols});
    std::vector<double> colv(std::size_t(rows * cols));  // transposed: a column a row
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) colv[std::size_t(c * rows + r)] = hx[std::size_t(r * cols + c)];
    for (const int ddof : {0, 1}) {
      const RowMoments want = per_row(colv, rows, ddof);
      INFO(rows << " x " << cols << (outliers ? ", outliers" : ", around -4e9") << ", ddof " << ddof);
      // An outlier that is a block's shift (a work-item's first row) costs
      // that block's sums up to 2 log2(33) bits; the tests' worst is 40 ulps.
      const double ulps = outliers ? 64 : 16;
      const auto check = [&](const std::vector<double>& gv, const std::vector<double>* gm) {
        REQUIRE(gv.size() == std::size_t(cols));
        for (std::int64_t c = 0; c < cols; ++c) {
          INFO("column " << c);
          CHECK(close(gv[std::size_t(c)], want.var[std::size_t(c)], ulps));
          if (gm) CHECK(std::fabs(static_cast<long double>((*gm)[std::size_t(c)]) - want.mean[std::size_t(c)]) <= 4 * DBL_EPSILON * want.abs_mean[std::size_t(c)]);
        }
      };
      for (const bool two_kernels : {false, true}) {
        SecondKernel finish(two_kernels);
        auto v = var(x, 0, false, ddof);
        auto m = mean(x, 0);
        eval(v, m);
        const auto gm = m.to_host();
        check(v.to_host(), &gm);
      }
      auto v = var(x, 0, false, ddof);
      run_with(v, gpu_tuning(v, codegen::SplitFinish::SecondKernel));
      check(v.to_host(), nullptr);
      auto s = stddev(x, 0, false, ddof);
      run_with(s, gpu_tuning(s, codegen::SplitFinish::SecondKernel));
      const auto gs = s.to_host();
      for (std::int64_t c = 0; c < cols; ++c) CHECK(close(gs[std::size_t(c)], std::sqrt(want.var[std::size_t(c)]), ulps));
    }
  }
  SECTION("NaN, inf and squares past DBL_MAX in a column") {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> h(64 * 8, 1.0);
    h[5 * 8 + 1] = std::numeric_limits<double>::quiet_NaN();
    h[9 * 8 + 2] = inf;
    for (std::int64_t r = 0; r < 64; ++r) h[std::size_t(r * 8 + 3)] = r % 2 ? 1e200 : -1e200;
    const auto x = from_host(h, {64, 8});
    auto v = var(x, 0);
    auto m = mean(x, 0);
    eval(v, m);
    const auto gv = v.to_host(), gm = m.to_host();
    CHECK(std::isnan(gv[1]));
    CHECK(std::isnan(gm[1]));
    CHECK(std::isnan(gv[2]));
    CHECK(gm[2] == inf);
    CHECK(gv[3] == inf);
    CHECK(gm[3] == 0);
    CHECK(gv[0] == 0);
    CHECK(gm[0] == 1);
  }
}

TEST_CASE("float64 var and std in one pass against NumPy's two passes in long double", "[reduce][moments][float64]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64");
    return;
  }
  // A work-item a row (up to 16), a group a row with and without a vector
  // tail, several blocks a lane, and whole arrays split over groups.
  for (const std::int64_t len : {1, 2, 3, 16, 17, 63, 64, 65, 1000, 4099, 20000, 100003, 1 << 20})
  for (const double centre : {0.0, 1e8, -3e12})
  for (const bool outliers : {false, true}) {
    const std::int64_t rows = len > 5000 ? 2 : 7;
    const auto h = rows_of(rows, len, centre, 1.5, outliers, std::uint64_t(len) * 3 + (outliers ? 1 : 0));
    const auto x = from_host(h, {rows, len});
    for (const int ddof : {0, 1}) {
      const RowMoments want = per_row(h, len, ddof);
      const auto check_rows = [&](const std::vector<double>& gv, const std::vector<double>& gs, const std::vector<double>* gm) {
        REQUIRE(gv.size() == want.var.size());
        for (std::size_t r = 0; r < gv.size(); ++r) {
          INFO("row " << r << ": var " << gv[r] << ", want " << double(want.var[r]));
          CHECK(close(gv[r], want.var[r], 16));
          CHECK(close(gs[r], std::sqrt(want.var[r]), 16));
          // The mean errs by a few ulps of the values' magnitude (NumPy's
          // pairwise sum too), which a mean near 0 amid large values is not.
          if (gm) CHECK(std::fabs(static_cast<long double>((*gm)[r]) - want.mean[r]) <= 4 * DBL_EPSILON * want.abs_mean[r]);
        }
      };
      for (const bool two_kernels : {false, true}) {
        INFO("rows of " << len << " around " << centre << (outliers ? ", outliers" : "") << ", ddof " << ddof
                        << (two_kernels ? ", second kernel" : ""));
        SecondKernel finish(two_kernels);
        auto v = var(x, 1, false, ddof);
        auto s = stddev(x, 1, false, ddof);
        auto m = mean(x, 1);
        eval(v, s, m);
        const auto gm = m.to_host();
        check_rows(v.to_host(), s.to_host(), &gm);
      }
      for (const auto finish : {codegen::SplitFinish::LastGroup, codegen::SplitFinish::SecondKernel}) {
        if (finish == codegen::SplitFinish::LastGroup && detail::tuning_of(*x.node()->device).split_finish != finish) continue;
        INFO("a GPU's layout, rows of " << len << " around " << centre << (outliers ? ", outliers" : "") << ", ddof " << ddof);
        auto v = var(x, 1, false, ddof);
        auto s = stddev(x, 1, false, ddof);
        const auto sv = run_with(v, gpu_tuning(v, finish));
        CHECK(sv.kernel_count() <= 2);
        run_with(s, gpu_tuning(s, finish));
        check_rows(v.to_host(), s.to_host(), nullptr);
      }
    }
  }
}

TEST_CASE("float64 var in one pass: views, a middle axis, integers", "[reduce][moments][float64]") {
  if (!device_has_fp64()) return;
  const std::int64_t rows = 9, cols = 1031;
  const auto h = rows_of(rows, cols, 5e6, 3.0, true, 11);
  const auto x = from_host(h, {rows, cols});
  SECTION("rows that start mid-vector (a slice from column 1) and every other column") {
    for (const std::int64_t step : {1, 2}) {
      INFO("step " << step);
      const auto y = slice(x, 1, 1, cols, step);
      std::vector<double> hv;
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 1; c < cols; c += step) hv.push_back(h[std::size_t(r * cols + c)]);
      const std::int64_t len = std::int64_t(hv.size()) / rows;
      const RowMoments want = per_row(hv, len, 0);
      const auto want_kernels = moment_kernels(var(y, 1));
      reset_stats();
      const auto got = var(y, 1).to_host();
      CHECK(stats().kernels_launched == want_kernels);
      for (std::size_t r = 0; r < got.size(); ++r) CHECK(close(got[r], want.var[r], 16));
    }
  }
  SECTION("a whole array from its second element: the values past the last whole vector in the vector ending the range") {
    const auto flat = reshape(x, {rows * cols});
    for (const std::int64_t start : {1, 3}) {
      INFO("from element " << start);
      const auto y = slice(flat, 0, start, rows * cols);
      const std::vector<double> hv(h.begin() + start, h.end());
      const auto want = per_row(hv, std::int64_t(hv.size()), 0);
      CHECK(close(var(y).to_host()[0], want.var[0], 16));
      const auto v = var(y);
      const auto planned = schedule_with(v, gpu_tuning(v, codegen::SplitFinish::SecondKernel));
      CHECK(codegen::render(planned.steps.at(0).kernel.plan, "k").find("if (k_.s1)") != std::string::npos);
      run_with(v, gpu_tuning(v, codegen::SplitFinish::SecondKernel));
      CHECK(close(v.to_host()[0], want.var[0], 16));
      // Rows from their second element: a group's range starts mid-vector.
      const auto r = slice(reshape(flat, {rows, cols}), 1, start, cols);
      const auto vr = var(r, 1);
      run_with(vr, gpu_tuning(vr, codegen::SplitFinish::SecondKernel));
      const auto gr = vr.to_host();
      for (std::int64_t k = 0; k < rows; ++k) {
        const std::vector<double> row(h.begin() + k * cols + start, h.begin() + (k + 1) * cols);
        CHECK(close(gr[std::size_t(k)], per_row(row, cols - start, 0).var[0], 16));
      }
    }
  }
  SECTION("a middle axis") {
    const auto y = reshape(x, {rows, 1031, 1});
    const auto z = from_host(rows_of(6, 40 * 3, -2e9, 1.0, true, 12), {6, 40, 3});
    const auto hz = z.to_host();
    const auto got = var(z, 1).to_host();
    for (std::int64_t a = 0; a < 6; ++a)
      for (std::int64_t c = 0; c < 3; ++c) {
        std::vector<double> col;
        for (std::int64_t b = 0; b < 40; ++b) col.push_back(hz[std::size_t((a * 40 + b) * 3 + c)]);
        CHECK(close(got[std::size_t(a * 3 + c)], per_row(col, 40, 0).var[0], 16));
      }
    CHECK(close(var(y, 1).to_host()[0], per_row(h, cols, 0).var[0], 16));
  }
  SECTION("integers, exactly representable in float64, near the type's extremes") {
    std::mt19937_64 rng(13);
    std::vector<std::int64_t> hi(std::size_t(rows * cols));
    for (auto& v : hi) v = std::int64_t(1) << 50 | std::int64_t(rng() % 1000);
    std::vector<std::int32_t> h32(hi.size());
    for (std::size_t k = 0; k < h32.size(); ++k) h32[k] = std::int32_t(k % 3 ? 2147483000 + std::int64_t(rng() % 600) : -2147483000);
    const auto w64 = per_row(hi, cols, 1), w32 = per_row(h32, cols, 0);
    const auto g64 = var(from_host(hi, {rows, cols}), 1, false, 1).to_host();
    const auto g32 = var(from_host(h32, {rows, cols}), 1).to_host();
    for (std::int64_t r = 0; r < rows; ++r) {
      CHECK(close(g64[std::size_t(r)], w64.var[std::size_t(r)], 16));
      CHECK(close(g32[std::size_t(r)], w32.var[std::size_t(r)], 16));
    }
  }
}

TEST_CASE("float64 var in one pass: NaN, inf, overflow, empty and one value as NumPy has them", "[reduce][moments][float64]") {
  if (!device_has_fp64()) return;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* what;
    std::vector<double> xs;
    double var, mean;  // NumPy's, ddof 0
  };
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<Case> cases = {
      {"NaN", {1, nan, 3}, nan, nan},
      {"inf", {1, inf, 3}, nan, inf},
      {"-inf first", {-inf, 1, 3}, nan, -inf},
      {"inf and -inf", {inf, -inf}, nan, nan},
      {"squares past DBL_MAX", {1e200, -1e200, 1e200, -1e200}, inf, 0},
      {"denormals", {tiny, -tiny, tiny, -tiny}, 0, 0},
      {"one value", {2.5}, 0, 2.5},
      {"equal values", {7, 7, 7, 7, 7}, 0, 7},
  };
  // Each case alone (a work-item a row or a group), and inside a long row
  // (a group's blocks, a split row) with ordinary values around it.
  for (const auto& c : cases) {
    for (const std::int64_t pad : {std::int64_t(0), std::int64_t(5000), std::int64_t(1) << 18}) {
      INFO(c.what << ", " << pad << " values after it");
      std::vector<double> h = c.xs;
      const bool ordinary = std::isfinite(c.var) && std::isfinite(c.mean) && c.var == 0 && pad > 0;
      if (ordinary) continue;  // the plain cases are the reference test's
      for (std::int64_t k = 0; k < pad; ++k) h.push_back(double(k % 5));
      const auto x = from_host(h);
      auto v = var(x);
      auto m = mean(x);
      eval(v, m);
      const double gv = v.to_host()[0], gm = m.to_host()[0];
      if (pad == 0) {
        CHECK((std::isnan(c.var) ? std::isnan(gv) : gv == c.var));
        CHECK((std::isnan(c.mean) ? std::isnan(gm) : gm == c.mean));
      } else {
        // The padding does not change a NaN, an inf, or an overflow.
        if (std::isnan(c.var)) CHECK(std::isnan(gv));
        if (std::isinf(c.var)) CHECK(gv == inf);
        if (std::isnan(c.mean)) CHECK(std::isnan(gm));
        if (std::isinf(c.mean)) CHECK(gm == c.mean);
      }
    }
  }
  SECTION("empty rows: NaN; one value with ddof 1: NaN") {
    const auto e = from_host(std::vector<double>{}, {3, 0});
    auto v = var(e, 1);
    auto m = mean(e, 1);
    eval(v, m);
    for (double g : v.to_host()) CHECK(std::isnan(g));
    for (double g : m.to_host()) CHECK(std::isnan(g));
    const auto one = from_host(std::vector<double>{1, 2, 3}, {3, 1});
    for (double g : var(one, 1, false, 1).to_host()) CHECK(std::isnan(g));
  }
}
