// The data of one benchmark case (a workload at one size): its host inputs
// and its C++ loop (cpp_loop) result, which every other way is checked against. The
// ways of a case run one after another, and Google Benchmark calls each
// benchmark function several times, so the data is made once and kept until a
// case of another workload or size asks for its own: one case in memory at a
// time, since at 2^26 elements one case is a gigabyte or more.
#pragma once

#include "bench/workloads.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace fusecl_bench {

/// The result tuple of workload W evaluated with array API `Api`.
template <class W, class Api>
using results_t =
    decltype(W::template compute<Api>(std::declval<const fusecl::Shape&>(), std::declval<const std::vector<typename Api::F32>&>()));

template <class W>
struct CaseData {
  int log2 = 0;
  fusecl::Shape shape;
  std::vector<host::HostArray<float>> inputs;
  std::optional<results_t<W, HostApi>> reference;  // the C++ loop's result, made on first use
};

/// Fills `out` with values uniform in [lo, hi), the same for the same seed on
/// every run. SplitMix64 rather than <random>'s engines: at 2^26 elements per
/// input, std::mt19937 would spend seconds per case making inputs.
void fill_uniform(host::HostArray<float>& out, float lo, float hi, std::uint64_t seed);

/// Frees the case held now (if any) and remembers how to free the next one.
void replace_held_case(std::function<void()> release_new);

/// The case of workload W at 2^log2 elements, made on first use.
template <class W>
CaseData<W>& case_data(int log2) {
  // One slot per workload type; replace_held_case empties whichever slot held
  // the previous case, so at most one is full at any time.
  static std::unique_ptr<CaseData<W>> slot;
  if (slot && slot->log2 == log2) return *slot;
  replace_held_case([] { slot.reset(); });
  auto data = std::make_unique<CaseData<W>>();
  const WorkloadInfo info = W::info();
  data->log2 = log2;
  data->shape = shape_of(info, log2);
  for (std::size_t i = 0; i < info.inputs.size(); ++i) {
    host::HostArray<float> a(input_shape_of(info, log2, i));
    fill_uniform(a, info.inputs[i].lo, info.inputs[i].hi, std::uint64_t(log2) << 8 | i);
    data->inputs.push_back(std::move(a));
  }
  slot = std::move(data);
  return *slot;
}

/// The C++ loop result of the case, the reference for the device's.
template <class W>
const results_t<W, HostApi>& reference(CaseData<W>& c) {
  if (!c.reference) c.reference = W::template compute<HostApi>(c.shape, c.inputs);
  return *c.reference;
}

/// Bytes that a perfect implementation must move: every input read once and
/// every result written once.
template <class W>
double ideal_bytes(CaseData<W>& c) {
  double bytes = 0;
  for (const auto& in : c.inputs) bytes += double(in.size()) * sizeof(float);
  std::apply([&](const auto&... r) { ((bytes += double(r.size()) * sizeof(typename std::decay_t<decltype(r)>::storage_type)), ...); },
             reference(c));
  return bytes;
}

}  // namespace fusecl_bench
