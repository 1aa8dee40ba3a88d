// Measures the launch settings of one kernel class on one device: a small
// synthetic kernel of the class (x * a + b, sum(x), a row softmax) over an
// array made here, scheduled the normal way under each candidate setting and
// timed (best of a few runs, wall clock around a finish).
#pragma once

#include "runtime/tuning_file.hpp"
#include "src/scheduler.hpp"

namespace fusecl::detail {

struct DeviceState;

/// The values of class c's knobs not in `pinned` (a bit per rt::Knob),
/// measured on `dev` (its lock held) starting from `start`, the device's
/// tuning now: a candidate replaces the current value only when clearly
/// faster. A class whose synthetic kernel does not schedule as that class on
/// this device (no row kernel fits, say) keeps its values, unmeasured.
/// Throws (fusecl::Error) when the device cannot run the kernels.
rt::TunedValues measure_class(DeviceState& dev, rt::TuneClass c, const DeviceTuning& start, unsigned pinned);

}  // namespace fusecl::detail
