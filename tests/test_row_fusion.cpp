// Row kernels (issue 13): reduce-then-use patterns are one kernel, a
// work-group per row. Each pattern (x - max, x - mean, x / sum, softmax,
// layer norm, softmax of a layer-normed row) is checked along every axis of
// 2-D and 3-D arrays, with rows of 1, 3, 17, 1000 and 4099 elements, against
// a long double host reference, with its kernel count pinned; rows whose
// inputs pass the device's local memory take today's kernels (and the log
// says so).
//
// The host reference rounds the elementwise steps the device rounds
// exactly (x - max, x - mean in float) the same way, and computes the rest
// (exp, sums, divisions) in long double; tolerances are stated per pattern.
#include "src/device_state.hpp"
#include "src/launch.hpp"  // device_tuning
#include "src/schedule.hpp"
#include "support/bound_guard.hpp"
#include "support/cache_test_support.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

void check_pattern(const Pattern& pat, const Dims& dims, int axis, bool edges, int want_kernels) {
  const std::uint64_t seed = test_seed(0x13a0 + std::uint64_t(numel(dims)) * 7 + std::uint64_t(axis));
  INFO(pat.name << " along axis " << axis << " of " << dims_str(dims) << "; " << seed_message(seed));
  const auto h = inputs(dims, axis, seed, pat.lo, pat.hi, edges);
  const auto x = from_host(h, Shape(dims));
  reset_stats();
  const auto got = pat.device(x, axis).to_host();
  CHECK(stats().kernels_launched == std::uint64_t(want_kernels));
  check_rows(pat, h, got, dims, axis);
}

}  // namespace

TEST_CASE("row fusion: each pattern is one kernel along every axis, against the host", "[row]") {
  for (const auto& pat : patterns()) {
    for (const std::int64_t m : {1, 3, 17, 1000, 4099}) {
      // Edge values only where the reference's rounding follows the device's.
      const bool edges = m >= 3;
      for (int axis = 0; axis < 2; ++axis) {
        Dims d = axis == 0 ? Dims{m, 5} : Dims{7, m};
        check_pattern(pat, d, axis, edges, pat.kernels);
      }
      for (int axis = 0; axis < 3; ++axis) {
        Dims d{3, 4, 5};
        d[std::size_t(axis)] = m;
        check_pattern(pat, d, axis, edges, pat.kernels);
      }
    }
  }
}

namespace {

// The pattern along `axis` of `d` computed by today's kernels (the
// reductions first, a split one perhaps with its finishing kernel, then their
// use), still right.
void check_today(const Pattern& pat, const Dims& d, int axis) {
  const auto h = inputs(d, axis, 0x13a1, pat.lo, pat.hi, true);
  reset_stats();
  const auto got = pat.device(from_host(h, Shape(d)), axis).to_host();
  INFO(pat.name << " along axis " << axis << " of " << dims_str(d));
  CHECK(stats().kernels_launched > 1);
  check_rows(pat, h, got, d, axis);
}

// The pattern over rows one element longer than a row kernel takes (the
// device's local memory over the bytes of a float, or on a GPU what its
// largest group holds in registers). Two rows, so each reduction has several
// outputs.
void check_too_long(const Pattern& pat) {
  const auto m = detail::longest_row(detail::device_tuning(), sizeof(float)) + 1;
  check_today(pat, {2, m}, 1);
}

}  // namespace

TEST_CASE("row fusion: rows longer than local memory allows take today's kernels", "[row]") {
  const auto all = patterns();
  check_too_long(all[0]);  // x - max
  check_too_long(all[3]);  // softmax
}

TEST_CASE("row kernels off child", "[.row_kernels_off_child]") {
  // Columns in vectors (48 outputs) and in blocks (37), rows, a middle axis.
  for (const auto& pat : patterns()) {
    check_today(pat, {1000, 48}, 0);
    check_today(pat, {300, 37}, 0);
    check_today(pat, {7, 1000}, 1);
    check_today(pat, {3, 1000, 16}, 1);
  }
}

TEST_CASE("FUSECL_ROW_KERNELS=0 computes every pattern with today's kernels", "[row]") {
  const auto r = run_this_test_binary("FUSECL_ROW_KERNELS=0", "[.row_kernels_off_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("row fusion: whole-array reductions used again", "[row]") {
  const auto row_floats = std::int64_t(detail::device_tuning().row_bytes / sizeof(float));
  const auto longest = detail::longest_row(detail::device_tuning(), sizeof(float));  // row_floats, or more on a GPU
  const auto all = patterns();
  // Both ways a device may finish a split reduction alone: the grid form
  // needs neither (its partial results go to the reading kernel).
  for (const bool two_kernels : {false, true}) {
    struct TwoKernels {  // restored however the section ends
      explicit TwoKernels(bool on) { detail::set_reduce_two_kernels(on); }
      ~TwoKernels() { detail::set_reduce_two_kernels(false); }
    } forced(two_kernels);
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(1073), row_floats, longest + 1, 3 * longest + 7}) {
      INFO(n << " elements, split reductions finished by a second kernel: " << two_kernels);
      const Dims d{n % 2 == 0 ? n / 2 : n, n % 2 == 0 ? 2 : 1};
      const auto all_rows = [&] { return std::vector<std::vector<std::int64_t>>{rows_of({n}, 0)}; };
      for (const std::size_t which : {std::size_t(0), std::size_t(1), std::size_t(2)}) {  // x - max, x - mean, x / sum
        const Pattern& pat = all[which];
        INFO(pat.name);
        const auto h = inputs({n}, 0, 0x13a2 + std::uint64_t(n), pat.lo, pat.hi, which == 0);
        const auto x = from_host(h, Shape(d));
        const auto whole = which == 0 ? max(x) : which == 1 ? mean(x) : sum(x);
        reset_stats();
        const auto got = (which == 2 ? x / whole : x - whole).to_host();
        // One row kernel while the whole array fits a work-group's share of
        // local memory; past it the reduction's partial results, then a
        // kernel whose every group combines them before its share of x.
        CHECK(stats().kernels_launched == (n <= longest ? 1u : 2u));
        std::vector<LD> want(h.size()), tol(h.size());
        for (const auto& row : all_rows()) pat.host(h, row, want, tol);
        for (std::size_t i = 0; i < h.size(); ++i) {
          REQUIRE_EACH(close(got[i], want[i], tol[i]), "element " << i << ": got " << got[i] << ", want " << double(want[i]));
        }
      }
    }
    // Two reductions, one reading the other (layer norm of the whole array):
    // no grid form; past the limit, the mean and var in one moment kernel
    // (one pass, where the device has float64; split: one or two kernels)
    // then the expression, or the mean, the var and the expression.
    const std::int64_t n = longest + 1;
    const auto h = inputs({n}, 0, 0x13a7, -10, 10, false);
    const auto x = from_host(h);
    const auto& pat = all[4];
    reset_stats();
    const auto got = pat.device(x, 0).to_host();
    if (default_device().info().fp64) {
      CHECK(stats().kernels_launched >= 2);
      CHECK(stats().kernels_launched <= 3);
    } else {
      CHECK(stats().kernels_launched >= 3);
    }
    std::vector<LD> want(h.size()), tol(h.size());
    pat.host(h, rows_of({n}, 0)[0], want, tol);
    for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(close(got[i], want[i], tol[i]));
  }
}

TEST_CASE("row fusion: empty arrays, views, float64 and shared roots", "[row]") {
  SECTION("empty rows and no rows launch nothing") {
    for (const Dims& d : {Dims{4, 0}, Dims{0, 5}, Dims{0, 0}}) {
      const auto x = from_host(std::vector<float>{}, Shape(d));
      reset_stats();
      const auto r = (x - mean(x, 1, true)).to_host();
      CHECK(r.empty());
      CHECK(stats().kernels_launched == 0);
    }
  }
  SECTION("a transposed, sliced input is read in place") {
    const std::int64_t rows = 9, m = 1000;
    const auto h = inputs({m, 2 * rows}, 0, 0x13a3, -30, 30, true);
    // y[i, j] = h[j, 2 i]: rows of y are strided columns of h.
    const auto y = transpose(slice(from_host(h, {m, 2 * rows}), {all(), range(0, std::nullopt, 2)}));
    std::vector<float> hy(std::size_t(rows * m));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < m; ++j) hy[std::size_t(i * m + j)] = h[std::size_t(j * 2 * rows + 2 * i)];
    const auto pat = patterns()[3];  // softmax
    reset_stats();
    const auto got = pat.device(y, 1).to_host();
    CHECK(stats().kernels_launched == 1);
    std::vector<LD> want(hy.size()), tol(hy.size());
    for (const auto& row : rows_of({rows, m}, 1)) pat.host(hy, row, want, tol);
    for (std::size_t i = 0; i < hy.size(); ++i) REQUIRE(close(got[i], want[i], tol[i]));
  }
  SECTION("layer norm in float64") {
    const std::int64_t rows = 5, m = 1000;
    const auto h = inputs({rows, m}, 1, 0x13a4, -10, 10, true);
    const std::vector<double> hd(h.begin(), h.end());
    const auto x = from_host(hd, {rows, m});
    reset_stats();
    const auto got = ((x - mean(x, 1, true)) / sqrt(var(x, 1, true) + 1e-5)).to_host();
    CHECK(stats().kernels_launched == 1);
    for (const auto& row : rows_of({rows, m}, 1)) {
      LD mu = 0, v = 0, big = 0;
      for (auto i : row) mu += hd[std::size_t(i)], big = std::max(big, std::fabs(LD(hd[std::size_t(i)])));
      mu /= LD(m);
      for (auto i : row) v += (hd[std::size_t(i)] - mu) * (hd[std::size_t(i)] - mu);
      const LD sd = std::sqrt(v / LD(m) + LD(1e-5));
      for (auto i : row) {
        const LD want = (hd[std::size_t(i)] - mu) / sd;
        REQUIRE(close(float(got[std::size_t(i)]), want, 32 * LD(DBL_EPSILON) * (std::fabs(want) + big / sd) + LD(FLT_EPSILON) * std::fabs(want)));
      }
    }
  }
  SECTION("two roots of one shape and rows share one row kernel, as elementwise roots share theirs") {
    const auto h = inputs({6, 17}, 1, 0x13a5, -5, 5, false);
    const auto x = from_host(h, {6, 17});
    auto a = x - max(x, 1, true);
    auto b = x / sum(x * x, 1, true);
    reset_stats();
    eval(a, b);
    CHECK(stats().kernels_launched == 1);
    const auto ra = a.to_host(), rb = b.to_host();
    for (const auto& row : rows_of({6, 17}, 1)) {
      const float mx = float(row_max(h, row));
      LD ss = 0;
      for (auto i : row) ss += LD(h[std::size_t(i)]) * LD(h[std::size_t(i)]);
      for (auto i : row) {
        REQUIRE(ra[std::size_t(i)] == h[std::size_t(i)] - mx);
        REQUIRE(close(rb[std::size_t(i)], LD(h[std::size_t(i)]) / ss, 8 * eps * std::fabs(LD(h[std::size_t(i)]) / ss)));
      }
    }
    // Rows along another axis, or a root with no reduction: kernels of their own.
    auto c = x - mean(x, 0, true);
    auto d = x * 2.0f;
    auto e = x - min(x, 1, true);
    reset_stats();
    eval(c, d, e);
    CHECK(stats().kernels_launched == 3);
    const auto rc = c.to_host(), rd = d.to_host(), re = e.to_host();
    for (const auto& col : rows_of({6, 17}, 0)) {
      LD mu = 0;
      for (auto i : col) mu += h[std::size_t(i)];
      mu /= 6;
      for (auto i : col) REQUIRE(close(rc[std::size_t(i)], h[std::size_t(i)] - mu, 8 * eps * 5));
    }
    for (const auto& row : rows_of({6, 17}, 1)) {
      float mn = INFINITY;
      for (auto i : row) mn = std::min(mn, h[std::size_t(i)]);
      for (auto i : row) {
        REQUIRE(rd[std::size_t(i)] == h[std::size_t(i)] * 2.0f);
        REQUIRE(re[std::size_t(i)] == h[std::size_t(i)] - mn);
      }
    }
  }
}

TEST_CASE("row fusion: bodies that may pass the instruction limit take today's kernels", "[row]") {
  const BoundGuard bound(4096);  // long chains stay in one graph
  const std::vector<float> h{0.5f, -1.0f, 2.0f, 0.25f, -3.0f, 1.5f, -0.5f, 4.0f, 1.0f, -2.0f};
  const auto x = from_host(h, {2, 5});
  // y_k = |y_k| - x, 150 + k times over (exact in float, and no scalars,
  // which are kernel arguments): a weight of about 450 each.
  auto chain = [&](int k) {
    Array<float> y = x;
    for (int i = 0; i < 150 + k; ++i) y = abs(y) - x;
    return y;
  };
  std::vector<float> want_y[3];
  for (int k = 0; k < 3; ++k) {
    want_y[k] = h;
    for (int i = 0; i < 150 + k; ++i)
      for (std::size_t j = 0; j < h.size(); ++j) want_y[k][j] = std::fabs(want_y[k][j]) - h[j];
  }
  // One such reduction and its reader fit one body; three do not.
  {
    reset_stats();
    const auto got = (x - max(chain(1), 1, true)).to_host();
    CHECK(stats().kernels_launched == 1);
    for (std::size_t i = 0; i < h.size(); ++i) {
      const std::size_t row = i / 5;
      const float mx = *std::max_element(want_y[1].begin() + std::ptrdiff_t(row * 5), want_y[1].begin() + std::ptrdiff_t(row * 5 + 5));
      REQUIRE(got[i] == h[i] - mx);
    }
  }
  reset_stats();
  const auto got = (x - max(chain(0), 1, true) - max(chain(1), 1, true) - max(chain(2), 1, true)).to_host();
  CHECK(stats().kernels_launched == 4);  // the three maxima, then the root
  for (std::size_t i = 0; i < h.size(); ++i) {
    const std::size_t row = i / 5;
    float want = h[i];
    for (int k = 0; k < 3; ++k)
      want -= *std::max_element(want_y[k].begin() + std::ptrdiff_t(row * 5), want_y[k].begin() + std::ptrdiff_t(row * 5 + 5));
    REQUIRE(got[i] == want);
  }
}

TEST_CASE("row fusion: every reduction op and its dtypes in a row kernel", "[row]") {
  // Small integers (and powers of two for prod) keep every result exact
  // whatever the order of the sums, so the device must match exactly.
  // Along leading axes, the column form: a column at a time (inner extent 7)
  // and vectors of neighbouring columns (32, and 16 in a 3-D array).
  for (const auto& [d, axis] : {std::pair{Dims{7, 17}, 1}, std::pair{Dims{17, 7}, 0}, std::pair{Dims{3, 1000}, 1},
                                std::pair{Dims{17, 32}, 0}, std::pair{Dims{5, 9, 16}, 1}}) {
    INFO("axis " << axis << " of " << dims_str(d));
    const auto rows = rows_of(d, axis);
    const std::size_t size = std::size_t(numel(d));
    std::mt19937_64 rng(0x13a8);
    std::vector<std::int32_t> hi(size);
    std::vector<float> hp(size);
    std::vector<bool> hb(size);
    for (std::size_t i = 0; i < size; ++i) {
      hi[i] = std::int32_t(rand_int(rng, -50, 50));
      hp[i] = rand_int(rng, 0, 1) ? 1.0f : (rand_int(rng, 0, 1) ? 2.0f : 0.5f);
      hb[i] = rand_int(rng, 0, 3) != 0;
    }
    // Row 0 all true, row 1 all false: all() and any() both ways.
    for (auto i : rows[0]) hb[std::size_t(i)] = true;
    for (auto i : rows[1]) hb[std::size_t(i)] = false;
    const auto xi = from_host(hi, Shape(d));
    const auto xp = from_host(hp, Shape(d));
    std::vector<std::uint8_t> hb8(hb.begin(), hb.end());
    const auto xb = from_host(hb8, Shape(d)).astype<bool>();

    reset_stats();
    const auto s = (xi - sum(xi, axis, true)).to_host();  // int64
    const auto mm = (xi * min(xi, axis, true) + max(xi, axis, true)).to_host();
    const auto mean_i = (xi - mean(xi, axis, true)).to_host();  // float64
    const auto pr = (xp / prod(xp, axis, true)).to_host();
    const auto al = (xb || all(xb, axis, true)).to_host();
    const auto an = (xb && any(xb, axis, true)).to_host();
    const auto sd = (xi / stddev(xi, axis, true, 1)).to_host();  // float64, ddof 1
    CHECK(stats().kernels_launched == 7);
    for (const auto& row : rows) {
      std::int64_t sum_h = 0;
      std::int32_t mn = hi[std::size_t(row[0])], mx = mn;
      float p = 1;
      bool all_h = true, any_h = false;
      for (auto i : row) {
        sum_h += hi[std::size_t(i)];
        mn = std::min(mn, hi[std::size_t(i)]);
        mx = std::max(mx, hi[std::size_t(i)]);
        p *= hp[std::size_t(i)];
        all_h = all_h && hb[std::size_t(i)];
        any_h = any_h || hb[std::size_t(i)];
      }
      const LD mu = LD(sum_h) / LD(row.size());
      LD ss = 0;
      for (auto i : row) ss += (hi[std::size_t(i)] - mu) * (hi[std::size_t(i)] - mu);
      const LD sdev = std::sqrt(ss / LD(row.size() - 1));
      for (auto i : row) {
        const auto k = std::size_t(i);
        REQUIRE(s[k] == std::int64_t(hi[k]) - sum_h);
        REQUIRE(mm[k] == hi[k] * mn + mx);
        REQUIRE(std::fabs(LD(mean_i[k]) - (hi[k] - mu)) <= 4 * LD(DBL_EPSILON) * 50);
        REQUIRE(pr[k] == hp[k] / p);
        REQUIRE(bool(al[k]) == (hb[k] || all_h));
        REQUIRE(bool(an[k]) == (hb[k] && any_h));
        REQUIRE(std::fabs(LD(sd[k]) - hi[k] / sdev) <= 16 * LD(DBL_EPSILON) * std::fabs(hi[k] / sdev));
      }
    }
  }
}
