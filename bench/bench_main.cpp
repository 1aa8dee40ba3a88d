// fusecl-bench: fused kernels against the host and against unfused kernels.
// Google Benchmark's flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_min_time, ...); the suite's own are in options.hpp. The JSON's
// "context" records the device, its driver and the copy bandwidth that every
// of_copy counter is relative to; bench/report.py turns it into tables.
#include "bench/bus_rate.hpp"
#include "bench/check_log.hpp"
#include "bench/copy_bandwidth.hpp"
#include "bench/options.hpp"
#include "bench/ways.hpp"
#include "bench/workloads.hpp"

#include <fusecl/device.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace {

void add_context(const std::string& command, const fusecl_bench::Options& o, double copy_bw, int copy_log2) {
  const auto& dev = fusecl::device();
  benchmark::AddCustomContext("fusecl_bench_command", command);
  benchmark::AddCustomContext("fusecl_device", dev.name);
  benchmark::AddCustomContext("fusecl_device_type", dev.type);
  benchmark::AddCustomContext("fusecl_device_vendor", dev.vendor);
  benchmark::AddCustomContext("fusecl_device_version", dev.version);
  benchmark::AddCustomContext("fusecl_compute_units", std::to_string(dev.compute_units));
  benchmark::AddCustomContext("fusecl_platform", dev.platform_name + " (" + dev.platform_version + ")");
  benchmark::AddCustomContext("fusecl_driver", dev.driver_version);
  benchmark::AddCustomContext("fusecl_device_choice", fusecl::device_choice_reason());
  benchmark::AddCustomContext("fusecl_sizes", "2^" + std::to_string(o.min_log2) + " to 2^" + std::to_string(o.max_log2) +
                                                  " step " + std::to_string(o.log2_step) + " (" + o.max_log2_source + ")");
  // What each workload computes, for the tables bench/report.py writes.
  fusecl_bench::for_each_workload([]<class W>() {
    benchmark::AddCustomContext(std::string("fusecl_workload:") + W::info().name, W::info().formula);
  });
  benchmark::AddCustomContext("fusecl_copy_bandwidth_Bps", std::to_string(copy_bw));
  benchmark::AddCustomContext("fusecl_copy_bandwidth_at", "2^" + std::to_string(copy_log2) + " floats, hand-written float4 kernel");
  const fusecl_bench::BusRates& bus = fusecl_bench::bus_rates();
  benchmark::AddCustomContext("fusecl_bus_pageable_write_Bps", std::to_string(bus.pageable_write));
  benchmark::AddCustomContext("fusecl_bus_pageable_read_Bps", std::to_string(bus.pageable_read));
  benchmark::AddCustomContext("fusecl_bus_pinned_write_Bps", std::to_string(bus.pinned_write));
  benchmark::AddCustomContext("fusecl_bus_pinned_read_Bps", std::to_string(bus.pinned_read));
  benchmark::AddCustomContext("fusecl_bus_at", "2^" + std::to_string(copy_log2) +
                                                   " floats, one buffer, blocking clEnqueueWrite/ReadBuffer, best of 5");
}

}  // namespace

int main(int argc, char** argv) try {
  // The command as given, before the flag parsers take their flags out of argv.
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) std::fputs(fusecl_bench::options_help(), stdout);
  benchmark::Initialize(&argc, argv);  // exits after its own --help
  const fusecl_bench::Options options = fusecl_bench::parse_options(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  fusecl_bench::set_check_out(options.check_out);
  const int copy_log2 = fusecl_bench::copy_reference_log2(options);
  const double copy_bw = fusecl_bench::measure_copy_bandwidth(copy_log2);
  fusecl_bench::measure_bus_rates(copy_log2);
  add_context(command, options, copy_bw, copy_log2);
  fusecl_bench::register_suite(options);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fusecl-bench: %s\n", e.what());
  return 1;
}
