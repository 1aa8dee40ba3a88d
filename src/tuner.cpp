#include "src/tuner.hpp"

#include "fusecl/fusecl.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/stats_counters.hpp"
#include "src/device_state.hpp"
#include "src/schedule.hpp"
#include "src/tuning.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

namespace fusecl::detail {

namespace {

using rt::Knob;
using Clock = std::chrono::steady_clock;

// A candidate replaces the current value only when this much faster, so that
// timing noise does not flip settings between processes: the defaults stay
// unless something clearly beats them.
constexpr double kClearlyFaster = 0.95;

// Timed runs per candidate (the best counts), after one untimed run that
// compiles the kernel and lets the driver specialize it for the launch shape.
constexpr int kRuns = 5;

// Elements of the synthetic arrays: large enough that a run takes a
// measurable time and is not all launch overhead, small enough that all the
// runs of a class take a few milliseconds of kernel time. The compiles cost
// far more (a candidate that changes the kernel's text is a new program:
// about 0.1-0.3 s each on PoCL), which is why each knob has three or four
// candidates and knobs are measured one after another, not as a grid: at
// most 4 compiles for elementwise (its group sizes need none), 3 + 1 for
// reduce, 3 for row on GPUs (none on CPUs).
std::int64_t synthetic_elements(const DeviceInfo& info, rt::TuneClass c) {
  if (info.type != "CPU") return std::int64_t(1) << 22;
  switch (c) {
    case rt::TuneClass::Reduce: return std::int64_t(1) << 20;
    case rt::TuneClass::Row: return std::int64_t(1) << 16;  // exp per element: slower per element
    default: return std::int64_t(1) << 18;
  }
}

std::vector<int> candidates(Knob k, const DeviceInfo& info) {
  const bool cpu = info.type == "CPU";
  switch (k) {
    case Knob::VectorBytes: return cpu ? std::vector<int>{8, 16, 32, 64} : std::vector<int>{4, 8, 16, 32};
    case Knob::ElementwiseLocal: return {64, 128, 256};
    case Knob::ReduceLocal: return cpu ? std::vector<int>{8, 16, 32} : std::vector<int>{64, 128, 256};
    case Knob::GroupsPerUnit: return {1, 2, 4, 8};
    // A CPU gives each row one work-item (launch.cpp), whatever this says: nothing to measure.
    case Knob::RowElements: return cpu ? std::vector<int>{} : std::vector<int>{4, 8, 16};
    case Knob::Count: break;
  }
  return {};
}

struct Synthetic {
  std::function<NodePtr()> build;  // a fresh graph per run: running one turns its root into a buffer
  codegen::KernelKind kind;        // what every kernel of its schedule must be, for the time to mean anything
};

bool all_of_kind(const Schedule& s, codegen::KernelKind kind) {
  return s.kernel_count() > 0 && std::all_of(s.steps.begin(), s.steps.end(), [&](const ScheduleStep& st) {
           return st.kind == ScheduleStep::Kind::Kernel && st.kernel.plan.kind == kind;
         });
}

// The best time in seconds of the synthetic kernel under `t`, or a negative
// number when its schedule is not of the class.
double best_time(DeviceState& dev, const Synthetic& syn, const DeviceTuning& t) {
  rt::Runtime& runtime = dev.runtime();
  // launch() takes the elementwise work-group size from the device's tuning.
  struct Restore {
    int& field;
    int saved;
    ~Restore() { field = saved; }
  } restore{dev.tuning->elementwise_local_size, dev.tuning->elementwise_local_size};
  dev.tuning->elementwise_local_size = t.elementwise_local_size;
  double best = std::numeric_limits<double>::infinity();
  for (int run = 0; run <= kRuns; ++run) {
    const NodePtr root = syn.build();
    Schedule s = make_schedule({root}, t);
    if (run == 0 && !all_of_kind(s, syn.kind)) return -1;
    rt::finish(runtime);
    const auto start = Clock::now();
    run_schedule(dev, s);
    rt::finish(runtime);
    if (run > 0) best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

void log_line(const std::string& text) {
  if (log_tuning()) rt::write_to_stderr("fusecl: tune: " + text);
}

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

// Measures knob k from its value in `t` through its candidates; leaves the
// choice in `t` and returns it.
int choose(DeviceState& dev, const std::string& who, Knob k, DeviceTuning& t, const Synthetic& syn) {
  const DeviceInfo& info = rt::info(dev.runtime());
  const char* name = rt::knob_spec(k).name;
  int best = knob_value(t, k, info);
  if (candidates(k, info).empty()) {  // stored as it is, so that the class counts as measured
    log_line(who + ": " + name + ": nothing to choose on this device; keeping " + std::to_string(best));
    return best;
  }
  double best_s = best_time(dev, syn, t);
  if (best_s < 0) {
    log_line(who + ": " + name + ": the synthetic kernel does not schedule as one of its class on this device; keeping " +
             std::to_string(best) + ", unmeasured");
    return best;
  }
  log_line(who + ": " + name + " " + std::to_string(best) + ": " + ms(best_s) + " (the current value)");
  const int current = best;
  for (const int c : candidates(k, info)) {
    if (c == current || !rt::knob_range_problem(k, c, info).empty()) continue;
    DeviceTuning trial = t;
    set_knob(trial, k, c, info);
    double s = best_time(dev, syn, trial);
    log_line(who + ": " + name + " " + std::to_string(c) + ": " + ms(s));
    if (s < 0 || s >= kClearlyFaster * best_s) continue;
    // A win on one measurement may be another process taking a core during
    // the other's runs: both are timed again, and the win must hold.
    DeviceTuning held = t;
    set_knob(held, k, best, info);
    best_s = std::min(best_s, best_time(dev, syn, held));
    s = std::min(s, best_time(dev, syn, trial));
    log_line(who + ": " + name + " " + std::to_string(c) + " against " + std::to_string(best) + ", timed again: " + ms(s) +
             " against " + ms(best_s));
    if (s < kClearlyFaster * best_s) best = c, best_s = s;
  }
  log_line(who + ": " + name + " = " + std::to_string(best) +
           (best == current ? " (kept: no candidate was 5% faster)" : " (was " + std::to_string(current) + ")"));
  set_knob(t, k, best, info);
  return best;
}

std::vector<float> host_data(std::int64_t n) {
  // Values in [-0.5, 0.5): nothing overflows, and exp in the softmax stays tame.
  std::vector<float> h(std::size_t(n), 0.0f);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(i % 1024) / 1024.0f - 0.5f;
  return h;
}

}  // namespace

rt::TunedValues measure_class(DeviceState& dev, rt::TuneClass c, const DeviceTuning& start, unsigned pinned) {
  const DeviceInfo& info = rt::info(dev.runtime());
  std::vector<Knob> knobs;
  for (std::size_t k = 0; k < rt::knob_count; ++k)
    if (rt::knob_spec(Knob(k)).cls == c && !(pinned & (1u << k))) knobs.push_back(Knob(k));
  rt::TunedValues out;
  if (knobs.empty()) return out;

  const rt::UncountedScope uncounted;  // the uploads, builds and launches below are not the program's
  const Device device(dev.shared_from_this());
  const std::int64_t n = synthetic_elements(info, c);
  Synthetic syn;
  DeviceTuning t = start;
  if (c == rt::TuneClass::Row) {
    // Rows of four times the group bound: the length at which the elements
    // per work-item decide how many work-items share a row (shorter rows
    // would give every candidate one layout, longer ones cap them all at the
    // group bound). A GPU's 256 gives rows of 1024, as the benchmarks' softmax.
    const std::int64_t len = std::int64_t(std::max(1, t.local_size)) * 4;
    const Array<float> x = from_host(host_data(n), Shape{std::max<std::int64_t>(1, n / len), len}, device);
    syn = {[x] {
             const auto e = fusecl::exp(x - fusecl::max(x, 1, true));
             return (e / fusecl::sum(e, 1, true)).node();
           },
           codegen::KernelKind::Row};
  } else {
    const Array<float> x = from_host(host_data(n), Shape{n}, device);
    if (c == rt::TuneClass::Reduce) syn = {[x] { return fusecl::sum(x).node(); }, codegen::KernelKind::Reduce};
    else syn = {[x] { return (x * 1.5f + 0.5f).node(); }, codegen::KernelKind::Elementwise};
  }
  const std::string who = describe(dev);
  for (const Knob k : knobs) out[k] = choose(dev, who, k, t, syn);
  return out;
}

}  // namespace fusecl::detail
