// Kernel lab: times hand-written argmax variants (whole.cl, column.cl) on
// the first GPU (else first device), checks each answer against the host.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#define CK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: %d (line %d)\n", #x, e_, __LINE__); exit(1); } } while (0)
static std::string slurp(const char* f) { std::ifstream s(f); std::stringstream b; b << s.rdbuf(); return b.str(); }
cl_context ctx; cl_device_id dev; cl_command_queue q;
cl_program build(const std::string& src, const std::string& opts) {
  const char* p = src.c_str(); cl_int e;
  cl_program pr = clCreateProgramWithSource(ctx, 1, &p, nullptr, &e); CK(e);
  std::string o = "-cl-std=CL3.0 " + opts;
  if (clBuildProgram(pr, 1, &dev, o.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    size_t n; clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, 0); clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    fprintf(stderr, "build failed (%s):\n%s\n", opts.c_str(), log.c_str()); return nullptr;
  }
  return pr;
}
double ev_us(cl_event e) { cl_ulong a, b; clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &a, nullptr);
  clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &b, nullptr); return (b - a) / 1e3; }
int main(int argc, char** argv) {
  cl_platform_id pl[8]; cl_uint np; CK(clGetPlatformIDs(8, pl, &np));
  bool found = false;
  for (cl_uint i = 0; i < np && !found; ++i) if (clGetDeviceIDs(pl[i], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) == CL_SUCCESS) found = true;
  if (!found) CK(clGetDeviceIDs(pl[0], CL_DEVICE_TYPE_ALL, 1, &dev, nullptr));
  char name[256]; clGetDeviceInfo(dev, CL_DEVICE_NAME, 256, name, nullptr); printf("# %s\n", name);
  cl_int e; ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e); CK(e);
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, qp, &e); CK(e);
  const long N = argc > 1 ? atol(argv[1]) : (1L << 26);
  const int reps = 20;
  std::vector<float> h(N); std::mt19937 g(7); std::uniform_real_distribution<float> d(-4, 4);
  for (auto& v : h) v = d(g);
  cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, h.data(), &e); CK(e);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 65536 * 8, nullptr, &e); CK(e);
  cl_mem scratch = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 << 20, nullptr, &e); CK(e);
  cl_mem cnt = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, nullptr, &e); CK(e);
  { std::vector<unsigned> z(256, 0); CK(clEnqueueWriteBuffer(q, cnt, CL_TRUE, 0, 1024, z.data(), 0, nullptr, nullptr)); }
  const long zero = 0;
  // ---- whole array
  const std::string wsrc = slurp("whole.cl"), csrc = slurp("column.cl");
  long best = 0; for (long i = 1; i < N; ++i) if (h[i] > h[best]) best = i;
  std::vector<std::string> wv = {"-DU=1 -DPEEL=0 -DIDX32=0", "-DU=1 -DPEEL=1 -DIDX32=0", "-DU=1 -DPEEL=1 -DIDX32=1",
                                 "-DU=2 -DPEEL=1 -DIDX32=1", "-DU=4 -DPEEL=1 -DIDX32=1", "-DU=2 -DPEEL=0 -DIDX32=1", "-DU=4 -DPEEL=0 -DIDX32=1"};
  for (int L : {256, 512})
    for (auto& v : wv) {
      cl_program p = build(wsrc, v + " -DL=" + std::to_string(L)); if (!p) continue;
      cl_kernel k = clCreateKernel(p, "whole", &e); CK(e);
      for (long G : {528L, 1056L, 2112L, 4224L}) {
        if (G * L > 4224L * 256) continue;
        const long one = 1;
        CK(clSetKernelArg(k, 0, sizeof(cl_mem), &out)); CK(clSetKernelArg(k, 1, sizeof(cl_mem), &in));
        CK(clSetKernelArg(k, 2, 8, &one)); CK(clSetKernelArg(k, 3, 8, &N)); CK(clSetKernelArg(k, 4, sizeof(cl_mem), &scratch));
        CK(clSetKernelArg(k, 5, 8, &G)); CK(clSetKernelArg(k, 6, sizeof(cl_mem), &cnt)); CK(clSetKernelArg(k, 7, 8, &zero));
        size_t gs = size_t(G * L), ls = size_t(L);
        std::vector<double> t;
        for (int r = 0; r < reps + 3; ++r) {
          cl_event ev; CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gs, &ls, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
          if (r >= 3) t.push_back(ev_us(ev)); clReleaseEvent(ev);
        }
        long got = -7; CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 8, &got, 0, nullptr, nullptr));
        std::sort(t.begin(), t.end());
        printf("whole  %-28s L=%d G=%-5ld median %7.1f us best %7.1f %s\n", v.c_str(), L, G, t[t.size() / 2], t[0], got == best ? "ok" : "WRONG");
        fflush(stdout);
      }
      clReleaseKernel(k); clReleaseProgram(p);
    }
  // ---- columns: m rows x n columns
  for (auto [m, n] : std::vector<std::pair<long, long>>{{4096, N / 4096}, {16384, N / 16384}, {1024, N / 1024}}) {
    std::vector<long> want(n, 0);
    for (long r = 1; r < m; ++r) for (long c = 0; c < n; ++c) if (h[r * n + c] > h[want[c] * n + c]) want[c] = r;
    for (int W : {1, 2, 4})
      for (int R : {8, 16})
        for (int UN : {0, 4}) {
          std::string opts = "-DW=" + std::to_string(W) + " -DR=" + std::to_string(R) + " -DUNROLL=" + std::to_string(UN);
          cl_program p = build(csrc, opts); if (!p) continue;
          cl_kernel k = clCreateKernel(p, "column", &e); CK(e);
          cl_kernel f = clCreateKernel(p, "finish", &e); CK(e);
          const long blocks = (n + 32 * W - 1) / (32 * W);
          for (long G : {1L, 2L, 4L, 8L, 16L}) {
            if (blocks * G > 8 * 528) continue;
            CK(clSetKernelArg(k, 0, sizeof(cl_mem), &out)); CK(clSetKernelArg(k, 1, sizeof(cl_mem), &in));
            CK(clSetKernelArg(k, 2, 8, &n)); CK(clSetKernelArg(k, 3, 8, &m)); CK(clSetKernelArg(k, 4, sizeof(cl_mem), &scratch));
            CK(clSetKernelArg(k, 5, 8, &G)); CK(clSetKernelArg(k, 6, 8, &zero));
            CK(clSetKernelArg(f, 0, sizeof(cl_mem), &out)); CK(clSetKernelArg(f, 1, 8, &n)); CK(clSetKernelArg(f, 2, sizeof(cl_mem), &scratch));
            CK(clSetKernelArg(f, 3, 8, &G));
            size_t gs[2] = {size_t(blocks * G * 32), size_t(R)}, ls[2] = {32, size_t(R)};
            size_t fg = size_t((n + 255) / 256 * 256), fl = 256;
            std::vector<double> t;
            for (int r = 0; r < reps + 3; ++r) {
              cl_event ev, ev2; CK(clEnqueueNDRangeKernel(q, k, 2, nullptr, gs, ls, 0, nullptr, &ev));
              double us = 0;
              if (G > 1) { CK(clEnqueueNDRangeKernel(q, f, 1, nullptr, &fg, &fl, 0, nullptr, &ev2)); CK(clWaitForEvents(1, &ev2));
                cl_ulong a, b; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &a, nullptr);
                clGetEventProfilingInfo(ev2, CL_PROFILING_COMMAND_END, 8, &b, nullptr); us = (b - a) / 1e3; clReleaseEvent(ev2); }
              else { CK(clWaitForEvents(1, &ev)); us = ev_us(ev); }
              clReleaseEvent(ev);
              if (r >= 3) t.push_back(us);
            }
            std::vector<long> got(n); CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 8, got.data(), 0, nullptr, nullptr));
            std::sort(t.begin(), t.end());
            printf("column %ldx%ld %-22s G=%-3ld groups=%-5ld median %7.1f us best %7.1f %s\n", m, n, opts.c_str(), G, blocks * G, t[t.size() / 2], t[0],
                   got == want ? "ok" : "WRONG");
            fflush(stdout);
          }
          clReleaseKernel(k); clReleaseKernel(f); clReleaseProgram(p);
        }
  }
}
