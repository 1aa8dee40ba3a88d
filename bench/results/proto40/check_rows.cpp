// Scratch: plain reductions over short rows against the host, for the prototype forms.
#include <fusecl/fusecl.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
using namespace fusecl;
int main() {
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-4, 4);
  int bad = 0, cases = 0;
  for (std::int64_t m : {1, 2, 3, 4, 5, 8, 12, 16, 17, 24, 31, 32, 33, 64, 100, 128, 256})
    for (std::int64_t rows : {1, 33, 4097, 70001}) {
      std::vector<float> h(std::size_t(rows * m));
      for (auto& v : h) v = u(g);
      for (std::size_t i = 0; i < h.size(); i += 977) h[i] = (i / 977) % 3 == 0 ? NAN : (i / 977) % 3 == 1 ? INFINITY : -INFINITY;
      auto x = from_host(h, {rows, m});
      for (int op = 0; op < 4; ++op) {
        Array<float> y = op == 0 ? sum(x, 1) : op == 1 ? max(x, 1) : op == 2 ? min(x, 1) : var(x, 1);
        std::vector<float> r = y.to_host();
        ++cases;
        int wrong = 0;
        for (std::int64_t o = 0; o < rows; ++o) {
          long double s = 0, mx = -INFINITY, mn = INFINITY, sq = 0; bool nan = false;
          for (std::int64_t k = 0; k < m; ++k) { float v = h[std::size_t(o * m + k)]; if (std::isnan(v)) nan = true; s += v; mx = std::max<long double>(mx, v); mn = std::min<long double>(mn, v); }
          long double mean = s / m;
          for (std::int64_t k = 0; k < m; ++k) { long double d = h[std::size_t(o * m + k)] - mean; sq += d * d; }
          long double want = op == 0 ? s : op == 1 ? mx : op == 2 ? mn : sq / m;
          if (nan) want = NAN;
          float got = r[std::size_t(o)];
          bool ok = std::isnan((double)want) ? std::isnan(got) : std::isinf((double)want) ? got == (float)want
                  : std::fabs(got - (double)want) <= 1e-5 * (1 + std::fabs((double)want)) + (op == 0 ? 1e-6 * m * 4 : 0);
          if (!ok && wrong++ < 2) std::printf("  op %d rows %lld m %lld o %lld got %g want %Lg\n", op, (long long)rows, (long long)m, (long long)o, got, want);
        }
        if (wrong) ++bad;
      }
    }
  std::printf("check_rows: %d of %d cases wrong\n", bad, cases);
  return bad != 0;
}
