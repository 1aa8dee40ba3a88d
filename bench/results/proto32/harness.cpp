// HARNESS_BINARY=FILE also writes the program's binary (NVIDIA: PTX) there (thirty-third session).
// Times an OpenCL kernel k(out, in, long n, long m, long off0) over n rows of m floats.
//   harness FILE OPTIONS n m rows_per_group local reps
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
  const char* opts = argv[2]; long n = atol(argv[3]), m = atol(argv[4]), rpg = atol(argv[5]), local = atol(argv[6]); int reps = atoi(argv[7]);
  cl_platform_id plats[8]; cl_uint np; CK(clGetPlatformIDs(8, plats, &np));
  cl_device_id dev = nullptr;
  for (cl_uint i = 0; i < np && !dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) != CL_SUCCESS) dev = nullptr; }
  if (!dev) for (cl_uint i = 0; i < np && !dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS) dev = nullptr; }
  cl_int e; cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e); CK(e);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e); CK(e);
  const char* s = src.c_str(); cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e); CK(e);
  if (clBuildProgram(p, 1, &dev, opts, nullptr, nullptr) != CL_SUCCESS) { char log[20000]; clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr); std::printf("%s\n", log); return 1; }
  cl_kernel k = clCreateKernel(p, "k", &e); CK(e);
  if (const char* ptx = std::getenv("HARNESS_BINARY")) {  // the program's binary (NVIDIA: PTX) into this file
    size_t bytes = 0; CK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, nullptr));
    std::vector<unsigned char> bin(bytes); unsigned char* bp = bin.data();
    CK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr));
    std::ofstream(ptx, std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), std::streamsize(bytes));
  }
  const size_t N = size_t(n * m);
  std::vector<float> h(N); std::mt19937 g(1); std::uniform_real_distribution<float> d(-4, 4); for (auto& x : h) x = d(g);
  cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, h.data(), &e); CK(e);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 4, nullptr, &e); CK(e);
  long zero = 0;
  CK(clSetKernelArg(k, 0, sizeof out, &out)); CK(clSetKernelArg(k, 1, sizeof in, &in));
  CK(clSetKernelArg(k, 2, 8, &n)); CK(clSetKernelArg(k, 3, 8, &m)); CK(clSetKernelArg(k, 4, 8, &zero));
  size_t gs = size_t((n + rpg - 1) / rpg) * local, ls = size_t(local);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cl_event ev; CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gs, &ls, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
    cl_ulong a, b; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &a, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &b, nullptr);
    t.push_back((b - a) * 1e-3); clReleaseEvent(ev);
  }
  std::sort(t.begin(), t.end());
  std::vector<float> o(N); CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * 4, o.data(), 0, nullptr, nullptr));
  double worst = 0; long bad = 0;
  for (long r = 0; r < n; ++r) {
    double mx = -1e300; for (long j = 0; j < m; ++j) mx = std::max(mx, double(h[r * m + j]));
    double su = 0; for (long j = 0; j < m; ++j) su += std::exp(double(h[r * m + j]) - mx);
    for (long j = 0; j < m; ++j) { double ref = std::exp(double(h[r * m + j]) - mx) / su; double err = std::fabs(o[r * m + j] - ref) / ref; worst = std::max(worst, err); if (!(err < 1e-5)) ++bad; }
  }
  std::printf("%-12s m=%-5ld n=%-9ld median %8.1f us  best %8.1f us  worst rel err %.2e  bad %ld\n", argv[1], m, n, t[t.size() / 2], t[0], worst, bad);
}
