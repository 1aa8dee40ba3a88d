// The bus's own rates, measured in the same run as the suite: what the end to
// end ways (host data in, host results out) are judged against. Raw OpenCL
// writes and reads of one buffer on fusecl's queue, from pageable memory (a
// std::vector) and from pinned memory (a CL_MEM_ALLOC_HOST_PTR buffer, mapped)
// which is what a DMA engine reads at full speed.
#pragma once

namespace fusecl_bench {

struct BusRates {
  double pageable_write = 0, pageable_read = 0;  // bytes per second
  double pinned_write = 0, pinned_read = 0;
};

/// Measures the four rates with 2^log2 floats (best of several), keeps them
/// for bus_rates(), and returns them. Call once, before the benchmarks run.
BusRates measure_bus_rates(int log2);

/// The rates measure_bus_rates found; throws if it was not called.
const BusRates& bus_rates();

}  // namespace fusecl_bench
