// Session 47: several row kernels of one signature (out0, in0, [float scalars], n, m_, off0), softmax or layer
// norm over n = 2^26 / m rows of m floats on the first GPU, timed interleaved (event profiling), each one's
// output compared bit for bit with the first's. Build: g++ -O2 -std=c++20 rows_multi.cpp -o rows_multi -lOpenCL.
// argv: m rows_per_group scalars(0 or 3: layer norm's m, m, 1e-5) reps a.cl b.cl ...; b.cl@R: b's groups hold R rows
// HARNESS_OPTIONS: build options (fusecl's on an H200: "-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt").
// HARNESS_OFF0: the input's offset in floats (default 0; 4 shifts every row by 16 bytes).
#include "../proto34/harness.hpp"
#include <cstring>
int main(int argc, char** argv) {
  const long m = atol(argv[1]), rpg = atol(argv[2]), ns = atol(argv[3]);
  const int reps = atoi(argv[4]);
  const long n = (1L << 26) / m;
  const char* env_options = std::getenv("HARNESS_OPTIONS");
  const char* options = env_options && *env_options ? env_options : "-cl-std=CL1.2";
  std::vector<long> rows{rpg};
  for (int i = 5; i < argc; ++i)
    if (char* at = std::strchr(argv[i], '@')) { *at = 0; if (i > 5) rows.push_back(atol(at + 1)); } else if (i > 5) rows.push_back(rpg);
  Harness a = open_and_build(argv[5], options);
  std::vector<Harness> hs{a};
  for (int i = 6; i < argc; ++i) {
    std::ifstream f(argv[i]); std::stringstream ss; ss << f.rdbuf(); const std::string src = ss.str(); const char* sp = src.c_str();
    cl_int e; cl_program p = clCreateProgramWithSource(a.ctx, 1, &sp, nullptr, &e); CK(e);
    if (clBuildProgram(p, 1, &a.dev, options, nullptr, nullptr) != CL_SUCCESS) { std::printf("%s: build failed\n", argv[i]); return 1; }
    Harness b = a; cl_uint nk; CK(clCreateKernelsInProgram(p, 1, &b.k, &nk)); hs.push_back(b);
  }
  const char* off_env = std::getenv("HARNESS_OFF0");
  const long off = off_env ? atol(off_env) : 0;
  std::vector<float> x(size_t(n * m + off));
  unsigned s = 12345;
  for (auto& v : x) { s = s * 1664525u + 1013904223u; v = float(s >> 8) * 0x1.0p-24f * 8.0f - 4.0f; }
  cl_mem in = upload(a, x);
  std::vector<cl_mem> outs;
  const float sc[3] = {float(m), float(m), 1e-5f};
  long m_ = m, off0 = off;
  for (auto& h : hs) {
    outs.push_back(output(a, size_t(n * m + 16)));  // room for a variant storing 16 floats further on
    int k = 0;
    CK(clSetKernelArg(h.k, k++, sizeof(cl_mem), &outs.back())); CK(clSetKernelArg(h.k, k++, sizeof(cl_mem), &in));
    for (long j = 0; j < ns; ++j) CK(clSetKernelArg(h.k, k++, 4, &sc[j]));
    CK(clSetKernelArg(h.k, k++, 8, &n)); CK(clSetKernelArg(h.k, k++, 8, &m_)); CK(clSetKernelArg(h.k, k++, 8, &off0));
  }
  std::vector<std::vector<double>> t(hs.size());
  for (int r = 0; r < 6; ++r)
    for (size_t i = 0; i < hs.size(); ++i) { auto v = time_kernel(hs[i], size_t((n + rows[i] - 1) / rows[i] * 128), 128, reps / 6); t[i].insert(t[i].end(), v.begin(), v.end()); }
  const auto ref = download(a, outs[0], size_t(n * m));
  for (size_t i = 0; i < hs.size(); ++i) {
    const auto o = download(a, outs[i], size_t(n * m));
    long diff = 0;
    for (size_t j = 0; j < o.size(); ++j) diff += std::memcmp(&o[j], &ref[j], 4) != 0;
    std::sort(t[i].begin(), t[i].end());
    const char* name = std::strrchr(argv[5 + i], '/');
    std::printf("%-28s min %6.1f med %6.1f us  differing %ld\n", name ? name + 1 : argv[5 + i], t[i][0], t[i][t[i].size() / 2], diff);
  }
}
