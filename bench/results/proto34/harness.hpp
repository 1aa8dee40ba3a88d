// What the thirty-fourth session's kernel harnesses share (bs_harness.cpp,
// ln_harness.cpp): the first GPU (else any device), a kernel file built with
// the given options (HARNESS_BINARY=FILE also writes the program's binary,
// NVIDIA's PTX, for bench/sass_count.py), buffers, and kernel times from
// event profiling.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#define CK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { std::printf("error %d at %s\n", e_, #x); std::exit(1); } } while (0)

struct Harness {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_kernel k = nullptr;  // the file's first kernel
  cl_uint nargs = 0;
};

inline Harness open_and_build(const char* file, const char* opts) {
  Harness h;
  std::ifstream f(file); std::stringstream ss; ss << f.rdbuf(); const std::string src = ss.str();
  cl_platform_id plats[8]; cl_uint np; CK(clGetPlatformIDs(8, plats, &np));
  for (cl_uint i = 0; i < np && !h.dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &h.dev, &nd) != CL_SUCCESS) h.dev = nullptr; }
  if (!h.dev) for (cl_uint i = 0; i < np && !h.dev; ++i) { cl_uint nd = 0; if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &h.dev, &nd) != CL_SUCCESS) h.dev = nullptr; }
  cl_int e; h.ctx = clCreateContext(nullptr, 1, &h.dev, nullptr, nullptr, &e); CK(e);
  h.q = clCreateCommandQueue(h.ctx, h.dev, CL_QUEUE_PROFILING_ENABLE, &e); CK(e);
  const char* s = src.c_str(); cl_program p = clCreateProgramWithSource(h.ctx, 1, &s, nullptr, &e); CK(e);
  if (clBuildProgram(p, 1, &h.dev, opts, nullptr, nullptr) != CL_SUCCESS) {
    static char log[200000]; clGetProgramBuildInfo(p, h.dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr); std::printf("%s\n", log); std::exit(1);
  }
  cl_uint nk; CK(clCreateKernelsInProgram(p, 1, &h.k, &nk));
  CK(clGetKernelInfo(h.k, CL_KERNEL_NUM_ARGS, sizeof h.nargs, &h.nargs, nullptr));
  if (const char* bin_file = std::getenv("HARNESS_BINARY")) {
    size_t bytes = 0; CK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, nullptr));
    std::vector<unsigned char> bin(bytes); unsigned char* bp = bin.data();
    CK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr));
    std::ofstream(bin_file, std::ios::binary).write(reinterpret_cast<const char*>(bin.data()), std::streamsize(bytes));
  }
  return h;
}

inline cl_mem upload(Harness& h, std::vector<float>& data) {
  cl_int e; cl_mem m = clCreateBuffer(h.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data.size() * 4, data.data(), &e); CK(e);
  return m;
}
inline cl_mem output(Harness& h, size_t floats) {
  cl_int e; cl_mem m = clCreateBuffer(h.ctx, CL_MEM_WRITE_ONLY, floats * 4, nullptr, &e); CK(e);
  return m;
}
inline std::vector<float> download(Harness& h, cl_mem m, size_t floats) {
  std::vector<float> o(floats); CK(clEnqueueReadBuffer(h.q, m, CL_TRUE, 0, floats * 4, o.data(), 0, nullptr, nullptr));
  return o;
}

/// Kernel times in µs of `reps` launches, sorted.
inline std::vector<double> time_kernel(Harness& h, size_t global, size_t local, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cl_event ev; CK(clEnqueueNDRangeKernel(h.q, h.k, 1, nullptr, &global, &local, 0, nullptr, &ev)); CK(clWaitForEvents(1, &ev));
    cl_ulong t0, t1; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &t0, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &t1, nullptr);
    t.push_back((t1 - t0) * 1e-3); clReleaseEvent(ev);
  }
  std::sort(t.begin(), t.end());
  return t;
}
