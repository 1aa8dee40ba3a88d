// Times a Black-Scholes kernel as fusecl generates it (issue 13, thirty-fourth session):
//   bs_harness FILE OPTIONS log2n reps
// The kernel takes (out0, out1, in0, in1, in2, [29 float scalars], long n, long off0, long off1, long off5);
// FILE's kernel may instead have its scalars as literals (no scalar arguments): the harness counts
// the kernel's arguments. Checks both outputs against a double host reference.
#define CL_TARGET_OPENCL_VERSION 120
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
#define CK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { std::printf("error %d at %s\n", e_, #x); std::exit(1); } } while (0)
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string src = ss.str();
  const char* opts = argv[2]; const long n = 1L << atoi(argv[3]); const int reps = atoi(argv[4]);
  cl_platform_id plats[8]; cl_uint np; CK(clGetPlatformIDs(8, plats, &np));
  cl_device_id dev = nullptr;
  for (cl_uint i = 0; i < np && !dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) != CL_SUCCESS) dev = nullptr; }
  if (!dev) for (cl_uint i = 0; i < np && !dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS) dev = nullptr; }
  cl_int e; cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e); CK(e);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e); CK(e);
  const char* s = src.c_str(); cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e); CK(e);
  if (clBuildProgram(p, 1, &dev, opts, nullptr, nullptr) != CL_SUCCESS) { static char log[200000]; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr); std::printf("%s\n", log); return 1; }
  cl_kernel k; cl_uint nk; CK(clCreateKernelsInProgram(p, 1, &k, &nk));
  if (const char* bin_file = std::getenv("HARNESS_BINARY")) {
    size_t bytes = 0; CK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, nullptr));
    std::vector<unsigned char> bin(bytes); unsigned char* bp = bin.data();
    CK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr));
    std::ofstream(bin_file, std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), std::streamsize(bytes));
  }
  cl_uint nargs; CK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr));
  const size_t N = size_t(n);
  std::vector<float> spot(N), strike(N), years(N); std::mt19937 g(1);
  std::uniform_real_distribution<float> ds(5, 30), dk(1, 100), dt(0.25f, 10);
  for (size_t i = 0; i < N; ++i) { spot[i] = ds(g); strike[i] = dk(g); years[i] = dt(g); }
  auto buf = [&](std::vector<float>& h) { cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, h.data(), &e); CK(e); return m; };
  cl_mem in0 = buf(spot), in1 = buf(strike), in2 = buf(years);
  cl_mem out0 = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 4, nullptr, &e); CK(e);
  cl_mem out1 = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 4, nullptr, &e); CK(e);
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
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cl_event ev; CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gs, &ls, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
    cl_ulong t0, t1; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, nullptr);
    t.push_back((t1 - t0) * 1e-3); clReleaseEvent(ev);
  }
  std::sort(t.begin(), t.end());
  std::vector<float> c(N), pu(N);
  CK(clEnqueueReadBuffer(q, out0, CL_TRUE, 0, N * 4, c.data(), 0, nullptr, nullptr));
  CK(clEnqueueReadBuffer(q, out1, CL_TRUE, 0, N * 4, pu.data(), 0, nullptr, nullptr));
  auto cdf = [&](double d) { double k1 = 1 / (1 + pp * std::fabs(d)); double u = isq * std::exp(-0.5 * d * d) * k1 * (b1 + k1 * (b2 + k1 * (b3 + k1 * (b4 + k1 * b5)))); return d < 0 ? u : 1 - u; };
  double worst = 0;
  for (size_t i = 0; i < N; i += 7) {
    double vs = vol * std::sqrt(double(years[i])), d1 = (std::log(double(spot[i]) / strike[i]) + (rate + 0.5 * vol * vol) * years[i]) / vs, d2 = d1 - vs;
    double ks = strike[i] * std::exp(-rate * double(years[i])), rc = spot[i] * cdf(d1) - ks * cdf(d2), rp = ks * (1 - cdf(d2)) - spot[i] * (1 - cdf(d1));
    worst = std::max({worst, std::fabs(c[i] - rc), std::fabs(pu[i] - rp)});
  }
  std::printf("%-24s args %2u n=2^%s median %8.1f us  best %8.1f us  worst abs err %.2e\n", argv[1], nargs, argv[3], t[t.size() / 2], t[0], worst);
}
