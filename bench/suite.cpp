// The order and names of the suite's benchmarks.
#include "bench/copy_bandwidth.hpp"
#include "bench/measure.hpp"
#include "bench/ways.hpp"
#include "bench/workloads.hpp"

namespace fusecl_bench {

const char* way_name(Way way) {
  switch (way) {
    case Way::CppLoop: return "cpp_loop";
    case Way::DeviceEager: return "device_eager";
    case Way::FusedDevice: return "fused_device";
    case Way::FuseDevice: return "fuse_device";
    case Way::FusedE2E: return "fused_e2e";
    case Way::HostView: return "host_view";
  }
  return "?";
}

void register_suite(const Options& options) {
  register_copy_benchmarks(options);
  for_each_workload([&]<class W>() {
    const char* name = W::info().name;
    for (int log2 : options.log2_sizes()) {
      for (Way way : kAllWays) {
        Runner run = way == Way::CppLoop ? cpp_loop_runner(name, log2) : device_runner(name, way, log2);
        register_benchmark(benchmark_name(name, way_name(way), log2), std::move(run));
      }
    }
  });
  register_overhead_benchmarks();
  register_vector_width_benchmarks(options);
}

}  // namespace fusecl_bench
