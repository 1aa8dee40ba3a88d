// Forty-fifth session: kernel times of x + transpose(y), R x C floats, on the PoCL CPU device (event profiling;
// the result checked exactly). Every variant has the generated kernel's signature (t0.cl, fusecl's 8x8 register
// tile in groups of 256): out0, in0, in1, n, d0, d1, dv1, off0, off1, st1_0, st1_1.
// Build: g++ -O2 -std=c++20 transpose_harness.cpp -o transpose_harness -lOpenCL.
// argv: file.cl global local [R C reps]
#include "../proto34/harness.hpp"
int main(int argc, char** argv) {
  const long R = argc > 4 ? atol(argv[4]) : 2048, C = argc > 5 ? atol(argv[5]) : 2048;
  const int reps = argc > 6 ? atoi(argv[6]) : 20;
  Harness h = open_and_build(argv[1], "-cl-std=CL1.2");
  size_t g = size_t(atol(argv[2])), l = size_t(atol(argv[3]));
  std::vector<float> x(R * C), y(R * C);
  unsigned s = 12345;
  for (auto& v : x) { s = s * 1664525u + 1013904223u; v = float(s >> 8); }
  for (auto& v : y) { s = s * 1664525u + 1013904223u; v = float(s >> 8) * 0x1.0p-24f; }
  cl_mem mo = output(h, R * C), mx = upload(h, x), my = upload(h, y);
  long n = R * C, d0 = R, d1 = C, off0 = 0, off1 = 0, st0 = 1, st1 = R;
  cl_uint dv[2] = {0, 0};
  int a = 0;
  CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mo)); CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mx));
  CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &my));
  CK(clSetKernelArg(h.k, a++, 8, &n)); CK(clSetKernelArg(h.k, a++, 8, &d0)); CK(clSetKernelArg(h.k, a++, 8, &d1));
  CK(clSetKernelArg(h.k, a++, 8, dv)); CK(clSetKernelArg(h.k, a++, 8, &off0)); CK(clSetKernelArg(h.k, a++, 8, &off1));
  CK(clSetKernelArg(h.k, a++, 8, &st0)); CK(clSetKernelArg(h.k, a++, 8, &st1));
  const auto t = time_kernel(h, g, l, reps);
  auto o = download(h, mo, R * C);
  long bad = 0;
  for (long r = 0; r < R; ++r) for (long c = 0; c < C; ++c) bad += o[r * C + c] != x[r * C + c] + y[c * R + r];
  std::printf("%s g %zu l %zu: min %.0f med %.0f us (%.1f GB/s), %ld wrong\n", argv[1], g, l, t[0], t[t.size() / 2],
              3.0 * 4 * R * C / t[0] * 1e-3, bad);
}
