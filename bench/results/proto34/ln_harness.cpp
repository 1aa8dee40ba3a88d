// Times a layer norm's output kernel over a middle axis as fusecl generates
// it (ln_out.cl: (x - mean) / sqrt(var + eps), mean and var of shape (B, 1, K)
// read through strides (K, 0, 1)) and its variants (ln_variants.py), issue 13,
// thirty-fourth session:
//   ln_harness FILE OPTIONS B M K reps
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
  const char* opts = argv[2]; const long B = atol(argv[3]), M = atol(argv[4]), K = atol(argv[5]); const int reps = atoi(argv[6]);
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
  const long n = B * M * K; const size_t N = size_t(n), S = size_t(B * K);
  std::vector<float> x(N), mean(S), var(S); std::mt19937 g(1); std::uniform_real_distribution<float> d(-4, 4), dv(0.5f, 2);
  for (auto& v : x) v = d(g); for (auto& v : mean) v = d(g); for (auto& v : var) v = dv(g);
  auto buf = [&](std::vector<float>& h) { cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h.size() * 4, h.data(), &e); CK(e); return m; };
  cl_mem in0 = buf(x), in1 = buf(mean), in2 = buf(var);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 4, nullptr, &e); CK(e);
  const float eps = 1e-5f; const long zero = 0, one = 1;
  cl_uint a = 0;
  CK(clSetKernelArg(k, a++, sizeof out, &out)); CK(clSetKernelArg(k, a++, sizeof in0, &in0)); CK(clSetKernelArg(k, a++, sizeof in1, &in1)); CK(clSetKernelArg(k, a++, sizeof in2, &in2));
  CK(clSetKernelArg(k, a++, 4, &eps));
  const long args[] = {n, B, M, K, zero, zero, K, zero, one, zero, K, zero, one};
  for (long v : args) CK(clSetKernelArg(k, a++, 8, &v));
  size_t gs = size_t(n / 4), ls = 256;
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cl_event ev; CK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gs, &ls, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
    cl_ulong t0, t1; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, nullptr);
    t.push_back((t1 - t0) * 1e-3); clReleaseEvent(ev);
  }
  std::sort(t.begin(), t.end());
  std::vector<float> o(N); CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * 4, o.data(), 0, nullptr, nullptr));
  long bad = 0;
  for (size_t i = 0; i < N; i += 3) {
    const size_t b = i / size_t(M * K), kk = i % size_t(K), sidx = b * size_t(K) + kk;
    const float ref = (x[i] - mean[sidx]) / std::sqrt(var[sidx] + eps);
    if (o[i] != ref) ++bad;
  }
  std::printf("%-16s %ldx%ldx%ld median %8.1f us  best %8.1f us  mismatches %ld\n", argv[1], B, M, K, t[t.size() / 2], t[0], bad);
}
