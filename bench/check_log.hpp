// Fingerprints of fusecl's results, for checking other implementations of the
// same workloads (bench/host_frameworks.py: NumPy, numexpr) against fusecl.
//
// With --check_out=FILE (or FUSECL_BENCH_CHECK_OUT), fused_device writes one
// JSON line per case after its result has passed the check against the C++
// loop: samples of each input (so that the other side can prove it computed
// on the very same numbers) and of each result, with the result's sum and sum
// of magnitudes. Samples rather than whole arrays: a run of the suite holds
// gigabytes of results, and 97 spread-out elements plus the sums catch a wrong
// formula, a wrong constant or a wrong input as surely.
#pragma once

#include "bench/host_array.hpp"
#include "bench/workloads.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fusecl_bench {

/// Where fingerprints go; an empty path turns them off (the default).
void set_check_out(const std::string& path);
bool check_out_enabled();

/// The indices sampled from an array of n elements: 97 evenly spaced ones,
/// first and last included (fewer when n is smaller). host_frameworks.py
/// samples the same ones.
std::vector<std::int64_t> sample_indices(std::int64_t n);

/// {"n": .., "sum": .., "abs_sum": .., "samples": [v, ...]} of one array.
std::string fingerprint_json(const std::vector<double>& values);

/// Appends one line to the check file (flushed at once, so that a run that
/// dies later keeps what it had).
void write_check_line(const std::string& workload, int log2, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& results);

template <class V>
std::string fingerprint_of(const V& values) {
  return fingerprint_json(std::vector<double>(values.begin(), values.end()));
}

/// Records one case: its host inputs and fusecl's results (host vectors).
template <class Results>
void record_check(const WorkloadInfo& info, int log2, const std::vector<host::HostArray<float>>& inputs,
                  const Results& results) {
  if (!check_out_enabled()) return;
  std::vector<std::string> in, out;
  for (const auto& a : inputs) in.push_back(fingerprint_of(a.values()));
  std::apply([&](const auto&... r) { (out.push_back(fingerprint_of(r)), ...); }, results);
  write_check_line(info.name, log2, in, out);
}

}  // namespace fusecl_bench
