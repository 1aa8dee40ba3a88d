// Per-device tuning that measures: the launch settings of each kernel class
// (elementwise, reduce, row) start at the device's defaults and are measured
// the first time an evaluation on the device meets that class (not when the
// device opens: a program that never reduces never pays for reductions). What
// is measured is stored beside the kernel cache (runtime/tuning_file.hpp)
// and loaded by later processes; tuner.hpp does the measuring.
//
// FUSECL_TUNE: unset (Auto below) measures on GPUs and keeps the defaults on
// CPU devices; 1 measure once per device and store; 0 the defaults, nothing
// measured, read or written; `again` measure anew, ignoring what is stored,
// and replace it. FUSECL_VECTOR_BYTES and FUSECL_ROW_ELEMENTS win
// over measured and stored values (their knobs are not measured).
#pragma once

#include "runtime/tuning_file.hpp"
#include "src/schedule.hpp"

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace fusecl::detail {

struct DeviceState;

// Auto (FUSECL_TUNE unset): On for GPUs and other accelerators, Off for CPU
// devices, where compiling the candidates' kernels costs seconds on a first
// run (PoCL: about three for the reduce class) and the defaults were measured
// by hand.
enum class TuneMode : std::uint8_t { Off, On, Again, Auto };

/// FUSECL_TUNE, read once (a bad value warns and means the default, Auto).
TuneMode tune_mode();

/// Where a knob's value came from.
enum class TuneSource : std::uint8_t { Default, Env, Loaded, Measured };

/// What a device knows of its tuning beyond the defaults; in DeviceState,
/// read and changed under the device's lock.
struct TuningState {
  bool started = false;
  TuneMode mode = TuneMode::Off;  // Auto resolved for the device
  bool auto_off = false;          // Off because FUSECL_TUNE is unset and the device is a CPU
  unsigned unsettled = 0;  // a bit per rt::TuneClass neither loaded nor measured yet
  unsigned pinned = 0;     // a bit per rt::Knob an environment variable sets
  bool measuring = false;  // the tuner's own evaluations do not tune
  rt::TunedValues values;  // what was loaded or measured: what is stored
  std::array<TuneSource, rt::knob_count> source{};
  std::filesystem::path file;  // where `values` were loaded from or stored to; empty: only in memory
  std::string file_problem;    // why a stored file was ignored (for fusecl-info)
};

/// The knob's value in `t` (groups per unit: target groups over compute units).
int knob_value(const DeviceTuning& t, rt::Knob k, const DeviceInfo& info);
/// Sets knob k of `t` to `value`.
void set_knob(DeviceTuning& t, rt::Knob k, int value, const DeviceInfo& info);

/// Fills `st` for a device whose defaults (with the environment's knobs) are
/// `t`: which knobs the environment pins, and, unless FUSECL_TUNE says
/// otherwise, what this process or the disk cache already has for the device,
/// applied to `t`. A stored file that cannot be used gets one warning.
void start_tuning(const DeviceInfo& info, TuningState& st, DeviceTuning& t);

/// make_schedule for `roots` on `dev` (its lock held) with the device's
/// tuning, after measuring each kernel class that schedule uses which the
/// device has not settled yet (the schedule is then made again).
Schedule tuned_schedule(DeviceState& dev, const std::vector<NodePtr>& roots);

/// Measures (or loads) every class not settled yet on `dev` (its lock held).
void settle_all(DeviceState& dev);

struct KnobReport {
  std::string name;  // "elementwise.vector_bytes"
  int value = 0;
  std::string source;  // "loaded from FILE", "measured now", "FUSECL_VECTOR_BYTES", "default (...)"
};

/// Each knob's value in `t` and where it came from, per `st`.
std::vector<KnobReport> tuning_report(const DeviceInfo& info, const TuningState& st, const DeviceTuning& t);

}  // namespace fusecl::detail
