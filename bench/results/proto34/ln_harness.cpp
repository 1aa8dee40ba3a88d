// Times a layer norm's output kernel over a middle axis as fusecl generates
// it (ln_out.cl: (x - mean) / sqrt(var + eps), mean and var of shape (B, 1, K)
// read through strides (K, 0, 1)) and its variants (ln_variants.py), issue 13,
// thirty-fourth session:
//   ln_harness FILE OPTIONS B M K reps
#include "harness.hpp"

#include <cmath>
#include <random>

int main(int argc, char** argv) {
  const char* opts = argv[2]; const long B = atol(argv[3]), M = atol(argv[4]), K = atol(argv[5]); const int reps = atoi(argv[6]);
  Harness h = open_and_build(argv[1], opts);
  const cl_kernel k = h.k;
  const long n = B * M * K; const size_t N = size_t(n), S = size_t(B * K);
  std::vector<float> x(N), mean(S), var(S); std::mt19937 g(1); std::uniform_real_distribution<float> d(-4, 4), dv(0.5f, 2);
  for (auto& v : x) v = d(g);
  for (auto& v : mean) v = d(g);
  for (auto& v : var) v = dv(g);
  cl_mem in0 = upload(h, x), in1 = upload(h, mean), in2 = upload(h, var);
  cl_mem out = output(h, N);
  const float eps = 1e-5f; const long zero = 0, one = 1;
  cl_uint a = 0;
  CK(clSetKernelArg(k, a++, sizeof out, &out)); CK(clSetKernelArg(k, a++, sizeof in0, &in0)); CK(clSetKernelArg(k, a++, sizeof in1, &in1)); CK(clSetKernelArg(k, a++, sizeof in2, &in2));
  CK(clSetKernelArg(k, a++, 4, &eps));
  const long args[] = {n, B, M, K, zero, zero, K, zero, one, zero, K, zero, one};
  for (long v : args) CK(clSetKernelArg(k, a++, 8, &v));
  size_t gs = size_t(n / 4), ls = 256;
  const std::vector<double> t = time_kernel(h, gs, ls, reps);
  const std::vector<float> o = download(h, out, N);
  long bad = 0;
  for (size_t i = 0; i < N; i += 3) {
    const size_t b = i / size_t(M * K), kk = i % size_t(K), sidx = b * size_t(K) + kk;
    const float ref = (x[i] - mean[sidx]) / std::sqrt(var[sidx] + eps);
    if (o[i] != ref) ++bad;
  }
  std::printf("%-16s %ldx%ldx%ld median %8.1f us  best %8.1f us  mismatches %ld\n", argv[1], B, M, K, t[t.size() / 2], t[0], bad);
}
