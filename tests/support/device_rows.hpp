// Row layouts of an H200 and of a CPU (src/launch.cpp's defaults), set on any
// device's tuning, for the tests that pin row kernels' layouts wherever they run.
#pragma once

#include "src/device_state.hpp"
#include "src/scheduler.hpp"

#include <algorithm>
#include <cstddef>

namespace fusecl::test {

/// Groups of up to 256 for reductions, 16-byte vectors, 16 elements a
/// work-item in groups of up to 128 for short rows, 48 KiB of local memory,
/// `held` bytes of loads a work-item for long rows (0: none), and groups of
/// up to `most` work-items (0: the device's).
/// An H200's layout for moment kernels (var/std in one pass): groups of up to
/// 256, double2 accumulators, warps of 32, a row's several work-items, and
/// groups that fill 132 SMs.
inline void h200_moment_layout(detail::DeviceTuning& t) {
  t.one_pass_moments = true;
  t.local_size = 256;
  t.vector_bytes = 16;
  t.moment_width = 2;
  t.row_warp = 32;
  t.row_items_cap = 1024;  // a GPU's rows take several work-items (a CPU's, one each: scheduler.cpp's share_groups)
  t.target_groups = 528;   // and its groups fill 132 SMs
}

inline void h200_row_layout(detail::DeviceTuning& t, std::size_t held, std::size_t most = 0) {
  t.local_size = 256;
  t.vector_bytes = 16;
  t.elements_per_item = 16;
  t.row_group_cap = 128;
  t.row_register_elements = 16;
  t.row_items_cap = 1024;
  t.row_bytes = 49152;
  t.local_mem_bytes = 49152;
  t.row_held_bytes = held;
  t.row_stage = 1;  // rows staged through local memory where plan_row says (launch.cpp: every GPU)
  t.row_constant = true;  // row lengths constants of the source (launch.cpp: every GPU)
  t.reduce_chains = 1;    // compensated sums in one chain (launch.cpp: every GPU)
  if (most > 0) t.max_work_group_size = most;
}

/// `dev`'s tuning with an H200's row layout (h200_row_layout, `held` bytes
/// a work-item for long rows) and groups of up to `most` work-items.
inline detail::DeviceTuning h200_tuning(detail::DeviceState& dev, std::size_t held, std::size_t most = 1024) {
  auto t = detail::tuning_of(dev);
  h200_row_layout(t, held, most);
  return t;
}

/// A CPU's: a work-item per row in groups of 16, 64-byte vectors (16
/// floats, moment kernels' too), few groups to fill the device, and the
/// lanes form on or off.
inline void cpu_row_layout(detail::DeviceTuning& t, bool lanes) {
  t.local_size = 16;
  t.max_work_group_size = 16;
  t.vector_bytes = 64;
  t.row_items_cap = 1;
  t.row_group_cap = 1024;
  t.row_lanes = lanes;
  t.target_groups = 4;
  t.reduce_chains = 4;  // compensated sums in four chains (launch.cpp: every CPU)
  t.moment_width = 16;  // launch.cpp: every CPU (a GPU's 2)
}

/// A GPU's reduction layout, whatever this device is: groups of up to 256,
/// 16-byte vectors, double2 moments in one pass, several work-items a row,
/// and few groups to fill the device (so that small test arrays take
/// several rows a group); rows in lanes (lane_rows.cpp) where `lanes`.
/// Partials meet as the device's tuning says (row_warp) unless the caller sets it.
inline detail::DeviceTuning gpu_reduction_tuning(detail::DeviceState& dev, bool lanes) {
  auto t = detail::tuning_of(dev);
  t.local_size = 256;
  t.max_work_group_size = std::max<std::size_t>(t.max_work_group_size, 256);
  t.vector_bytes = 16;
  t.moment_width = 2;
  t.one_pass_moments = true;
  t.row_items_cap = 1024;
  t.target_groups = 8;
  t.lane_rows = lanes;
  return t;
}

/// gpu_reduction_tuning with short rows in lanes, their lanes meeting
/// through warps of `warp` (0: in local memory).
inline detail::DeviceTuning gpu_lane_tuning(detail::DeviceState& dev, int warp) {
  auto t = gpu_reduction_tuning(dev, true);
  t.row_warp = warp;
  return t;
}

/// A GPU's column reductions (launch.cpp: every GPU): blocks of 32
/// work-items side by side, 8 rows apart, their parts of the rows in one
/// wave of groups; on an H200's row layout with groups of up to 1024.
inline detail::DeviceTuning gpu_column_tuning(detail::DeviceState& dev) {
  auto t = h200_tuning(dev, 0, 1024);
  t.column_items = 32;
  t.column_rows = 8;
  t.column_one_wave = true;
  t.target_groups = 8;
  return t;
}

}  // namespace fusecl::test
