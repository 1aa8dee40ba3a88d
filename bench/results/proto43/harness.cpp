// Forty-third session: kernel times of x + transpose(y) variants over 2048 x 2048 floats on the PoCL CPU device
// (event profiling; the result checked against the host). Build: g++ -O2 -std=c++20 harness.cpp -o harness -lOpenCL.
// v0.cl: the local-memory form as fusecl generated it; v1.cl: its staging loads specialised to a unit stride;
// v2.cl: 8 x 8 blocks turned in registers (2-D launch); gx.cl: the same in 1-D, X fastest, with the edge path;
// g1s.cl: 1-D in groups of 16 x 16 blocks (the form kept); flat.cl: x + y flat; vref.cl: x + y read by 8 x 8 blocks.
// x + transpose(y) kernels on the CPU: argv: file.cl global0 global1 local0 local1 [reps]
#include "../proto34/harness.hpp"
#include <cmath>
int main(int argc, char** argv) {
  const long D = 2048;
  Harness h = open_and_build(argv[1], "-cl-std=CL1.2 -DFCL_CPU");
  size_t g[2] = {size_t(atol(argv[2])), size_t(atol(argv[3]))}, l[2] = {size_t(atol(argv[4])), size_t(atol(argv[5]))};
  int reps = argc > 6 ? atoi(argv[6]) : 30;
  std::vector<float> x(D * D), y(D * D);
  for (long i = 0; i < D * D; ++i) { x[i] = float(i % 1000); y[i] = float((i * 7) % 1013) * 0.5f; }
  cl_mem mo = output(h, D * D), mx = upload(h, x), my = upload(h, y);
  long n = D * D, d0 = D, d1 = D, off0 = 0, off1 = 0, s0 = 1, s1 = D;
  cl_uint dv[2] = {0, 0};
  int a = 0;
  CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mo)); CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &mx)); CK(clSetKernelArg(h.k, a++, sizeof(cl_mem), &my));
  CK(clSetKernelArg(h.k, a++, 8, &n)); CK(clSetKernelArg(h.k, a++, 8, &d0)); CK(clSetKernelArg(h.k, a++, 8, &d1)); CK(clSetKernelArg(h.k, a++, 8, dv));
  CK(clSetKernelArg(h.k, a++, 8, &off0)); CK(clSetKernelArg(h.k, a++, 8, &off1)); CK(clSetKernelArg(h.k, a++, 8, &s0)); CK(clSetKernelArg(h.k, a++, 8, &s1));
  std::vector<double> all;
  for (int r = 0; r < reps; ++r) {
    cl_event ev; CK(clEnqueueNDRangeKernel(h.q, h.k, 2, nullptr, g, l, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
    cl_ulong t0, t1; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, nullptr);
    all.push_back((t1 - t0) * 1e-3); clReleaseEvent(ev);
  }
  std::sort(all.begin(), all.end());
  auto o = download(h, mo, D * D);
  long bad = 0;
  for (long r = 0; r < D; ++r) for (long c = 0; c < D; ++c) if (o[r * D + c] != x[r * D + c] + y[c * D + r]) ++bad;
  std::printf("%s: min %.0f med %.0f us, bad %ld\n", argv[1], all[0], all[all.size() / 2], bad);
}
