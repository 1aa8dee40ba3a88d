#include "bench/measure.hpp"

#include "bench/bus_rate.hpp"
#include "bench/copy_bandwidth.hpp"

#include <fusecl/array.hpp>

#include <exception>
#include <utility>

namespace fusecl_bench {

void report_counters(benchmark::State& state, const fusecl::Stats& before, std::int64_t elements, double ideal_bytes,
                     double kernels_override) {
  if (state.iterations() == 0) return;  // skipped with an error
  const fusecl::Stats after = fusecl::stats();
  using C = benchmark::Counter;
  const double kernels = kernels_override >= 0 ? kernels_override * double(state.iterations())
                                               : double(after.kernels_launched - before.kernels_launched);
  const double moved = double((after.bytes_uploaded - before.bytes_uploaded) + (after.bytes_downloaded - before.bytes_downloaded));
  state.counters["kernels"] = C(kernels, C::kAvgIterations);
  state.counters["xfer_B"] = C(moved, C::kAvgIterations);
  state.counters["ideal_B"] = C(ideal_bytes);
  // Rates: Google Benchmark multiplies by the iterations and divides by the
  // measured (here: wall-clock) time.
  state.counters["eff_bw"] = C(ideal_bytes, C::kIsIterationInvariantRate);
  state.counters["of_copy"] = C(ideal_bytes / copy_bandwidth(), C::kIsIterationInvariantRate);
  // Ways that move host data: the time the pinned bus would take for the
  // bytes moved, over the time taken (1 = as fast as the bus itself).
  const double up = double(after.bytes_uploaded - before.bytes_uploaded) / double(state.iterations());
  const double down = double(after.bytes_downloaded - before.bytes_downloaded) / double(state.iterations());
  if (up + down > 0) {
    const BusRates& bus = bus_rates();
    state.counters["of_bus"] = C(up / bus.pinned_write + down / bus.pinned_read, C::kIsIterationInvariantRate);
  }
  state.SetItemsProcessed(state.iterations() * elements);
}

void register_benchmark(const std::string& name, std::function<void(benchmark::State&)> run) {
  benchmark::RegisterBenchmark(name.c_str(), [run = std::move(run)](benchmark::State& state) {
    try {
      run(state);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
    }
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

std::string benchmark_name(const std::string& workload, const std::string& way, int log2) {
  return "BM_" + workload + "/" + way + "/" + std::to_string(log2);
}

FusionScope::FusionScope(bool on) : previous_(fusecl::fusion()) { fusecl::set_fusion(on); }
FusionScope::~FusionScope() { fusecl::set_fusion(previous_); }

}  // namespace fusecl_bench
