// Forty-fourth session: two row kernels of the same signature (out0, in0, [float scalars], n, m_, off0), softmax or
// layer norm over n rows of m floats on the first GPU, timed interleaved by event profiling, their outputs compared
// bit for bit. Build: g++ -O2 -std=c++20 rows_harness.cpp -o rows_harness -lOpenCL.
// argv: a.cl b.cl m rows_per_group scalars(0 or 3: layer norm's m, m, 1e-5) [reps]; rows_per_group A:B for kernels
// whose groups hold different rows (the forty-fifth session's proto45/run5.sh and run6.sh)
#include "../proto34/harness.hpp"
#include <cstdlib>
#include <cstring>
int main(int argc, char** argv) {
  const long m = atol(argv[3]), ns = atol(argv[5]);
  const char* colon = std::strchr(argv[4], ':');
  const long rpg[2] = {atol(argv[4]), colon ? atol(colon + 1) : atol(argv[4])};
  const int reps = argc > 6 ? atoi(argv[6]) : 50;
  const long n = (1L << 26) / m;
  // HARNESS_OPTIONS: the build options (fusecl's own on a GPU with correctly
  // rounded division: "-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt";
  // src/launch.cpp). Unset: "-cl-std=CL1.2", as every run before session 46 call 12.
  const char* env_options = std::getenv("HARNESS_OPTIONS");
  const char* options = env_options && *env_options ? env_options : "-cl-std=CL1.2";
  Harness a = open_and_build(argv[1], options);
  std::vector<float> x(size_t(n * m));
  unsigned s = 12345;
  for (auto& v : x) { s = s * 1664525u + 1013904223u; v = float(s >> 8) * 0x1.0p-24f * 8.0f - 4.0f; }
  std::vector<Harness> hs{a};
  // b shares a's context: build it there.
  {
    std::ifstream f(argv[2]); std::stringstream ss; ss << f.rdbuf(); const std::string src = ss.str(); const char* sp = src.c_str();
    cl_int e; cl_program p = clCreateProgramWithSource(a.ctx, 1, &sp, nullptr, &e); CK(e);
    if (clBuildProgram(p, 1, &a.dev, options, nullptr, nullptr) != CL_SUCCESS) { std::printf("build failed\n"); return 1; }
    Harness b = a; cl_uint nk; CK(clCreateKernelsInProgram(p, 1, &b.k, &nk)); hs.push_back(b);
  }
  cl_mem in = upload(a, x), outs[2] = {output(a, size_t(n * m)), output(a, size_t(n * m))};
  const float sc[3] = {float(m), float(m), 1e-5f};
  long m_ = m, off0 = 0;
  for (int i = 0; i < 2; ++i) {
    int k = 0;
    CK(clSetKernelArg(hs[i].k, k++, sizeof(cl_mem), &outs[i])); CK(clSetKernelArg(hs[i].k, k++, sizeof(cl_mem), &in));
    for (long j = 0; j < ns; ++j) CK(clSetKernelArg(hs[i].k, k++, 4, &sc[j]));
    CK(clSetKernelArg(hs[i].k, k++, 8, &n)); CK(clSetKernelArg(hs[i].k, k++, 8, &m_)); CK(clSetKernelArg(hs[i].k, k++, 8, &off0));
  }
  std::vector<double> t[2];
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 2; ++i) { auto v = time_kernel(hs[i], size_t((n + rpg[i] - 1) / rpg[i] * 128), 128, reps / 4); t[i].insert(t[i].end(), v.begin(), v.end()); }
  auto oa = download(a, outs[0], size_t(n * m)), ob = download(a, outs[1], size_t(n * m));
  long diff = 0;
  for (size_t i = 0; i < oa.size(); ++i) diff += std::memcmp(&oa[i], &ob[i], 4) != 0;
  for (int i = 0; i < 2; ++i) { std::sort(t[i].begin(), t[i].end()); std::printf("%s: min %.1f med %.1f us\n", argv[1 + i], t[i][0], t[i][t[i].size() / 2]); }
  std::printf("outputs differing: %ld of %zu\n", diff, oa.size());
}
