// Whether an elementwise kernel reads some operand through a transpose, and
// if so whether it is tiled (codegen/render_tiled.cpp) or read in place.
#pragma once

#include "src/scheduler.hpp"

namespace fusecl::detail {

/// Shortest length of either tile axis for which tiles are used: shorter
/// squares leave most of a tile's work-items idle, for little gain.
constexpr std::int64_t kMinTileAxis = 16;

/// On a plan_elementwise plan whose loads are classified on its index space
/// (args.dims): when some buffer load is read through a transpose (stride 1
/// along an index dimension other than the innermost, which it steps through
/// with a stride other than 0 or 1), tiles the plan where that helps and the
/// device allows (plan.tile, plan.tile_axis, those loads' access Tiled, width
/// 1). Returns what was decided, for FUSECL_LOG=schedule: null when no load
/// is transposed, else a static text.
const char* choose_tiling(codegen::KernelPlan& plan, const KernelArgs& args, const DeviceTuning& tuning);

}  // namespace fusecl::detail
