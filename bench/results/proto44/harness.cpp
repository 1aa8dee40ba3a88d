// Forty-fourth session: kernel times of softmax over axis 0 (down the columns) of R x C floats on the PoCL CPU
// device (event profiling; the result checked against a double host reference). Every variant has the generated
// kernel's signature (out0, in0, n, m, rs, off0): n column vectors of 16, m rows, row stride rs.
// Build: g++ -O2 -std=c++20 harness.cpp -o harness -lOpenCL.
// Kernels: s0.cl as fusecl generated it (a work-item a vector of 16 columns, groups of 16: global 128, local 16);
// s2.cl and s4.cl W vectors a work-item (global 128 / W, local 1; -DW or edit W; s4's "#pragma unroll U" set by
// sed to 1 or 4); s3.cl s0 with a barrier after each row step. Variants timed by sed from these: s1 (s0 with
// "#undef FCL_CPU" first: exp again in the output phase), s0 in groups of 1 or 4 (reqd_work_group_size, c_ and
// o's group stride), s0 with "#pragma unroll 16", s0 cut after its first or second phase (storing the
// reduction, to time the phases).
// argv: file.cl global local [R C reps]
#include "../proto34/harness.hpp"
#include <cmath>
int main(int argc, char** argv) {
  const long R = argc > 4 ? atol(argv[4]) : 2048, C = argc > 5 ? atol(argv[5]) : 2048;
  const int reps = argc > 6 ? atoi(argv[6]) : 20;
  Harness h = open_and_build(argv[1], "-cl-std=CL1.2 -DFCL_CPU");
  size_t g = size_t(atol(argv[2])), l = size_t(atol(argv[3]));
  std::vector<float> x(R * C);
  unsigned s = 12345;
  for (auto& v : x) { s = s * 1664525u + 1013904223u; v = float(s >> 8) * 0x1.0p-24f * 8.0f - 4.0f; }
  cl_mem mo = output(h, R * C), mx = upload(h, x);
  long n = C / 16, m = R, rs = C, off0 = 0;
  int a = 0;
  CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mo)); CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mx));
  CK(clSetKernelArg(h.k, a++, 8, &n)); CK(clSetKernelArg(h.k, a++, 8, &m)); CK(clSetKernelArg(h.k, a++, 8, &rs));
  CK(clSetKernelArg(h.k, a++, 8, &off0));
  const auto t = time_kernel(h, g, l, reps);
  auto o = download(h, mo, R * C);
  std::vector<double> mx_(C, -INFINITY), sm(C, 0.0);
  for (long r = 0; r < R; ++r) for (long c = 0; c < C; ++c) mx_[c] = std::max(mx_[c], double(x[r * C + c]));
  for (long r = 0; r < R; ++r) for (long c = 0; c < C; ++c) sm[c] += std::exp(double(x[r * C + c]) - mx_[c]);
  double worst = 0;
  for (long r = 0; r < R; ++r) for (long c = 0; c < C; ++c) {
    const double ref = std::exp(double(x[r * C + c]) - mx_[c]) / sm[c];
    worst = std::max(worst, std::fabs(o[r * C + c] - ref) / ref);
  }
  std::printf("%s: min %.0f med %.0f us, worst rel err %.2e\n", argv[1], t[0], t[t.size() / 2], worst);
}
