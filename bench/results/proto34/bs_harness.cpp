// Times a Black-Scholes kernel as fusecl generates it (issue 13, thirty-fourth session):
//   bs_harness FILE OPTIONS log2n reps
// The kernel takes (out0, out1, in0, in1, in2, [29 float scalars], long n, long off0, long off1, long off5);
// FILE's kernel may instead have its scalars as literals (no scalar arguments): the harness counts
// the kernel's arguments. Checks both outputs against a double host reference.
#include "harness.hpp"

#include <cmath>
#include <random>

int main(int argc, char** argv) {
  const char* opts = argv[2]; const long n = 1L << atoi(argv[3]); const int reps = atoi(argv[4]);
  Harness h = open_and_build(argv[1], opts);
  const cl_kernel k = h.k; const cl_uint nargs = h.nargs;
  const size_t N = size_t(n);
  std::vector<float> spot(N), strike(N), years(N); std::mt19937 g(1);
  std::uniform_real_distribution<float> ds(5, 30), dk(1, 100), dt(0.25f, 10);
  for (size_t i = 0; i < N; ++i) { spot[i] = ds(g); strike[i] = dk(g); years[i] = dt(g); }
  cl_mem in0 = upload(h, spot), in1 = upload(h, strike), in2 = upload(h, years);
  cl_mem out0 = output(h, N), out1 = output(h, N);
  const float rate = 0.02f, vol = 0.3f, pp = 0.2316419f, b1 = 0.319381530f, b2 = -0.356563782f, b3 = 1.781477937f,
              b4 = -1.821255978f, b5 = 1.330274429f, isq = 0.39894228040143267794f;
  const float sc[29] = {rate + 0.5f * vol * vol, vol, 0, isq, -0.5f, 1, 1, pp, b1, b2, b3, b4, b5, 1, -rate,
                        0, isq, -0.5f, 1, 1, pp, b1, b2, b3, b4, b5, 1, 1, 1};
  cl_uint a = 0;
  CK(clSetKernelArg(k, a++, sizeof out0, &out0)); CK(clSetKernelArg(k, a++, sizeof out1, &out1));
  CK(clSetKernelArg(k, a++, sizeof in0, &in0)); CK(clSetKernelArg(k, a++, sizeof in1, &in1)); CK(clSetKernelArg(k, a++, sizeof in2, &in2));
  if (nargs == 5 + 29 + 4) for (int i = 0; i < 29; ++i) CK(clSetKernelArg(k, a++, 4, &sc[i]));
  long zero = 0; CK(clSetKernelArg(k, a++, 8, &n)); for (int i = 0; i < 3; ++i) CK(clSetKernelArg(k, a++, 8, &zero));
  const long per = std::getenv("PER") ? atol(std::getenv("PER")) : 4;
  size_t gs = size_t((n + per - 1) / per), ls = 256; gs = (gs + ls - 1) / ls * ls;
  const std::vector<double> t = time_kernel(h, gs, ls, reps);
  const std::vector<float> c = download(h, out0, N), pu = download(h, out1, N);
  auto cdf = [&](double d) { double k1 = 1 / (1 + pp * std::fabs(d)); double u = isq * std::exp(-0.5 * d * d) * k1 * (b1 + k1 * (b2 + k1 * (b3 + k1 * (b4 + k1 * b5)))); return d < 0 ? u : 1 - u; };
  double worst = 0;
  for (size_t i = 0; i < N; i += 7) {
    double vs = vol * std::sqrt(double(years[i])), d1 = (std::log(double(spot[i]) / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / vs, d2 = d1 - vs;
    double ks = strike[i] * std::exp(-rate * double(years[i])), rc = spot[i] * cdf(d1) - ks * cdf(d2), rp = ks * (1 - cdf(d2)) - spot[i] * (1 - cdf(d1));
    worst = std::max({worst, std::fabs(c[i] - rc), std::fabs(pu[i] - rp)});
  }
  std::printf("%-24s args %2u n=2^%s median %8.1f us  best %8.1f us  worst abs err %.2e\n", argv[1], nargs, argv[3], t[t.size() / 2], t[0], worst);
}
