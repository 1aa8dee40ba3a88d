// The host's reference for var, std and mean of float64 rows (NumPy's two
// passes in long double) and the rows the float64 moment tests feed.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace fusecl::test {

// NumPy's var of each row of `len`: the mean, then the mean of squared
// deviations, in long double, with the corrected two-pass term (the sum of
// the deviations squared over n): long double's mean of values near 2^50 or
// 3e12 is off by 2^-64 of them, which alone put the plain two passes tens of
// float64 ulps from the exact variance.
struct RowMoments {
  std::vector<long double> mean, var, abs_mean;  // abs_mean: of |x|, the scale of a mean's rounding
};
template <class T>
inline RowMoments per_row(const std::vector<T>& h, std::int64_t len, int ddof) {
  RowMoments r;
  for (std::size_t at = 0; at + std::size_t(len) <= h.size(); at += std::size_t(len)) {
    long double s = 0, q = 0, c = 0, a = 0;
    for (std::int64_t i = 0; i < len; ++i) {
      s += static_cast<long double>(h[at + std::size_t(i)]);
      a += std::fabs(static_cast<long double>(h[at + std::size_t(i)]));
    }
    r.abs_mean.push_back(a / static_cast<long double>(len));
    const long double mu = s / static_cast<long double>(len);
    for (std::int64_t i = 0; i < len; ++i) {
      const long double d = static_cast<long double>(h[at + std::size_t(i)]) - mu;
      q += d * d;
      c += d;
    }
    r.mean.push_back(mu + c / static_cast<long double>(len));
    r.var.push_back((q - c * c / static_cast<long double>(len)) / static_cast<long double>(len - ddof));
  }
  return r;
}

// Within `ulps` float64 ulps of the long double value.
inline bool close(double got, long double want, double ulps) {
  if (std::isnan(double(want))) return std::isnan(got);
  if (std::getenv("SHOW_ULPS")) std::printf("ulps %.2f got %.17g want %.17Lg\n", double(std::fabs(static_cast<long double>(got) - want) / (DBL_EPSILON * std::fabs(want))), got, want);
  return std::fabs(static_cast<long double>(got) - want) <= ulps * DBL_EPSILON * std::fabs(want) + DBL_MIN;
}

// n doubles around `centre`, uniform within `spread`, every lane different;
// with `outliers`, the first 64 values of each row and every 97th after
// them far out (the shifts of the first blocks, and values inside others).
inline std::vector<double> rows_of(std::int64_t rows, std::int64_t len, double centre, double spread, bool outliers, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-spread, spread);
  std::vector<double> h(std::size_t(rows * len));
  for (auto& v : h) v = centre + u(rng);
  if (outliers)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t i = 0; i < len; ++i)
        if (i < 64 || i % 97 == 0) h[std::size_t(r * len + i)] += (i % 2 ? 3e4 : -5e4) * spread;
  return h;
}

}  // namespace fusecl::test
