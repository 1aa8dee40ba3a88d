#include "src/tuning.hpp"

#include "runtime/disk_cache.hpp"
#include "runtime/env_settings.hpp"
#include "src/device_state.hpp"
#include "src/tuner.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

namespace fusecl::detail {

namespace {

using rt::Knob;
using rt::TuneClass;

unsigned bit(TuneClass c) { return 1u << unsigned(c); }
unsigned bit(Knob k) { return 1u << unsigned(k); }

TuneClass class_of(codegen::KernelKind kind) {
  switch (kind) {
    case codegen::KernelKind::Reduce: return TuneClass::Reduce;
    case codegen::KernelKind::Row: return TuneClass::Row;
    default: return TuneClass::Elementwise;
  }
}

const char* env_name(Knob k) {
  switch (k) {
    case Knob::VectorBytes: return "FUSECL_VECTOR_BYTES";
    case Knob::RowElements: return "FUSECL_ROW_ELEMENTS";
    default: return nullptr;
  }
}

// What this process measured, by tuning key: a second open_device of one
// device, or any device while the disk cache is off or read-only, reuses it
// instead of measuring again.
std::mutex& memory_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, rt::TunedValues>& memory() {
  static auto* const m = new std::map<std::string, rt::TunedValues>;  // never destroyed: used until exit
  return *m;
}

// The classes of `values` that are complete (every knob not pinned is there):
// applied to `t` and settled.
void adopt(const DeviceInfo& info, const rt::TunedValues& values, TuningState& st, DeviceTuning& t) {
  st.values = values;
  for (std::size_t c = 0; c < rt::tune_class_count; ++c) {
    bool complete = true;
    for (std::size_t k = 0; k < rt::knob_count; ++k)
      if (rt::knob_spec(Knob(k)).cls == TuneClass(c) && !(st.pinned & bit(Knob(k))) && !values.v[k]) complete = false;
    if (!complete) continue;
    for (std::size_t k = 0; k < rt::knob_count; ++k) {
      if (rt::knob_spec(Knob(k)).cls != TuneClass(c) || (st.pinned & bit(Knob(k)))) continue;
      set_knob(t, Knob(k), *values.v[k], info);
      st.source[k] = TuneSource::Loaded;
    }
    st.unsettled &= ~bit(TuneClass(c));
  }
}

void log_line(const std::string& text) {
  if (log_tuning()) rt::write_to_stderr("fusecl: tune: " + text);
}

std::string milliseconds(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", std::chrono::duration<double, std::milli>(d).count());
  return buf;
}

// Measures `classes` (bits) on `dev` and stores what was found.
void settle(DeviceState& dev, unsigned classes) {
  TuningState& st = dev.tune;
  classes &= st.unsettled;
  if (!classes || st.measuring || !dev.tuning) return;
  const DeviceInfo& info = rt::info(dev.runtime());
  st.measuring = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{st.measuring};
  const std::string who = describe(dev);
  bool measured = false;
  for (std::size_t c = 0; c < rt::tune_class_count; ++c) {
    if (!(classes & bit(TuneClass(c)))) continue;
    st.unsettled &= ~bit(TuneClass(c));
    const char* name = rt::tune_class_name(TuneClass(c));
    const auto start = std::chrono::steady_clock::now();
    try {
      const rt::TunedValues got = measure_class(dev, TuneClass(c), *dev.tuning, st.pinned);
      for (std::size_t k = 0; k < rt::knob_count; ++k) {
        if (!got.v[k]) continue;
        st.values.v[k] = got.v[k];
        set_knob(*dev.tuning, Knob(k), *got.v[k], info);
        st.source[k] = TuneSource::Measured;
        measured = true;
      }
      log_line(who + ": measured the " + name + " kernels in " + milliseconds(std::chrono::steady_clock::now() - start) +
               " (their compiles included)");
    } catch (const std::exception& e) {
      // The device is unusable for the synthetic kernels (out of memory, a
      // driver error): the defaults stay, and the next process tries again.
      rt::write_to_stderr("fusecl: warning: measuring the launch settings of " + std::string(name) + " kernels on " +
                          who + " failed (" + e.what() + "); using the defaults");
    }
  }
  if (!measured) return;
  {
    const std::lock_guard<std::mutex> lock(memory_mutex());
    memory()[rt::tuning_key(info)] = st.values;
  }
  std::string where;
  {
    const std::lock_guard<std::mutex> lock(rt::disk_cache_mutex());
    rt::DiskCache& cache = rt::disk_cache();
    const auto path = rt::tuning_path(cache.settings().dir, info);
    if (cache.writable() && cache.store_text(path, rt::format_tuning(info, st.values))) {
      st.file = path;
      where = "stored in " + path.string();
    } else {
      st.file.clear();
      where = "kept in memory for this process (the disk cache is " + std::string(rt::cache_mode_name(cache.mode())) + ")";
    }
  }
  log_line(who + ": " + where);
}

}  // namespace

TuneMode tune_mode() {
  static const TuneMode mode = [] {
    const std::string_view raw = rt::env_value("FUSECL_TUNE");
    std::string v(rt::trim(raw));
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (v.empty()) return TuneMode::Auto;
    if (v == "1" || v == "on" || v == "true" || v == "yes") return TuneMode::On;
    if (v == "0" || v == "off" || v == "false" || v == "no") return TuneMode::Off;
    if (v == "again") return TuneMode::Again;
    rt::write_to_stderr("fusecl: warning: FUSECL_TUNE='" + std::string(raw) +
                        "' is not one of 1, 0, again; using the default (measure once per GPU and store; CPU devices keep their defaults)");
    return TuneMode::Auto;
  }();
  return mode;
}

int knob_value(const DeviceTuning& t, Knob k, const DeviceInfo& info) {
  switch (k) {
    case Knob::VectorBytes: return t.vector_bytes;
    case Knob::ElementwiseLocal: return t.elementwise_local_size;
    case Knob::ReduceLocal: return t.local_size;
    case Knob::GroupsPerUnit: return t.target_groups / int(std::max(1u, info.compute_units));
    case Knob::RowElements: return t.elements_per_item;
    case Knob::Count: break;
  }
  return 0;
}

void set_knob(DeviceTuning& t, Knob k, int value, const DeviceInfo& info) {
  switch (k) {
    case Knob::VectorBytes: t.vector_bytes = value; break;
    case Knob::ElementwiseLocal: t.elementwise_local_size = value; break;
    case Knob::ReduceLocal: t.local_size = value; break;
    case Knob::GroupsPerUnit: t.target_groups = int(std::max(1u, info.compute_units)) * value; break;
    case Knob::RowElements: t.elements_per_item = value; break;
    case Knob::Count: break;
  }
}

void start_tuning(const DeviceInfo& info, TuningState& st, DeviceTuning& t) {
  st = TuningState{};
  st.started = true;
  st.mode = tune_mode();
  if (st.mode == TuneMode::Auto) {
    st.auto_off = info.type == "CPU";
    st.mode = st.auto_off ? TuneMode::Off : TuneMode::On;
  }
  for (std::size_t k = 0; k < rt::knob_count; ++k) {
    const char* env = env_name(Knob(k));
    const bool pinned = env && !rt::trim(rt::env_value(env)).empty();
    if (pinned) st.pinned |= bit(Knob(k));
    st.source[k] = pinned ? TuneSource::Env : TuneSource::Default;
  }
  if (st.mode == TuneMode::Off) return;
  st.unsettled = (1u << rt::tune_class_count) - 1;
  std::optional<rt::TunedValues> known;
  {
    const std::lock_guard<std::mutex> lock(memory_mutex());
    if (const auto it = memory().find(rt::tuning_key(info)); it != memory().end()) known = it->second;
  }
  if (known) return adopt(info, *known, st, t);  // st.file stays empty: measured earlier in this process
  if (st.mode == TuneMode::Again) return;
  const std::lock_guard<std::mutex> lock(rt::disk_cache_mutex());
  rt::DiskCache& cache = rt::disk_cache();
  if (!cache.readable()) return;
  const auto path = rt::tuning_path(cache.settings().dir, info);
  const rt::TuningRead r = rt::read_tuning(path, info);
  if (r) {
    st.file = path;
    adopt(info, r.values, st, t);
  } else if (!r.missing) {
    st.file_problem = path.string() + " " + r.error;
    cache.warn("tuning file " + path.string() + " " + r.error +
               (cache.writable() ? "; ignoring it: the device's launch settings are measured again and the file replaced"
                                 : "; ignoring it: the device's launch settings are measured again (the cache is "
                                   "read-only: not stored)"));
  }
}

Schedule tuned_schedule(DeviceState& dev, const std::vector<NodePtr>& roots) {
  Schedule s = make_schedule(roots, tuning_of(dev));
  const unsigned open = dev.tune.unsettled;
  if (!open || dev.tune.measuring) return s;  // the path of every evaluation once settled: one test
  unsigned met = 0;
  for (const auto& step : s.steps)
    if (step.kind == ScheduleStep::Kind::Kernel) met |= bit(class_of(step.kernel.plan.kind));
  if (!(met & open)) return s;
  settle(dev, met & open);
  return make_schedule(roots, tuning_of(dev));
}

void settle_all(DeviceState& dev) {
  tuning_of(dev);  // starts the device's tuning
  settle(dev, dev.tune.unsettled);
}

std::vector<KnobReport> tuning_report(const DeviceInfo& info, const TuningState& st, const DeviceTuning& t) {
  std::vector<KnobReport> out;
  for (std::size_t k = 0; k < rt::knob_count; ++k) {
    const rt::KnobSpec& spec = rt::knob_spec(Knob(k));
    KnobReport r{spec.name, knob_value(t, Knob(k), info), {}};
    switch (st.source[k]) {
      case TuneSource::Env: r.source = env_name(Knob(k)); break;
      case TuneSource::Loaded:
        r.source = st.file.empty() ? "measured earlier in this process" : "loaded from " + st.file.string();
        break;
      case TuneSource::Measured:
        r.source = "measured now, " + (st.file.empty() ? std::string("kept in memory for this process")
                                                       : "stored in " + st.file.string());
        break;
      case TuneSource::Default:
        if (st.auto_off) r.source = "default (a CPU device: measured only with FUSECL_TUNE=1)";
        else if (st.mode == TuneMode::Off) r.source = "default (FUSECL_TUNE=0)";
        else if (st.unsettled & bit(spec.cls))
          r.source = std::string("default until measured (when a ") + rt::tune_class_name(spec.cls) + " kernel first runs)";
        else r.source = "default (measuring failed)";
        if (!st.file_problem.empty()) r.source += "; ignored " + st.file_problem;
        break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fusecl::detail
