// What fusecl costs per evaluation when the device has almost nothing to do:
// x*2 + 1 on 1024 floats already on the device, its kernel cached. The time
// is then the host's: building the graph, hashing it to find the cached
// kernel, setting arguments, enqueueing, the pool, and (in the first variant)
// the round trip of waiting for the device.
//
//   BM_overhead/fused_device_sync/10   eval + fusecl::finish() per evaluation (latency)
//   BM_overhead/fused_device_async/10  64 evals, then one finish (throughput of queueing)
//   BM_overhead/black_scholes_async/10 the same with Black-Scholes (about 90 graph nodes,
//                                      two results): building, keying or scheduling,
//                                      launching and releasing a large graph; with
//                                      FUSECL_PLAN_CACHE=0 it is scheduled every time
//   BM_overhead/black_scholes_rates_async/10
//                                      the same at a new interest rate every call (a
//                                      server pricing each request at its own rate):
//                                      scalars' values are not part of the plan key
//   BM_overhead/black_scholes_fuse_rates_async/10
//                                      the same through fusecl::fuse, the rate an
//                                      argument: replayed with each call's value
//   BM_overhead/black_scholes_build/10 Black-Scholes's graph built and dropped, never
//                                      evaluated: the share of eval's host time that
//                                      is making nodes (the rest is keying, replay,
//                                      launch and release)
//
// items_per_second is evaluations per second in all.
#include "bench/check.hpp"
#include "bench/measure.hpp"
#include "bench/ways.hpp"
#include "bench/workloads.hpp"

#include <fusecl/fusecl.hpp>

#include <vector>

namespace fusecl_bench {

namespace {

constexpr int kLog2 = 10;
constexpr int kBatch = 64;

fusecl::Array<float> small_input() {
  std::vector<float> host(std::size_t(1) << kLog2);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.5f;
  return fusecl::from_host(host);
}

void run_overhead(benchmark::State& state, int evals_per_iteration) {
  FusionScope fusion(true);
  const fusecl::Array<float> x = small_input();
  {
    const auto warm = x * 2.0f + 1.0f;  // builds (or loads) the kernel
    fusecl::eval(warm);
    fusecl::finish();
  }
  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    for (int i = 0; i < evals_per_iteration; ++i) {
      const auto y = x * 2.0f + 1.0f;
      fusecl::eval(y);
    }
    fusecl::finish();
  }
  const std::int64_t n = std::int64_t(1) << kLog2;
  report_counters(state, before, n, double(evals_per_iteration) * 2.0 * double(n) * sizeof(float));
  state.SetItemsProcessed(state.iterations() * evals_per_iteration);  // evaluations, not elements
}

enum class Pricing { same_rate, new_rates, fused_new_rates };

void run_black_scholes(benchmark::State& state, Pricing how) {
  FusionScope fusion(true);
  std::vector<float> host(std::size_t(1) << kLog2);
  std::vector<fusecl::Array<float>> in;
  for (int k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = 1.0f + float((i * 7 + std::size_t(k) * 13) % 97) * 0.25f;
    in.push_back(fusecl::from_host(host));
  }
  const fusecl::Shape shape{std::int64_t(1) << kLog2};
  using A = fusecl::Array<float>;
  const auto priced = fusecl::fuse([&](const A& s, const A& k, const A& t, const A& rate) {
    return BlackScholes::compute_at<DeviceApi>(shape, {s, k, t}, rate);
  });
  // Builds (or loads) the kernel; fused, the rate is a kernel operand, so it is another one.
  if (how == Pricing::fused_new_rates) (void)priced(in[0], in[1], in[2], BlackScholes::kRate);
  else eval_all(BlackScholes::compute<DeviceApi>(shape, in));
  fusecl::finish();
  const fusecl::Stats before = fusecl::stats();
  int call = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i, ++call) {
      const float rate = how == Pricing::same_rate ? BlackScholes::kRate : 0.01f + 1e-6f * float(call % 10000);
      if (how == Pricing::fused_new_rates) (void)priced(in[0], in[1], in[2], rate);
      else eval_all(BlackScholes::compute_at<DeviceApi>(shape, in, rate));
    }
    fusecl::finish();
  }
  if (how == Pricing::fused_new_rates && priced.info().replays < std::uint64_t(call))
    state.SkipWithError(("fuse() did not replay: " + priced.info().last_reason).c_str());
  report_counters(state, before, std::int64_t(1) << kLog2, double(kBatch) * 5.0 * double(host.size()) * sizeof(float));
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void run_black_scholes_build(benchmark::State& state) {
  FusionScope fusion(true);
  std::vector<float> host(std::size_t(1) << kLog2, 1.5f);
  std::vector<fusecl::Array<float>> in;
  for (int k = 0; k < 3; ++k) in.push_back(fusecl::from_host(host));
  const fusecl::Shape shape{std::int64_t(1) << kLog2};
  fusecl::finish();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      auto prices = BlackScholes::compute<DeviceApi>(shape, in);
      benchmark::DoNotOptimize(prices);
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

}  // namespace

void register_overhead_benchmarks() {
  register_benchmark(benchmark_name("overhead", "fused_device_sync", kLog2),
                     [](benchmark::State& s) { run_overhead(s, 1); });
  register_benchmark(benchmark_name("overhead", "fused_device_async", kLog2),
                     [](benchmark::State& s) { run_overhead(s, kBatch); });
  register_benchmark(benchmark_name("overhead", "black_scholes_async", kLog2),
                     [](benchmark::State& s) { run_black_scholes(s, Pricing::same_rate); });
  register_benchmark(benchmark_name("overhead", "black_scholes_rates_async", kLog2),
                     [](benchmark::State& s) { run_black_scholes(s, Pricing::new_rates); });
  register_benchmark(benchmark_name("overhead", "black_scholes_fuse_rates_async", kLog2),
                     [](benchmark::State& s) { run_black_scholes(s, Pricing::fused_new_rates); });
  register_benchmark(benchmark_name("overhead", "black_scholes_build", kLog2), run_black_scholes_build);
}

}  // namespace fusecl_bench
