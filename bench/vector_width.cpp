// Confirms the vector width fusecl picks per device: the demo expression
// sqrt(x*x+y*y)*sin(x)+exp(-y)*0.5f, fused and on the device, generated with
// each vector size from scalar float (4 bytes) to float16 (64 bytes). The
// default is 64 bytes on CPUs and 16 on GPUs (src/launch.cpp).
//
//   BM_vector_width/<bytes>/<log2>   eff_bw and of_copy as in the suite
#include "bench/measure.hpp"
#include "bench/options.hpp"
#include "bench/ways.hpp"

#include <fusecl/fusecl.hpp>

#include "src/launch.hpp"

#include <vector>

namespace fusecl_bench {

namespace {

void run_width(benchmark::State& state, int bytes, int log2) {
  FusionScope fusion(true);
  const std::size_t n = std::size_t(1) << log2;
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = float(i % 1000) * 0.004f - 2.0f;
    hy[i] = float(i % 777) * 0.005f - 2.0f;
  }
  const auto x = fusecl::from_host(hx), y = fusecl::from_host(hy);
  fusecl::detail::set_vector_bytes(bytes);
  auto expr = [&] { return fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f; };
  fusecl::eval(expr());  // builds this width's kernel
  fusecl::finish();
  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    auto z = expr();
    fusecl::eval(z);
    fusecl::finish();
  }
  fusecl::detail::set_vector_bytes(0);
  report_counters(state, before, std::int64_t(n), 3.0 * double(n) * sizeof(float));
}

}  // namespace

void register_vector_width_benchmarks(const Options& options) {
  const int log2 = options.log2_sizes().back();
  for (int bytes : {4, 8, 16, 32, 64})
    register_benchmark("BM_vector_width/" + std::to_string(bytes) + "/" + std::to_string(log2),
                       [bytes, log2](benchmark::State& s) { run_width(s, bytes, log2); });
}

}  // namespace fusecl_bench
