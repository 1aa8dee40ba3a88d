// var and std of float32 in one pass (moment kernels, codegen/render_moment.cpp):
// shifted sums per work-group (per block of a work-item's range for a work-item per output) in float64,
// the groups' results combined as sums around the first's mean, the mean a second
// output where the same evaluation asks for it. Checked against the long
// double two-pass reference and against the two-pass kernels on the same
// device (set_two_pass_moments), on every strategy a moment kernel has, with
// both finishes of split reductions, edge values and different values in
// every lane; and the kernel counts.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// Restores the devices' defaults when a test ends, passed or not.
struct Modes {
  Modes(bool two_pass, bool two_kernels, int vector_bytes = 0) {
    detail::set_two_pass_moments(two_pass);
    detail::set_reduce_two_kernels(two_kernels);
    detail::set_vector_bytes(vector_bytes);
  }
  ~Modes() {
    detail::set_two_pass_moments(false);
    detail::set_reduce_two_kernels(false);
    detail::set_vector_bytes(0);
  }
  Modes(const Modes&) = delete;
  Modes& operator=(const Modes&) = delete;
};

bool device_has_fp64() { return default_device().info().fp64; }

// NumPy's var: two passes, here in long double; NaN where n <= ddof as NumPy
// gives (0/0) or inf (positive / 0).
long double ref_var(const std::vector<float>& xs, int ddof) {
  long double mean = 0, ss = 0;
  for (float x : xs) mean += x;
  mean /= static_cast<long double>(xs.size());
  for (float x : xs) ss += (x - mean) * (x - mean);
  return ss / static_cast<long double>(std::max<long double>(0, static_cast<long double>(xs.size()) - ddof));
}

// f of each row of `len` values of h (one result per row).
template <class F>
std::vector<long double> per_row(const std::vector<float>& h, std::int64_t len, F f) {
  std::vector<long double> out;
  for (std::size_t r = 0; r < h.size() / std::size_t(len); ++r)
    out.push_back(f(std::vector<float>(h.begin() + std::ptrdiff_t(r * std::size_t(len)), h.begin() + std::ptrdiff_t((r + 1) * std::size_t(len)))));
  return out;
}

// Equal to `want` within `ulps` of float32 relative, or both NaN, or the same infinity.
void check_close(float got, long double want, double ulps) {
  INFO("got " << got << ", want " << double(want));
  const float w = float(want);
  if (std::isnan(w)) {
    CHECK(std::isnan(got));
  } else if (std::isinf(w)) {
    CHECK(got == w);
  } else {
    CHECK(std::fabs(double(got) - double(want)) <= ulps * FLT_EPSILON * std::fabs(double(want)) + FLT_MIN);
  }
}

}  // namespace

TEST_CASE("var and std in one pass: kernel counts", "[reduce][moments]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64: var and std take two passes there");
    return;
  }
  const auto h = noisy(std::size_t(1) << 20, 3.0f, 2.0f, 1);
  const auto x = from_host(h);
  for (bool two_kernels : {false, true}) {
    INFO((two_kernels ? "split reductions finished by a second kernel" : "the device's finish"));
    Modes modes(false, two_kernels);
    reset_stats();
    auto m = mean(x);
    auto s = stddev(x);
    eval(m, s);
    // One pass computes both: one kernel, two where the partials need a second.
    const auto one_pass = stats().kernels_launched;
    CHECK(one_pass <= 2);
    if (two_kernels) CHECK(one_pass == 2);
    reset_stats();
    (void)var(x).to_host();
    CHECK(stats().kernels_launched == one_pass);
    {
      Modes two_pass(true, two_kernels);
      reset_stats();
      auto m2 = mean(x);
      auto s2 = stddev(x);
      eval(m2, s2);
      CHECK(stats().kernels_launched > one_pass);  // the mean, then the squared deviations
      check_close(m.to_host()[0], m2.to_host()[0], 1);
      check_close(s.to_host()[0], s2.to_host()[0], 16);
    }
  }
  SECTION("a layer norm over rows too long for a row kernel: the mean and var in one kernel, then the expression") {
    // A row twice the device's local memory, or past what a GPU holds in
    // registers (longest_row), in whole vectors: too long for a row kernel.
    const std::int64_t cols = std::max<std::int64_t>({1 << 14, std::int64_t(default_device().info().local_mem_bytes / 2),
                                                      detail::longest_row(detail::device_tuning(), sizeof(float)) / 4 * 4 + 4});
    const auto hx = noisy(std::size_t(4 * cols), 1.0f, 1.0f, 2);
    const auto y = from_host(hx, {4, cols});
    // The moment kernel is split over groups where 4 rows do not fill the
    // device: one kernel or two, as a split var of the whole array takes.
    reset_stats();
    (void)var(x).to_host();
    const auto moment_kernels = stats().kernels_launched;
    reset_stats();
    const auto ln = ((y - mean(y, 1, true)) / sqrt(var(y, 1, true) + 1e-5f)).to_host();
    CHECK(stats().kernels_launched == moment_kernels + 1);
    for (std::int64_t r = 0; r < 4; ++r) {
      const std::vector<float> row(hx.begin() + r * cols, hx.begin() + (r + 1) * cols);
      long double mu = 0;
      for (float v : row) mu += v;
      mu /= cols;
      const long double sd = std::sqrt(ref_var(row, 0) + 1e-5L);
      // x - mean rounds at the scale of |x| and |mean|, however small the difference.
      for (std::int64_t j = 0; j < cols; j += 997) {
        const long double xj = row[std::size_t(j)], want = (xj - mu) / sd;
        CHECK_EACH(std::fabs(double(ln[std::size_t(r * cols + j)]) - double(want)) <=
                       8 * FLT_EPSILON * double((std::fabs(xj) + std::fabs(mu)) / sd + std::fabs(want)),
                   "row " << r << ", element " << j);
      }
    }
  }
}

TEST_CASE("var and std in one pass against the long double reference", "[reduce][moments]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64: var and std take two passes there");
    return;
  }
  // Row lengths: a work-item per row (up to 16), a group per row with and
  // without a vector tail (on a GPU groups of one warp, two and eight),
  // and whole arrays split over groups.
  for (const std::int64_t len : {1, 3, 16, 17, 1000, 1500, 4099, 100003, 1 << 20}) {
    for (const float centre : {0.0f, 1e4f, -3e6f})
    for (const bool outliers : {false, true}) {
      const std::int64_t rows = len > 5000 ? 1 : 7;
      auto h = noisy(std::size_t(rows * len), centre, 1.5f, std::uint64_t(len) + std::uint64_t(centre));
      // Outliers first in each row: the values vector kernels shift their
      // lanes' sums by (render_moment.cpp), the worst shift there is.
      if (outliers)
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t i = 0; i < std::min<std::int64_t>(len, 64); ++i) h[std::size_t(r * len + i)] += i % 2 ? 3e4f : -5e4f;
      const auto x = from_host(h, {rows, len});
      // The device's vector width, and 8 bytes: float2 loads and double2
      // accumulators, what GPUs get (DeviceTuning::moment_width).
      for (const int vector_bytes : {0, 8})
      for (bool two_kernels : {false, true}) {
        Modes modes(false, two_kernels, vector_bytes);
        for (int ddof : {0, 1}) {
          INFO("rows of " << len << " around " << centre << (outliers ? ", outliers first" : "") << ", ddof " << ddof
                          << (two_kernels ? ", second kernel" : "")
                          << (vector_bytes ? ", 8-byte vectors" : ""));
          auto v = var(x, 1, false, ddof);
          auto s = stddev(x, 1, true, ddof);
          auto m = mean(x, 1);
          eval(v, s, m);
          const auto gv = v.to_host(), gs = s.to_host(), gm = m.to_host();
          const auto want = per_row(h, len, [&](const std::vector<float>& r) { return ref_var(r, ddof); });
          const auto want_mean = per_row(h, len, [](const std::vector<float>& r) {
            long double a = 0;
            for (float f : r) a += f;
            return a / static_cast<long double>(r.size());
          });
          REQUIRE(gv.size() == want.size());
          for (std::size_t i = 0; i < gv.size(); ++i) {
            // Float64 throughout, rounded once: an ulp or two, where the
            // float32 two-pass kernels lose digits to a mean far from 0.
            check_close(gv[i], want[i], 2);
            check_close(gs[i], std::sqrt(want[i]), 2);
            check_close(gm[i], want_mean[i], 2);
          }
        }
      }
    }
  }
}

TEST_CASE("var and std in one pass: edge values as NumPy has them", "[reduce][moments]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64: var and std take two passes there");
    return;
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    const char* what;
    std::vector<float> values;
    float var, mean;
  };
  const float big = 3e38f, tiny = 1e-40f;  // tiny: a denormal
  const std::vector<Case> cases = {
      {"an inf: deviations inf - inf", {1, 2, inf, 4, 5, 6, 7, 8, 9}, nan, inf},
      {"-inf and inf", {-inf, 1, 2, inf}, nan, nan},
      {"a NaN", {1, 2, 3, nan, 5, 6, 7, 8, 9, 10, 11}, nan, nan},
      {"-0 and 0", {-0.0f, 0.0f, -0.0f, 0.0f, -0.0f}, 0.0f, 0.0f},
      {"one value", {42.0f}, 0.0f, 42.0f},
      {"extremes: the variance overflows float32", {big, -big, big, -big, big, -big, big, -big}, inf, 0.0f},
      {"denormals", {tiny, -tiny, tiny, -tiny}, float(double(tiny) * double(tiny)), 0.0f},
  };
  for (bool two_kernels : {false, true}) {
    Modes modes(false, two_kernels);
    for (const auto& c : cases) {
      for (const std::size_t copies : {std::size_t(1), std::size_t(40000)}) {  // alone; and split, the value in many lanes
        INFO(c.what << " x" << copies << (two_kernels ? ", second kernel" : ""));
        std::vector<float> h;
        for (std::size_t k = 0; k < copies; ++k) h.insert(h.end(), c.values.begin(), c.values.end());
        const auto x = from_host(h);
        auto v = var(x);
        auto m = mean(x);
        eval(v, m);
        const float gv = v.to_host()[0], gm = m.to_host()[0];
        if (std::isnan(c.var)) CHECK(std::isnan(gv));
        else check_close(gv, c.var, 2);
        if (std::isnan(c.mean)) CHECK(std::isnan(gm));
        else if (c.mean == 0) CHECK(std::fabs(gm) <= 1e-30f);
        else check_close(gm, c.mean, 1);
      }
    }
  }
  SECTION("empty and n <= ddof: NaN and inf, as NumPy") {
    const auto e = from_host(std::vector<float>{}, {0});
    CHECK(std::isnan(var(e).to_host()[0]));
    CHECK(std::isnan(mean(e).to_host()[0]));
    const auto one = from_host(std::vector<float>{3.0f, 5.0f}, {2, 1});
    for (float v : var(one, 1, false, 1).to_host()) CHECK(std::isnan(v));  // 0 / 0
    // ddof past n divides by max(n - ddof, 0): inf, or NaN where every deviation is 0.
    const auto two = from_host(std::vector<float>{3.0f, 5.0f, 4.0f, 4.0f}, {2, 2});
    for (int ddof : {2, 3, 7}) {
      INFO("ddof " << ddof);
      const auto v = var(two, 1, false, ddof).to_host(), s = stddev(two, 1, false, ddof).to_host();
      CHECK(std::isinf(v[0]));
      CHECK(v[0] > 0);
      CHECK(std::isnan(v[1]));
      CHECK(std::isinf(s[0]));
      CHECK(std::isnan(s[1]));
      CHECK(std::isinf(var(two, {0, 1}, false, ddof + 2).to_host()[0]));
    }
  }
}

TEST_CASE("var over a leading axis is correct, in one pass or two", "[reduce][moments]") {
  // A column reduction reads across rows (ColumnBlock): in vectors of
  // neighbouring columns the moment kernel takes it (pair kernels on), else
  // the two-pass kernels do, with the same answers.
  const std::int64_t rows = 3000, cols = 64;
  const auto h = noisy(std::size_t(rows * cols), 2.0f, 1.0f, 7);
  const auto x = from_host(h, {rows, cols});
  const auto got = var(x, 0).to_host();
  for (std::int64_t c = 0; c < cols; ++c) {
    std::vector<float> col;
    for (std::int64_t r = 0; r < rows; ++r) col.push_back(h[std::size_t(r * cols + c)]);
    check_close(got[std::size_t(c)], ref_var(col, 0), 16);
  }
}

TEST_CASE("var over a leading axis of many columns: one pass in vectors, or without pair kernels a CPU's two", "[reduce][moments][columns]") {
  // 512 columns: more than a work-item per column's threshold on both
  // layouts below. With pair kernels (the default) both read rows in vectors
  // of neighbouring columns in one moment kernel (16 floats a CPU's, 2 a
  // GPU's: its float64 sums). Without them a CPU's one pass would walk each
  // column alone, so it takes two passes (the mean, then the mean of squared
  // deviations) in vectors; a GPU keeps its one pass a work-item per column.
  const std::int64_t rows = 300, cols = 512;
  const auto h = noisy(std::size_t(rows * cols), 2.0f, 1.0f, 9);
  const auto x = from_host(h, {rows, cols});
  const auto v = var(x, 0, false, 1);
  const auto sd = stddev(x, 0, false, 0);
  auto t = detail::tuning_of(*v.node()->device);
  t.one_pass_moments = true;
  t.column_blocks = true;
  t.target_groups = 4;
  struct Layout {
    const char* name;
    int items_cap, vector_bytes, across, down, moment_width;
    bool pairs, one_pass, vectors;
  };
  for (const Layout& l : {Layout{"CPU", 1, 64, 1, 1, 16, true, true, true}, Layout{"GPU", 1024, 16, 32, 8, 2, true, true, true},
                          Layout{"CPU, pair kernels off", 1, 64, 1, 1, 16, false, false, true},
                          Layout{"GPU, pair kernels off", 1024, 16, 32, 8, 2, false, true, false}}) {
    INFO(l.name);
    t.row_items_cap = l.items_cap;
    t.vector_bytes = l.vector_bytes;
    t.column_items = l.across;
    t.column_rows = l.down;
    t.moment_width = l.moment_width;
    t.pair_kernels = l.pairs;
    const detail::GraphLock lock{v.node().get()};
    const detail::Schedule sch = detail::make_schedule({v.node()}, t);
    bool moment = false;
    for (const auto& st : sch.steps) {
      moment = moment || st.kernel.plan.reduce.moment != 0;
      CHECK(st.kernel.plan.reduce.kept_inner == l.vectors);
      // One pass: the loads' width, capped by the float64 sums' (moment_width).
      if (l.vectors) CHECK(st.kernel.plan.width == (l.one_pass ? std::min(l.vector_bytes, 4 * l.moment_width) : l.vector_bytes) / 4);
    }
    CHECK(moment == l.one_pass);
    CHECK(sch.kernel_count() == (l.one_pass ? 1u : 2u));
  }
  // This device's answer, whichever it takes, against the host.
  const auto gv = v.to_host(), gs = sd.to_host();
  for (std::int64_t c = 0; c < cols; ++c) {
    std::vector<float> col;
    for (std::int64_t r = 0; r < rows; ++r) col.push_back(h[std::size_t(r * cols + c)]);
    check_close(gv[std::size_t(c)], ref_var(col, 1), 16);
    check_close(gs[std::size_t(c)], std::sqrt(ref_var(col, 0)), 16);
  }
}

TEST_CASE("var and std in one pass, a work-item a column: one loop, or past 4096 values blocks met by Chan's update", "[reduce][moments][columns]") {
  if (!device_has_fp64()) return;
  // A GPU's layout without pair kernels reads each column of many a
  // work-item (render_moment.cpp's thread_sums): columns of up to
  // kMomentThreadValues values in one loop around the first value, longer
  // ones in blocks of that many, each around its own first. Columns of 4096
  // (one loop), 4097 (a block and one value) and 9000 (two blocks and a
  // part). Each block starts with an outlier (the worst shift), the second
  // block's values sit far from the others (the merge's d^2 term), every
  // column differs, and some hold a NaN, an inf, or one value only.
  static_assert(codegen::kMomentThreadValues == 4096);
  const std::int64_t cols = 256;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::int64_t rows : {4096, 4097, 9000}) {
    auto h = noisy(std::size_t(rows * cols), 1e4f, 2.0f, std::uint64_t(rows));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        float& v = h[std::size_t(r * cols + c)];
        if (r >= 4096 && r < 8192) v += 3e3f + float(c);
        if (r % 4096 == 0) v += (c % 2 ? 4e4f : -6e4f);
        if (c == 5) v = 7.25f;                                 // constant: exactly 0
        if (c == 6 && r == std::min<std::int64_t>(5000, rows - 2)) v = nan;
        if (c == 7 && r == rows - 1) v = inf;                  // the last value
        if (c == 8 && r == 4096 % rows) v = -inf;              // a block's shift
      }
    const auto x = from_host(h, {rows, cols});
    auto t = detail::tuning_of(*x.node()->device);
    t.one_pass_moments = true;
    t.column_blocks = true;
    t.target_groups = 4;  // 256 columns: a work-item each
    t.row_items_cap = 1024;
    t.vector_bytes = 16;
    t.moment_width = 2;
    t.pair_kernels = false;
    for (const int ddof : {0, 1}) {
      INFO("columns of " << rows << ", ddof " << ddof);
      auto v = var(x, 0, false, ddof);
      auto s = stddev(x, 0, true, ddof);
      for (const auto& sch : {run_with(v, t), run_with(s, t)}) {
        REQUIRE(sch.kernel_count() == 1);
        const auto& rs = sch.steps[0].kernel.plan.reduce;
        CHECK(rs.strategy == codegen::ReduceStrategy::ThreadPerOutput);
        CHECK(rs.moment != 0);
        CHECK(rs.moment_blocks == (rows > 4096));
      }
      const auto gv = v.to_host(), gs = s.to_host();
      for (std::int64_t c = 0; c < cols; ++c) {
        std::vector<float> col;
        for (std::int64_t r = 0; r < rows; ++r) col.push_back(h[std::size_t(r * cols + c)]);
        const long double want = ref_var(col, ddof);
        if (c == 5) CHECK_EACH(gv[std::size_t(c)] == 0.0f, "column " << c);
        if (c >= 6 && c <= 8) {
          CHECK_EACH(std::isnan(gv[std::size_t(c)]), "column " << c);
          CHECK_EACH(std::isnan(gs[std::size_t(c)]), "column " << c);
          continue;
        }
        check_close(gv[std::size_t(c)], want, 2);
        check_close(gs[std::size_t(c)], std::sqrt(want), 2);
      }
    }
  }
}

TEST_CASE("var and std in one pass: the accumulators' width follows DeviceTuning::moment_width", "[reduce][moments]") {
  if (!device_has_fp64()) return;
  const auto x = from_host(std::vector<float>(1 << 16, 1.0f), {1 << 16});
  const auto s = stddev(x);
  const auto m = mean(x);
  auto t = detail::tuning_of(*s.node()->device);
  t.one_pass_moments = true;
  t.vector_bytes = 16;
  for (const auto& [cap, width] : {std::pair{16, 4}, std::pair{2, 2}, std::pair{1, 1}}) {
    INFO("moment_width " << cap);
    t.moment_width = cap;
    const detail::GraphLock lock{s.node().get()};
    const detail::Schedule sch = detail::make_schedule({s.node(), m.node()}, t);
    int moments = 0;
    for (const auto& st : sch.steps)
      if (st.kernel.plan.reduce.moment != 0) {
        ++moments;
        if (!st.kernel.plan.reduce.combine) CHECK(int(st.kernel.plan.width) == width);
      }
    CHECK(moments >= 1);
  }
}

TEST_CASE("var and std in one pass: a work-group sums at most kMomentGroupValues values", "[reduce][moments]") {
  if (!device_has_fp64()) {
    WARN("the device has no float64: var and std take two passes there");
    return;
  }
  // Scheduled, never evaluated: 4096 rows (more outputs than any device's
  // target of groups) of a little over 3 x 2^24 values each.
  const std::int64_t rows = 4096, len = 3 * codegen::kMomentGroupValues + 5;
  const auto x = reshape(sin(arange<float>(0, double(rows * len))), {rows, len});
  const std::string split = kernel_source(var(x, 1));
  INFO(split);
  CHECK(split.find("double") != std::string::npos);          // one pass
  CHECK(split.find("% groups") != std::string::npos);        // over several groups per row
  // Rows of 2^24: one group each where the outputs fill the device.
  const auto y = reshape(sin(arange<float>(0, double(rows * codegen::kMomentGroupValues))), {rows, codegen::kMomentGroupValues});
  const std::string whole = kernel_source(var(y, 1));
  CHECK(whole.find("double") != std::string::npos);
  CHECK(whole.find("% groups") == std::string::npos);
}

TEST_CASE("var and std in one pass: a group's sums meet within warps where the device has them", "[reduce][moments]") {
  // An H200's layout (groups of up to 256, double2 accumulators) on any
  // device: the plans and their text. The kernels run in the test against
  // the long double reference above (rows of 17 to 4099: groups of one warp
  // to eight) wherever the device has warps.
  if (!device_has_fp64()) return;
  const auto h200 = [](const Array<float>& v) {
    auto t = detail::tuning_of(*v.node()->device);
    h200_moment_layout(t);  // its groups fill 132 SMs: 7 rows share none
    return t;
  };
  struct Case {
    std::int64_t len;
    int local;
  };
  for (const Case c : {Case{1000, 32}, Case{1500, 64}, Case{5000, 256}}) {
    INFO("7 rows of " << c.len);
    const auto x = reshape(sin(arange<float>(0, double(7 * c.len))), {7, c.len});
    const auto v = var(x, 1);
    auto t = h200(v);
    const auto plan_of = [&](const detail::DeviceTuning& tt) {
      const detail::GraphLock lock{v.node().get()};
      const detail::Schedule s = detail::make_schedule({v.node()}, tt);
      REQUIRE(s.kernel_count() == 1);
      return s.steps[0].kernel.plan;
    };
    const auto on = plan_of(t);
    CHECK(on.reduce.moment == 1);
    CHECK(on.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
    CHECK(int(on.reduce.local_size) == c.local);
    CHECK(int(on.reduce.row_warp) == 32);
    const std::string text = codegen::render(on, "k");
    CHECK(text.find("shfl.sync.down.b32") != std::string::npos);
    // One warp: no barrier at all; several: one, before the warps' sums add.
    CHECK((text.find("barrier(") != std::string::npos) == (c.local > 32));
    CHECK(text.find("shq[lid + s_]") == std::string::npos);  // no tree in local memory
    t.row_warp = 0;
    const auto off = plan_of(t);
    CHECK(off.reduce.row_warp == 0);
    const std::string plain = codegen::render(off, "k");
    CHECK(plain.find("shfl") == std::string::npos);
    CHECK(plain.find("shq[lid + s_]") != std::string::npos);
  }
  // A row split over groups: the first kernel's sums meet within warps, the
  // second kernel's partials in local memory.
  const std::int64_t len = 1 << 20;
  const auto x = reshape(sin(arange<float>(0, double(len))), {1, len});
  const auto v = var(x, 1);
  auto t = h200(v);
  t.split_finish = codegen::SplitFinish::SecondKernel;
  t.target_groups = 264;
  const detail::GraphLock lock{v.node().get()};
  const detail::Schedule s = detail::make_schedule({v.node()}, t);
  const auto& first = s.steps[0].kernel.plan;
  REQUIRE(first.reduce.two_stage);
  CHECK(int(first.reduce.row_warp) == 32);
  const auto second = codegen::combine_plan(first);
  CHECK(second.reduce.row_warp == 0);
  CHECK(codegen::render(second, "k").find("shfl") == std::string::npos);
}
