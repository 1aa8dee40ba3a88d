// device_eager, fused_device, fuse_device, fused_e2e and host_view: the workloads on fusecl arrays.
#include "bench/case_data.hpp"
#include "bench/check.hpp"
#include "bench/check_log.hpp"
#include "bench/measure.hpp"
#include "bench/ways.hpp"

#include <functional>
#include <stdexcept>
#include <string>

namespace fusecl_bench {

namespace {

template <class W>
using DeviceResults = results_t<W, DeviceApi>;

// The last size of workload W whose fingerprint went to the check file.
template <class W>
int& recorded_log2() {
  static int log2 = -1;
  return log2;
}

template <class W>
std::vector<fusecl::Array<float>> upload_inputs(const CaseData<W>& c) {
  std::vector<fusecl::Array<float>> in;
  in.reserve(c.inputs.size());
  for (const auto& h : c.inputs) in.push_back(fusecl::from_host(h.values(), h.shape()));
  return in;
}

// Inputs uploaded beforehand; each iteration builds the expression, queues
// it (fused: one eval; eager: the kernels launch as the operations are
// written) and waits for the device. The results stay on the device and are
// released at the end of the iteration, their buffers going back to the pool.
template <class W>
void run_device_resident(benchmark::State& state, int log2, bool fused) {
  CaseData<W>& c = case_data<W>(log2);
  const auto& ref = reference(c);
  FusionScope fusion(fused);
  const std::vector<fusecl::Array<float>> in = upload_inputs(c);

  {
    const DeviceResults<W> warm = W::template compute<DeviceApi>(c.shape, in);
    eval_all(warm);
    auto got = sized_like<host_vectors_t<DeviceResults<W>>>(ref);
    download_all(warm, got);
    if (const std::string problem = compare_results(got, ref, W::info()); !problem.empty()) {
      state.SkipWithError(problem.c_str());
      return;
    }
    // Google Benchmark may call this function more than once per case; one line each is enough.
    if (fused && check_out_enabled() && recorded_log2<W>() != log2) {
      record_check(W::info(), log2, c.inputs, got);
      recorded_log2<W>() = log2;
    }
  }

  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    const DeviceResults<W> results = W::template compute<DeviceApi>(c.shape, in);
    eval_all(results);
    fusecl::finish();
  }
  report_counters(state, before, std::int64_t(1) << log2, ideal_bytes(c));
}

// W's computation as a fusecl::fuse function of its inputs, called with a vector of them.
template <class W>
std::function<DeviceResults<W>(const std::vector<fusecl::Array<float>>&)> fused_function(const fusecl::Shape& shape,
                                                                                          std::size_t arity,
                                                                                          std::function<fusecl::FuseInfo()>& info) {
  using A = fusecl::Array<float>;
  auto body = [shape](const auto&... a) { return W::template compute<DeviceApi>(shape, std::vector<A>{a...}); };
  auto wrap = [&info](auto f, auto call) {
    info = [f] { return f.info(); };
    return [f, call](const std::vector<A>& in) { return call(f, in); };
  };
  switch (arity) {
    case 0: return wrap(fusecl::fuse([body] { return body(); }), [](const auto& f, const auto&) { return f(); });
    case 1: return wrap(fusecl::fuse([body](const A& a) { return body(a); }), [](const auto& f, const auto& in) { return f(in[0]); });
    case 2:
      return wrap(fusecl::fuse([body](const A& a, const A& b) { return body(a, b); }),
                  [](const auto& f, const auto& in) { return f(in[0], in[1]); });
    case 3:
      return wrap(fusecl::fuse([body](const A& a, const A& b, const A& c) { return body(a, b, c); }),
                  [](const auto& f, const auto& in) { return f(in[0], in[1], in[2]); });
    case 4:
      return wrap(fusecl::fuse([body](const A& a, const A& b, const A& c, const A& d) { return body(a, b, c, d); }),
                  [](const auto& f, const auto& in) { return f(in[0], in[1], in[2], in[3]); });
  }
  throw std::invalid_argument(std::string(W::info().name) + ": fuse_device takes at most 4 inputs");
}

// fused_device through fusecl::fuse: the first (untimed) call plans, each
// timed call replays that plan with the same inputs and waits for the device.
// `replayed` is 1 where the calls replayed (0: the workload cannot be, and
// the function ran each time, as fused_device does).
template <class W>
void run_fuse_device(benchmark::State& state, int log2) {
  CaseData<W>& c = case_data<W>(log2);
  const auto& ref = reference(c);
  FusionScope fusion(true);
  const std::vector<fusecl::Array<float>> in = upload_inputs(c);
  std::function<fusecl::FuseInfo()> info;
  const auto f = fused_function<W>(c.shape, in.size(), info);
  auto out = sized_like<host_vectors_t<DeviceResults<W>>>(ref);
  for (int i = 0; i < 2; ++i) {  // the plan, then a replay, each checked
    download_all(f(in), out);
    if (const std::string problem = compare_results(out, ref, W::info()); !problem.empty()) {
      state.SkipWithError(problem.c_str());
      return;
    }
  }
  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    const DeviceResults<W> results = f(in);
    fusecl::finish();
  }
  report_counters(state, before, std::int64_t(1) << log2, ideal_bytes(c));
  state.counters["replayed"] = info().replays > 0 && info().unreplayed == 0 ? 1 : 0;
}

// Runs `once` (which fills `out` from host data), checks that result against
// the reference, then times it.
template <class W, class Ref, class Out, class Once>
void time_checked(benchmark::State& state, int log2, CaseData<W>& c, const Ref& ref, const Out& out, Once&& once) {
  once();
  if (const std::string problem = compare_results(out, ref, W::info()); !problem.empty()) {
    state.SkipWithError(problem.c_str());
    return;
  }
  const fusecl::Stats before = fusecl::stats();
  for (auto _ : state) {
    once();
    benchmark::ClobberMemory();
  }
  report_counters(state, before, std::int64_t(1) << log2, ideal_bytes(c));
}

// Everything a program with host data pays: upload the inputs, evaluate all
// results in one go (so that results sharing work share a kernel), download
// each into a host vector. The vectors are allocated once, outside the timing,
// as a program that evaluates repeatedly would.
template <class W>
void run_fused_e2e(benchmark::State& state, int log2) {
  CaseData<W>& c = case_data<W>(log2);
  const auto& ref = reference(c);
  FusionScope fusion(true);
  auto out = sized_like<host_vectors_t<DeviceResults<W>>>(ref);
  auto once = [&] {
    const std::vector<fusecl::Array<float>> in = upload_inputs(c);
    const DeviceResults<W> results = W::template compute<DeviceApi>(c.shape, in);
    eval_all(results);
    download_all(results, out);  // blocking: the last download waits for the kernel
  };

  time_checked<W>(state, log2, c, ref, out, once);
}

// The inputs as host views of the host vectors (made once: a view copies
// nothing), each result streamed into a host vector. A workload with several
// results reads its inputs once per result.
template <class W>
void run_host_view(benchmark::State& state, int log2) {
  CaseData<W>& c = case_data<W>(log2);
  const auto& ref = reference(c);
  FusionScope fusion(true);
  auto out = sized_like<host_vectors_t<DeviceResults<W>>>(ref);
  std::vector<fusecl::Array<float>> in;
  for (const auto& h : c.inputs) in.push_back(fusecl::host_view(h.values(), h.shape()));
  auto once = [&] {
    const DeviceResults<W> results = W::template compute<DeviceApi>(c.shape, in);
    download_all(results, out);
  };

  time_checked<W>(state, log2, c, ref, out, once);
}

}  // namespace

Runner device_runner(std::string_view workload, Way way, int log2) {
  Runner run;
  for_each_workload([&]<class W>() {
    if (workload != W::info().name) return;
    switch (way) {
      case Way::DeviceEager: run = [log2](benchmark::State& s) { run_device_resident<W>(s, log2, false); }; break;
      case Way::FusedDevice: run = [log2](benchmark::State& s) { run_device_resident<W>(s, log2, true); }; break;
      case Way::FuseDevice: run = [log2](benchmark::State& s) { run_fuse_device<W>(s, log2); }; break;
      case Way::FusedE2E: run = [log2](benchmark::State& s) { run_fused_e2e<W>(s, log2); }; break;
      case Way::HostView: run = [log2](benchmark::State& s) { run_host_view<W>(s, log2); }; break;
      case Way::CppLoop: break;
    }
  });
  if (!run)
    throw std::invalid_argument("no device way '" + std::string(way_name(way)) + "' for workload '" + std::string(workload) + "'");
  return run;
}

}  // namespace fusecl_bench
