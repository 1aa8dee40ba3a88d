// Reductions over short rows in lanes: where the scheduler takes a GPU's
// lane-row form (codegen ReduceSpec::lanes_per_row, render_lane_rows.cpp)
// and a CPU's rows a lane each (ReduceSpec::row_lanes, render_reduce.cpp's
// lanes_rows), and whether an arg-reduction's indices fit its vectors'
// lanes. scheduler.cpp's plan_reduction asks these first.
#pragma once

#include "src/body_builder.hpp"
#include "src/scheduler.hpp"

#include <cstdint>

namespace fusecl::detail {

/// Whether an arg-reduction's values over m elements take vectors with
/// their indices beside them (ints of the value's size).
bool arg_lanes_fit(const codegen::ReduceSpec& rs, std::int64_t m);
/// A GPU's short rows along the last axes in lanes: true if b now holds
/// that plan (lane_rows.cpp says where).
bool lanes_for_rows(BodyBuilder& b, std::int64_t n, std::int64_t m, bool arg, bool online, bool across_rows, const DeviceTuning& tuning);
/// A CPU's rows of 2 to 2w elements a lane each: true if b now holds that plan.
bool rows_in_lanes(BodyBuilder& b, std::int64_t n, std::int64_t m, bool arg, bool online, const DeviceTuning& tuning);

}  // namespace fusecl::detail
