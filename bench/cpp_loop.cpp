// cpp_loop: the workloads on eager host arrays (host_array.hpp): a scalar C++
// loop per operation on one core. Not NumPy (whose float32 math is SIMD and
// several times faster); NumPy and numexpr are timed by bench/host_frameworks.py.
#include "bench/case_data.hpp"
#include "bench/measure.hpp"
#include "bench/ways.hpp"

#include <stdexcept>
#include <string>

namespace fusecl_bench {

namespace {

template <class W>
void run_cpp_loop(benchmark::State& state, int log2) {
  CaseData<W>& c = case_data<W>(log2);
  // The warm-up evaluation doubles as the reference the device ways check against.
  if (!c.reference) reference(c);
  else static_cast<void>(W::template compute<HostApi>(c.shape, c.inputs));

  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    auto results = W::template compute<HostApi>(c.shape, c.inputs);
    std::apply([](const auto&... r) { (benchmark::DoNotOptimize(r.data()), ...); }, results);
    benchmark::ClobberMemory();
  }
  report_counters(state, before, std::int64_t(1) << log2, ideal_bytes(c));
}

}  // namespace

Runner cpp_loop_runner(std::string_view workload, int log2) {
  Runner run;
  for_each_workload([&]<class W>() {
    if (workload == W::info().name) run = [log2](benchmark::State& state) { run_cpp_loop<W>(state, log2); };
  });
  if (!run) throw std::invalid_argument("no workload named '" + std::string(workload) + "'");
  return run;
}

}  // namespace fusecl_bench
