#include "support/row_patterns.hpp"

#include "support/each_check.hpp"
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

namespace fusecl::test {

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
                 // Positive inputs: the sum within a few ulp, one division. A
                 // split row's sum merges its segments' sums plainly (up to 65
                 // here, after each segment's two-level meet): 4 ulp held by
                 // luck of order (4.009 on one row of 4099 along axis 0 once a
                 // segment's meet took two levels), so 8.
                 for (auto i : row) {
                   want[std::size_t(i)] = LD(h[std::size_t(i)]) / s;
                   tol[std::size_t(i)] = 8 * eps * std::fabs(want[std::size_t(i)]) + LD(FLT_MIN);
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
                 // Scratch the size of the whole array, kept between rows: a
                 // fresh one a row made checking quadratic in the row count.
                 // Only this row's places are written, then read.
                 static thread_local std::vector<LD> ln, ln_tol;
                 static thread_local std::vector<float> y;
                 ln.resize(h.size()), ln_tol.resize(h.size()), y.resize(h.size());
                 host_layer_norm(h, row, ln, ln_tol);
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

void check_rows(const Pattern& pat, const std::vector<float>& h, const std::vector<float>& got, const Dims& d, int axis) {
  REQUIRE(got.size() == h.size());
  std::vector<LD> want(h.size()), tol(h.size());
  for (const auto& row : rows_of(d, axis)) pat.host(h, row, want, tol);
  // One assertion for the array, with the first element off described: an
  // INFO and a REQUIRE per element cost more than the kernel (8.9 million of
  // them in one test case, minutes under the sanitizers).
  for (std::size_t i = 0; i < h.size(); ++i)
    REQUIRE_EACH(close(got[i], want[i], tol[i]),
                 "element " << i << ": x " << h[i] << ", got " << got[i] << ", want " << double(want[i]) << " within " << double(tol[i]) << " (off by " << double((LD(got[i]) - want[i]) / want[i] / LD(FLT_EPSILON)) << " eps)");
  SUCCEED("all " << h.size() << " elements within their tolerance");
}

}  // namespace fusecl::test
