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
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"  // device_tuning
#include "src/schedule.hpp"
#include "support/bound_guard.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

using LD = long double;

// Flat indices of every row along `axis` of `dims`, row by row.
std::vector<std::vector<std::int64_t>> rows_of(const Dims& dims, int axis) {
  std::vector<std::vector<std::int64_t>> rows;
  std::int64_t stride = 1;
  for (std::size_t i = std::size_t(axis) + 1; i < dims.size(); ++i) stride *= dims[i];
  const std::int64_t len = dims[std::size_t(axis)], total = numel(dims);
  for (std::int64_t f = 0; f < total; ++f) {
    if ((f / stride) % len != 0) continue;  // not the start of a row
    std::vector<std::int64_t> r;
    for (std::int64_t k = 0; k < len; ++k) r.push_back(f + k * stride);
    rows.push_back(std::move(r));
  }
  return rows;
}

// Inputs in [lo, hi] with different values in every element, and, where
// asked, edge values in a few rows: +-0 and a subnormal (row 0), +inf (row
// 1), -inf (row 2), NaN (row 3).
std::vector<float> inputs(const Dims& dims, int axis, std::uint64_t seed, double lo, double hi, bool edges) {
  InputOptions opt;
  opt.edge_fraction = 0;
  opt.range = {{lo, hi}};
  const auto vals = random_values(DType::Float32, std::size_t(numel(dims)), seed, opt);
  std::vector<float> h;
  for (const auto& v : vals) h.push_back(v.as<float>());
  if (edges) {
    const auto rows = rows_of(dims, axis);
    const auto put = [&](std::size_t row, std::size_t k, float v) {
      if (row < rows.size() && k < rows[row].size()) h[std::size_t(rows[row][k])] = v;
    };
    put(0, 0, -0.0f);
    put(0, 1, 0.0f);
    put(0, 2, 1e-40f);
    put(1, rows.empty() ? 0 : rows[0].size() / 2, INFINITY);
    put(2, 0, -INFINITY);
    put(3, 1, NAN);
  }
  return h;
}

LD row_max(const std::vector<float>& h, const std::vector<std::int64_t>& row) {
  LD m = -INFINITY;
  for (auto i : row) {
    if (std::isnan(h[std::size_t(i)])) return NAN;
    m = std::max(m, LD(h[std::size_t(i)]));
  }
  return m;
}

LD row_mean(const std::vector<float>& h, const std::vector<std::int64_t>& row) {
  LD s = 0;
  for (auto i : row) s += h[std::size_t(i)];
  return s / LD(row.size());
}

// |got - want| within `tol` (NaN matches NaN, infinities must be equal).
bool close(float got, LD want, LD tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return LD(got) == want;
  return std::fabs(LD(got) - want) <= tol;
}

struct Pattern {
  const char* name;
  int kernels;  // when the rows fit
  std::function<Array<float>(const Array<float>&, int)> device;
  // Reference for one row: writes `want` and tolerances for each element.
  std::function<void(const std::vector<float>&, const std::vector<std::int64_t>&, std::vector<LD>&, std::vector<LD>&)> host;
  double lo, hi;
};

constexpr LD eps = FLT_EPSILON;

std::vector<Pattern> patterns() {
  std::vector<Pattern> p;
  p.push_back({"x - max(x, axis, true)", 1, [](const Array<float>& x, int a) { return x - max(x, a, true); },
               [](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want, std::vector<LD>& tol) {
                 const float m = float(row_max(h, row));
                 for (auto i : row) {
                   want[std::size_t(i)] = h[std::size_t(i)] - m;  // rounded in float, as the device rounds it: exact
                   tol[std::size_t(i)] = 0;
                 }
               },
               -1e4, 1e4});
  p.push_back({"x - mean(x, axis, true)", 1, [](const Array<float>& x, int a) { return x - mean(x, a, true); },
               [](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want, std::vector<LD>& tol) {
                 const LD m = row_mean(h, row);
                 // The mean within a few ulp of max|x| (Kahan sums, one division); one more rounding.
                 LD big = 0;
                 for (auto i : row) big = std::max(big, LD(std::fabs(h[std::size_t(i)])));
                 for (auto i : row) {
                   want[std::size_t(i)] = LD(h[std::size_t(i)]) - m;
                   tol[std::size_t(i)] = 4 * eps * big + 4 * LD(FLT_TRUE_MIN);  // subnormal means round in steps of it
                 }
               },
               -100, 100});
  p.push_back({"x / sum(x, axis, true)", 1, [](const Array<float>& x, int a) { return x / sum(x, a, true); },
               [](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want, std::vector<LD>& tol) {
                 LD s = 0;
                 for (auto i : row) s += h[std::size_t(i)];
                 // Positive inputs: the sum within a few ulp, one division.
                 for (auto i : row) {
                   want[std::size_t(i)] = LD(h[std::size_t(i)]) / s;
                   tol[std::size_t(i)] = 4 * eps * std::fabs(want[std::size_t(i)]) + LD(FLT_MIN);
                 }
               },
               0.5, 2});
  auto softmax = [](const Array<float>& x, int a) {
    const auto e = exp(x - max(x, a, true));
    return e / sum(e, a, true);
  };
  // exp within 3 ulp (OpenCL), its row sum within a few more, one division.
  auto host_softmax = [](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want,
                         std::vector<LD>& tol) {
    const float m = float(row_max(h, row));
    LD s = 0;
    for (auto i : row) s += std::exp(LD(h[std::size_t(i)] - m));
    for (auto i : row) {
      want[std::size_t(i)] = std::exp(LD(h[std::size_t(i)] - m)) / s;
      tol[std::size_t(i)] = 16 * eps * std::fabs(want[std::size_t(i)]) + LD(FLT_MIN);
    }
  };
  p.push_back({"softmax", 1, softmax, host_softmax, -30, 30});
  auto layer_norm = [](const Array<float>& x, int a) { return (x - mean(x, a, true)) / sqrt(var(x, a, true) + 1e-5f); };
  // The mean and the variance within a few ulp; the deviation x - mean loses
  // up to |mean| * eps to cancellation, scaled by 1 / sqrt(var + eps).
  auto host_layer_norm = [](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want,
                            std::vector<LD>& tol) {
    const LD m = row_mean(h, row);
    LD v = 0;
    for (auto i : row) v += (LD(h[std::size_t(i)]) - m) * (LD(h[std::size_t(i)]) - m);
    v /= LD(row.size());
    const LD sd = std::sqrt(LD(float(v)) + LD(1e-5f));
    LD big = 0;
    for (auto i : row) big = std::max(big, LD(std::fabs(h[std::size_t(i)])));
    for (auto i : row) {
      want[std::size_t(i)] = (LD(h[std::size_t(i)]) - m) / sd;
      tol[std::size_t(i)] = 32 * eps * (std::fabs(want[std::size_t(i)]) + big / sd);
    }
  };
  p.push_back({"layer norm", 1, layer_norm, host_layer_norm, -10, 10});
  p.push_back({"softmax of a layer-normed row", 1, [=](const Array<float>& x, int a) { return softmax(layer_norm(x, a), a); },
               [=](const std::vector<float>& h, const std::vector<std::int64_t>& row, std::vector<LD>& want,
                   std::vector<LD>& tol) {
                 // The layer norm's reference, rounded to float, is the softmax's input; its
                 // error (tol_ln) moves exp by as much, relatively.
                 std::vector<LD> ln(h.size()), ln_tol(h.size());
                 host_layer_norm(h, row, ln, ln_tol);
                 std::vector<float> y(h.size());
                 LD worst = 0;
                 for (auto i : row) {
                   y[std::size_t(i)] = float(ln[std::size_t(i)]);
                   worst = std::max(worst, ln_tol[std::size_t(i)] + eps * std::fabs(ln[std::size_t(i)]));
                 }
                 host_softmax(y, row, want, tol);
                 for (auto i : row) tol[std::size_t(i)] += 4 * worst * std::fabs(want[std::size_t(i)]);
               },
               -10, 10});
  return p;
}

void check_pattern(const Pattern& pat, const Dims& dims, int axis, bool edges, int want_kernels) {
  const std::uint64_t seed = test_seed(0x13a0 + std::uint64_t(numel(dims)) * 7 + std::uint64_t(axis));
  INFO(pat.name << " along axis " << axis << " of " << dims_str(dims) << "; " << seed_message(seed));
  const auto h = inputs(dims, axis, seed, pat.lo, pat.hi, edges);
  const auto x = from_host(h, Shape(dims));
  reset_stats();
  const auto got = pat.device(x, axis).to_host();
  CHECK(stats().kernels_launched == std::uint64_t(want_kernels));
  REQUIRE(got.size() == h.size());
  std::vector<LD> want(h.size()), tol(h.size());
  for (const auto& row : rows_of(dims, axis)) pat.host(h, row, want, tol);
  for (std::size_t i = 0; i < h.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]) << " within " << double(tol[i]));
    REQUIRE(close(got[i], want[i], tol[i]));
  }
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

// The pattern over rows one element longer than a row kernel takes (the
// device's local memory over the bytes of a float): today's kernels, still
// right. Two rows, so each reduction has several outputs.
void check_too_long(const Pattern& pat) {
  const auto m = std::int64_t(detail::device_tuning().row_bytes / sizeof(float) + 1);
  const Dims d{2, m};
  const auto h = inputs(d, 1, 0x13a1, pat.lo, pat.hi, true);
  reset_stats();
  const auto got = pat.device(from_host(h, Shape(d)), 1).to_host();
  INFO(pat.name << " along rows of " << m);
  CHECK(stats().kernels_launched > 1);  // the reductions first (a split one may add its finishing kernel)
  std::vector<LD> want(h.size()), tol(h.size());
  for (const auto& row : rows_of(d, 1)) pat.host(h, row, want, tol);
  for (std::size_t i = 0; i < h.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]));
    REQUIRE(close(got[i], want[i], tol[i]));
  }
}

}  // namespace

TEST_CASE("row fusion: rows longer than local memory allows take today's kernels", "[row]") {
  const auto all = patterns();
  check_too_long(all[0]);  // x - max
  check_too_long(all[3]);  // softmax
}

TEST_CASE("row fusion: whole-array reductions used again", "[row]") {
  const auto row_floats = std::int64_t(detail::device_tuning().row_bytes / sizeof(float));
  const auto all = patterns();
  // Both ways a device may finish a split reduction alone: the grid form
  // needs neither (its partial results go to the reading kernel).
  for (const bool two_kernels : {false, true}) {
    struct TwoKernels {  // restored however the section ends
      explicit TwoKernels(bool on) { detail::set_reduce_two_kernels(on); }
      ~TwoKernels() { detail::set_reduce_two_kernels(false); }
    } forced(two_kernels);
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(1073), row_floats, row_floats + 1, 3 * row_floats + 7}) {
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
        CHECK(stats().kernels_launched == (n <= row_floats ? 1u : 2u));
        std::vector<LD> want(h.size()), tol(h.size());
        for (const auto& row : all_rows()) pat.host(h, row, want, tol);
        for (std::size_t i = 0; i < h.size(); ++i) {
          INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]));
          REQUIRE(close(got[i], want[i], tol[i]));
        }
      }
    }
    // Two reductions, one reading the other (layer norm of the whole array):
    // no grid form; past the limit, the mean and var in one moment kernel
    // (one pass, where the device has float64; split: one or two kernels)
    // then the expression, or the mean, the var and the expression.
    const std::int64_t n = row_floats + 1;
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

namespace {

// y computed by the schedule the device's tuning gives, but with work-groups
// of `local` (a GPU's 256 on this CPU device, whose groups are 16): the group
// layouts a GPU gets (many work-items per row, rows kept in registers) are
// checked here too.
// A GPU's layout (launch.cpp): groups of at most 128 work-items, up to 16
// elements each in registers, loaded in 16-byte vectors where rows allow.
struct Layout {
  int elements_per_item = 4;
  bool gpu = false;
};

// `t` with a GPU's row layout (launch.cpp), whatever the device.
void gpu_rows(detail::DeviceTuning& t) {
  t.vector_bytes = 16;
  t.row_group_cap = 128;
  t.row_register_elements = 16;
  t.row_items_cap = 1024;
}

std::vector<float> with_local_size(const Array<float>& y, int local, Layout layout = {}, int* width = nullptr) {
  const auto node = y.node();
  const detail::DevicePtr dev = node->device;
  {
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*dev);
    t.local_size = local;
    t.max_work_group_size = std::size_t(local);  // no larger groups for long rows: the layouts below are these
    t.elements_per_item = layout.elements_per_item;
    t.row_items_cap = 1024;  // several work-items per row on a CPU too: their trees are what is tested
    if (layout.gpu) gpu_rows(t);
    detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() == 1);
    REQUIRE(s.steps[0].kernel.plan.kind == codegen::KernelKind::Row);
    if (width) *width = s.steps[0].kernel.plan.width;
    detail::run_schedule(*dev, s);
  }
  return y.to_host();
}

}  // namespace

TEST_CASE("row fusion: GPU-sized work-groups, in registers and in loops", "[row]") {
  const auto all = patterns();
  for (std::size_t which = 0; which < all.size(); ++which) {
    const Pattern& pat = all[which];
    const bool main = which == 3 || which == 4;  // softmax, layer norm: every layout; the others the GPU's
    // 1 and 3: a work-item per row; 17: 8 per row, several rows per group;
    // 1000, 1024, 2048: 256 per row, 4 or 8 elements each in registers; 4099: a loop.
    // FUSECL_ROW_ELEMENTS=8 (the layout measured fastest on an H200): 128 per
    // row for rows of 1000 and 1024, two rows per group, 8 elements in registers.
    // The GPU layout (16 per work-item, 64 per row of 1000 to 1024, two rows
    // per group of 128, in vectors of 4 where rows are whole vectors: 1000,
    // 1024, 2048 and 20 here, and 1001 not).
    for (const Layout layout : {Layout{4}, Layout{8}, Layout{16, true}, Layout{4, true}})
    for (const std::int64_t m : {1, 3, 17, 20, 1000, 1001, 1024, 2048, 4099}) {
      if (!main && !layout.gpu) continue;
      for (int axis = 0; axis < 2; ++axis) {
        const Dims d = axis == 0 ? Dims{m, 5} : Dims{5, m};
        INFO(pat.name << " along axis " << axis << " of " << dims_str(d) << ", " << layout.elements_per_item
                      << " elements per work-item" << (layout.gpu ? ", a GPU's layout" : ""));
        const auto h = inputs(d, axis, 0x13a6 + std::uint64_t(m), pat.lo, pat.hi, m >= 3);
        int width = 0;
        const auto got = with_local_size(pat.device(from_host(h, Shape(d)), axis), 256, layout, &width);
        if (layout.gpu && axis == 1 && m % 4 == 0 && m <= 2048) CHECK(width == 4);  // the vector register form
        std::vector<LD> want(h.size()), tol(h.size());
        for (const auto& row : rows_of(d, axis)) pat.host(h, row, want, tol);
        for (std::size_t i = 0; i < h.size(); ++i) {
          INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]));
          REQUIRE(close(got[i], want[i], tol[i]));
        }
      }
    }
  }
}

TEST_CASE("row fusion: a GPU's long rows take a larger group and stay in registers", "[row]") {
  // Rows of 4099 and 8192 with a GPU's layout and groups of up to 1024: 512
  // work-items per row (8192: 16 elements each, as 4 vectors) instead of a
  // loop in a group of 128.
  const auto all = patterns();
  for (const std::size_t which : {std::size_t(3), std::size_t(4)})  // softmax, layer norm
    for (const std::int64_t m : {4099, 8192}) {
      const Pattern& pat = all[which];
      const Dims d{3, m};
      INFO(pat.name << " over rows of " << m);
      const auto h = inputs(d, 1, test_seed(0x13b6 + std::uint64_t(m)), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), 1);
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        auto t = detail::tuning_of(*node->device);
        t.local_size = 256, t.elements_per_item = 16, t.max_work_group_size = 1024;
        gpu_rows(t);
        detail::Schedule s = detail::make_schedule({node}, t);
        REQUIRE(s.kernel_count() == 1);
        const auto& rs = s.steps[0].kernel.plan.reduce;
        CHECK(rs.local_size == 512);
        CHECK(rs.row_chunks == (m == 8192 ? 4 : 16));  // 8192: whole vectors of 4; 4099: element by element
        detail::run_schedule(*node->device, s);
      }
      const auto got = y.to_host();
      std::vector<LD> want(h.size()), tol(h.size());
      for (const auto& row : rows_of(d, 1)) pat.host(h, row, want, tol);
      for (std::size_t i = 0; i < h.size(); ++i) {
        INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]));
        REQUIRE(close(got[i], want[i], tol[i]));
      }
    }
}

TEST_CASE("row fusion: rows along leading axes in the column form, vectors of neighbouring columns", "[row]") {
  // A work-item takes a vector of neighbouring columns and steps down them;
  // each lane is a column of its own, with the edge values of the inputs in
  // some lanes and not in their neighbours. Three layouts: a CPU's (a
  // work-item per vector of 16 columns), a GPU's (vectors of 4, up to 8 of
  // them side by side, 16 work-items down each) and groups of 16 with 4
  // elements per work-item.
  struct Case {
    Dims d;
    int axis;
  };
  std::vector<Case> cases;
  for (const std::int64_t m : {1, 3, 17, 1000, 4099}) cases.push_back({{m, 48}, 0});
  for (const std::int64_t m : {3, 17, 1000}) cases.push_back({{3, m, 40}, 1});
  cases.push_back({{6, 7, 32}, 0});  // inner extent 7 x 32
  const auto all = patterns();
  for (const Pattern& pat : all)
    for (const Case& c : cases)
      for (int layout = 0; layout < 3; ++layout) {
        INFO(pat.name << " along axis " << c.axis << " of " << dims_str(c.d) << ", layout " << layout);
        const auto h = inputs(c.d, c.axis, test_seed(0x13b4 + std::uint64_t(numel(c.d))), pat.lo, pat.hi, c.d[std::size_t(c.axis)] >= 3);
        const auto y = pat.device(from_host(h, Shape(c.d)), c.axis);
        const auto node = y.node();
        {
          const detail::GraphLock lock{node.get()};
          // Layouts the same on any device (few groups fill it, so that the
          // column form is taken even for these small arrays on a GPU).
          auto t = detail::tuning_of(*node->device);
          t.target_groups = 4;
          if (layout == 0) {
            t.local_size = 16, t.vector_bytes = 64, t.row_group_cap = 1024, t.row_items_cap = 1;
          } else if (layout == 1) {
            t.local_size = 256, t.elements_per_item = 16;
            gpu_rows(t);
          } else {
            t.local_size = 16, t.elements_per_item = 4, t.row_items_cap = 1024;
          }
          detail::Schedule s = detail::make_schedule({node}, t);
          REQUIRE(s.kernel_count() == 1);
          const auto& plan = s.steps[0].kernel.plan;
          CHECK(plan.reduce.row_columns);
          if (layout == 1) CHECK(plan.width == (c.d.back() % 4 == 0 ? 4 : 1));
          reset_stats();
          detail::run_schedule(*node->device, s);
          CHECK(stats().kernels_launched == 1);
        }
        const auto got = y.to_host();
        std::vector<LD> want(h.size()), tol(h.size());
        for (const auto& row : rows_of(c.d, c.axis)) pat.host(h, row, want, tol);
        for (std::size_t i = 0; i < h.size(); ++i) {
          INFO("element " << i << ": got " << got[i] << ", want " << double(want[i]));
          REQUIRE(close(got[i], want[i], tol[i]));
        }
      }
}

TEST_CASE("row fusion: a GPU's vector rows of other types", "[row]") {
  // Rows of whole 16-byte vectors: two float64 lanes, and a bool result
  // stored through a vector pointer of uchar.
  for (const std::int64_t m : {2, 20, 1000, 1024}) {
    INFO("rows of " << m);
    std::vector<double> hd(std::size_t(5 * m));
    std::vector<float> hf(hd.size());
    for (std::size_t i = 0; i < hd.size(); ++i) {
      hd[i] = std::sin(double(i) * 0.37) * 3.0 + double(i % 7);  // a different value in every lane
      hf[i] = float(hd[i]);
    }
    const auto xd = from_host(hd, {5, m});
    const auto xf = from_host(hf, {5, m});
    const auto yd = xd - max(xd, 1, true);
    const auto yb = xf > mean(xf, 1, true);
    int wd = 0, width = 0;
    const auto gd = with_local_size(yd.astype<float>(), 256, Layout{16, true}, &wd);
    CHECK(wd == 2);
    {
      const auto node = yb.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      t.local_size = 256, t.elements_per_item = 16;
      gpu_rows(t);
      detail::Schedule sch = detail::make_schedule({node}, t);
      REQUIRE(sch.kernel_count() == 1);
      width = sch.steps[0].kernel.plan.width;
      detail::run_schedule(*node->device, sch);
    }
    const auto bb = yb.to_host();
    if (m % 4 == 0) CHECK(width == 4);  // shorter rows: too few elements per work-item for a vector
    for (std::int64_t r = 0; r < 5; ++r) {
      double mx = -INFINITY;
      long double mean_ = 0;
      for (std::int64_t j = 0; j < m; ++j) mx = std::max(mx, hd[std::size_t(r * m + j)]), mean_ += hf[std::size_t(r * m + j)];
      mean_ /= m;
      for (std::int64_t j = 0; j < m; ++j) {
        const std::size_t i = std::size_t(r * m + j);
        REQUIRE(gd[i] == float(hd[i] - mx));
        // Only where the row's mean is not within float rounding of the value.
        if (std::fabs(double(hf[i] - mean_)) > 1e-5 * (1 + std::fabs(double(mean_)))) REQUIRE(bool(bb[i]) == (hf[i] > mean_));
      }
    }
  }
}

namespace {

// `src` as the OpenCL compiler sees it with FCL_CPU defined (cpu) or not:
// the lines of the other branch of each #ifdef FCL_CPU dropped.
std::string preprocessed(const std::string& src, bool cpu) {
  std::string out, line;
  bool in_if = false, in_else = false;
  for (std::size_t at = 0; at < src.size();) {
    const std::size_t end = std::min(src.find('\n', at), src.size());
    line = src.substr(at, end - at);
    at = end + 1;
    if (line == "#ifdef FCL_CPU") in_if = true;
    else if (line == "#else" && in_if) in_if = false, in_else = true;
    else if (line == "#endif" && (in_if || in_else)) in_if = in_else = false;
    else if (!(in_if && !cpu) && !(in_else && cpu)) out += line + "\n";
  }
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The one row kernel of y's schedule in a layout the same on any device
// (groups of `local`, 8 elements per work-item, vectors of `vector_bytes`
// where not 0): its row_chunks (0: the loop form) and its source.
std::pair<int, std::string> row_kernel(const detail::NodePtr& y, int local, int vector_bytes = 0) {
  auto t = detail::tuning_of(*y->device);
  t.row_group_cap = 1024;
  t.row_register_elements = 8;
  t.row_items_cap = 1024;
  t.local_size = local;
  t.max_work_group_size = std::size_t(local);
  t.elements_per_item = 8;
  if (vector_bytes) t.vector_bytes = vector_bytes;
  const detail::GraphLock lock{y.get()};
  const detail::Schedule s = detail::make_schedule({y}, t);
  REQUIRE(s.kernel_count() == 1);
  const auto& plan = s.steps[0].kernel.plan;
  return {int(plan.reduce.row_chunks), codegen::render(plan, codegen::kernel_name(plan))};
}

}  // namespace

TEST_CASE("row fusion: a row in registers keeps its exp for the output phase", "[row]") {
  // Softmax's exp(x - max) is summed in one phase and divided in the next:
  // in the register form it is computed once per element and kept (a GPU's
  // full-precision exp is some ten instructions); in the loop form each
  // phase computes it again from the row it re-reads.
  const auto x = from_host(std::vector<float>(5 * 1024, 1.0f), {5, 1024});
  const auto e = exp(x - max(x, 1, true));
  const auto y = e / sum(e, 1, true);
  auto count_exp = [&](int local, int vector_bytes = 4) {
    const auto [chunks, src] = row_kernel(y.node(), local, vector_bytes);
    return std::pair{chunks, count_of(src, "exp(")};
  };
  CHECK(count_exp(256) == std::pair{8, std::size_t(1)});      // 128 work-items per row, 8 elements each in registers
  CHECK(count_exp(256, 16) == std::pair{2, std::size_t(1)});  // the same as two vectors of 4
  const auto [chunks, n] = count_exp(16);                  // 16 per row: a loop
  CHECK(chunks == 0);
  CHECK(n >= 2);
}

TEST_CASE("row fusion: on CPUs the loop form computes softmax's exp once, stashed where the output goes", "[row]") {
  // The loop form re-reads the row in each phase. A GPU computes exp(x - max)
  // again for the output (its loop form waits on memory); a CPU's (FCL_CPU)
  // sum phase stores it in the output and the output phase reads it back.
  const auto x = from_host(std::vector<float>(5 * 1024, 1.0f), {5, 1024});
  const auto e = exp(x - max(x, 1, true));
  auto source = [&](const auto& y) {
    const auto [chunks, src] = row_kernel(y.node(), 16);  // 16 per row: the loop form
    REQUIRE(chunks == 0);
    return src;
  };
  const std::string soft = source(e / sum(e, 1, true));
  CHECK(count_of(preprocessed(soft, false), "exp(") == 2 * count_of(preprocessed(soft, true), "exp("));
  // The stash's store and load, for whole vectors and for the tail.
  CHECK(count_of(preprocessed(soft, true), "out0") == count_of(preprocessed(soft, false), "out0") + 4);
  // Outputs of float64 only: nowhere to keep a float, so computed again.
  const std::string wide = source((e / sum(e, 1, true)).astype<double>());
  CHECK(preprocessed(wide, true) == preprocessed(wide, false));

  // Results through the stash on this device (a CPU's, where FCL_CPU is
  // defined; elsewhere the other branch), against the host: softmax with
  // exp(x - max) itself as a second output of the same kernel, and softmax
  // to float64; rows of whole vectors and a tail, edge values in some rows.
  for (const std::int64_t m : {16, 1000, 4099}) {
    const Dims d{4, m};
    const auto h = inputs(d, 1, 0x13b2 + std::uint64_t(m), -30, 30, true);
    const auto xs = from_host(h, Shape(d));
    const auto es = exp(xs - max(xs, 1, true));
    const auto ys = es / sum(es, 1, true);
    const auto yd = ys.astype<double>();
    reset_stats();
    eval(es, ys, yd);
    CHECK(stats().kernels_launched == 1);
    const auto ge = es.to_host(), gy = ys.to_host();
    const auto gd = yd.to_host();
    std::vector<LD> want(h.size()), tol(h.size());
    for (const auto& row : rows_of(d, 1)) patterns()[3].host(h, row, want, tol);  // softmax
    for (const auto& row : rows_of(d, 1)) {
      const float mx = float(row_max(h, row));
      for (auto i : row) {
        const std::size_t k = std::size_t(i);
        INFO("rows of " << m << ", element " << k << ": x " << h[k] << ", exp " << ge[k] << ", softmax " << gy[k]);
        const LD ex = std::exp(LD(h[k] - mx));  // x - max rounded in float, as the device rounds it
        REQUIRE(close(ge[k], ex, 4 * eps * ex));  // OpenCL's exp: 3 ulp
        REQUIRE(close(gy[k], want[k], tol[k]));
        REQUIRE((std::isnan(gd[k]) ? std::isnan(gy[k]) : gd[k] == double(gy[k])));
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
