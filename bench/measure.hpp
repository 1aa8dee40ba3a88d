// The counters every benchmark of the suite reports, computed one way for all.
//
//   kernels     kernels launched per iteration (fusecl::stats() delta)
//   xfer_B      bytes copied between host and device per iteration (uploads + downloads)
//   ideal_B     bytes a perfect implementation moves: inputs read once, results written once
//   eff_bw      ideal_B / time per iteration, in bytes per second
//   of_copy     eff_bw / the device's copy bandwidth (copy_bandwidth.hpp), as a fraction
//   of_bus      ways moving host data: the time the pinned bus (bus_rate.hpp) needs for
//               the bytes moved / the time taken, as a fraction (1: at the bus's rate)
//   items_per_second  elements per second
//
// Times are wall-clock (UseRealTime): device work finishes asynchronously, so
// the benchmark thread's CPU time would say little.
#pragma once

#include <fusecl/stats.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>

namespace fusecl_bench {

/// Sets the counters above for the timed loop that began when `before` was taken.
/// `kernels_override` (>= 0) replaces the kernel count, for kernels fusecl did not launch.
void report_counters(benchmark::State& state, const fusecl::Stats& before, std::int64_t elements, double ideal_bytes,
                     double kernels_override = -1);

/// Registers `run` as benchmark `name`, timed by the wall clock and shown in
/// microseconds. An exception (a fusecl::Error, say) skips that benchmark with
/// its message instead of ending the whole run.
void register_benchmark(const std::string& name, std::function<void(benchmark::State&)> run);

/// The name of a benchmark: BM_<workload>/<way>/<log2 size>.
std::string benchmark_name(const std::string& workload, const std::string& way, int log2);

/// Turns fusecl::set_fusion on or off for a scope, then restores what it was.
class FusionScope {
 public:
  explicit FusionScope(bool on);
  ~FusionScope();
  FusionScope(const FusionScope&) = delete;
  FusionScope& operator=(const FusionScope&) = delete;

 private:
  bool previous_;
};

}  // namespace fusecl_bench
