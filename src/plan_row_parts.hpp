// What plan_row.cpp (the general and deep forms of a row kernel) and
// plan_row_columns.cpp (its column and lanes forms) share: the facts of a
// row kernel's layout every form takes, and the forms plan_row tries first.
#pragma once

#include "src/body_builder.hpp"
#include "src/scheduler.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace fusecl::detail {

/// Softmax's max and sum in one pass (ReduceSpec::row_online) for a row
/// kernel that loops over its rows: on GPUs (plan_row.cpp says why).
bool online_pass(const codegen::KernelPlan& plan, const DeviceTuning& tuning);
/// The largest work-group a row kernel takes (a power of two, at most 1024).
std::int64_t largest_row_group(const DeviceTuning& tuning);
/// Rows split over segments: each segment's length (a multiple of 16), and
/// how many segments a row of m takes, `given` or of about `target` each.
std::int64_t segment_length(std::int64_t m, std::int64_t segments);
std::int64_t split_segments(std::int64_t m, std::int64_t given, std::int64_t target);
/// A CPU's compensated sums in several chains, where they pay (plan_row.cpp says where).
void take_chains(BodyBuilder& b, const DeviceTuning& tuning);
/// A split row kernel's part: the partials kernel's outputs or the output kernel's reads of them.
void mark_split(BodyBuilder& b, const RowSplit& split, std::int64_t segments);

/// The column form (rows along leading axes, read along the kept inner
/// axes), where it applies: b then holds its plan.
std::optional<ScheduledKernel> plan_row_columns(BodyBuilder& b, const Shape& shape, const std::vector<int>& axes,
                                                const DeviceTuning& tuning, const RowSplit* split);
/// The lanes form (a CPU's short rows along the last axes, a lane each), where it applies.
std::optional<ScheduledKernel> plan_row_lanes(BodyBuilder& b, const Shape& shape, const std::vector<int>& axes,
                                              const DeviceTuning& tuning);

}  // namespace fusecl::detail
