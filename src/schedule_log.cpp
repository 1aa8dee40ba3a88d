// FUSECL_LOG=schedule: each schedule, one line per step, on stderr before it
// runs, to see where kernels begin and end and why. Also where FUSECL_LOG is
// read (tune is the other log: tuning.hpp's measurements).
#include "src/schedule.hpp"

#include "runtime/env_settings.hpp"
#include "src/launch.hpp"

#include <algorithm>
#include <string_view>

namespace fusecl::detail {

namespace {

std::string node_text(const Node& n) { return std::string(op_name(n.op)) + " " + n.shape.str(); }

const char* kind_text(const ScheduleStep& s) {
  if (s.kind == ScheduleStep::Kind::Copy) return "copy";
  if (s.kernel.plan.kind == codegen::KernelKind::Row) return "row";
  return s.kernel.plan.kind == codegen::KernelKind::Reduce ? "reduce" : "elementwise";
}

}  // namespace

std::string ScheduleStep::why() const {
  switch (reason) {
    case CutReason::Root: return "evaluation root";
    case CutReason::Reduction: return "reduction";
    case CutReason::Concatenate: return "concatenate";
    case CutReason::Transfer: return "copy between devices";
    case CutReason::Contiguous: return "contiguous copy";
    case CutReason::BodyInstructions: return "body over " + std::to_string(limit) + " instructions";
    case CutReason::ParameterBytes: return "kernel arguments over " + std::to_string(limit) + " bytes";
    case CutReason::Partials: return "partial results of a reduction of the whole array (its reader combines them)";
    case CutReason::SegmentPartials:
      return "partial results of segments of rows (rows long enough to split; their output kernel combines them)";
    case CutReason::RowTooLong:
      return "reduction (its reader's rows read over " + std::to_string(limit) + " bytes, the device's local memory: no row kernel)";
    case CutReason::ColumnReductions:
      return "reduction down the columns of an array of " + std::to_string(limit) +
             " bytes or more (in vectors of columns, faster than a row kernel looping down them)";
  }
  return "";
}

std::string describe(const Schedule& s, const std::string& device) {
  std::string out = "fusecl: schedule on " + device + ": " + std::to_string(s.steps.size()) + " step(s), " +
                    std::to_string(s.kernel_count()) + " kernel(s)\n";
  // The step that last wrote each output so far: what a later step's read refers to.
  std::vector<int> writer(s.outputs.size(), -1);
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const ScheduleStep& st = s.steps[i];
    out += "fusecl:   #" + std::to_string(i) + " " + kind_text(st) + " " + st.shape.str() + ": computes ";
    for (std::size_t j = 0; j < st.outputs.size(); ++j) {
      const ScheduleOutput& o = s.outputs[std::size_t(st.outputs[j])];
      if (j) out += ", ";
      // The nodes are those the pass saw (still unevaluated: describe runs before the schedule).
      out += o.nodes.empty() ? (st.reason == CutReason::Partials || st.reason == CutReason::SegmentPartials ? "partial results (" + std::to_string(o.elements) + ")"
                                                                 : std::string("(released)"))
                             : node_text(*o.nodes.front());
      if (o.nodes.size() > 1) out += " (x" + std::to_string(o.nodes.size()) + ")";
      if (o.root) out += " [root]";
    }
    out += "; reads ";
    if (st.reads.empty()) out += "nothing";
    for (std::size_t j = 0; j < st.reads.size(); ++j)
      out += (j ? ", #" : "#") + std::to_string(writer[std::size_t(st.reads[j])]);
    out += "; cut: " + st.why();
    // Whether a transposed read is staged through tiles (tiling.hpp), and if not why.
    if (st.kind == ScheduleStep::Kind::Kernel && st.kernel.tiling) out += std::string("; ") + st.kernel.tiling;
    // Two reductions in one pass over the input (a pair kernel, a moment kernel).
    if (st.kind == ScheduleStep::Kind::Kernel && st.kernel.plan.kind == codegen::KernelKind::Reduce) {
      const auto& rs = st.kernel.plan.reduce;
      if (!st.kernel.plan.finish.empty())  // reduce_finish.cpp
        out += "; its consumer (" + std::to_string(st.kernel.plan.finish.size() - std::size_t(codegen::reduce_values(rs))) + " operations) computed where it stores";
      if (rs.online) out += "; the max and the sum of exp(x - max) in one pass";
      else if (rs.moment) out += rs.moment == 2 ? "; the variance and the mean in one pass" : "; the variance in one pass";
      // Short rows sharing a group (scheduler.cpp's share_groups), partials within warps.
      const int per_row = rs.local_size / std::max(1, int(rs.rows_per_group));
      if (rs.lanes_per_row > 0) {  // lane_rows.cpp's lanes_for_rows
        const int T = rs.lanes_per_row, V = codegen::lane_rounds(rs);
        const bool whole = rs.row_vectors % T == 0;
        out += "; short rows in lanes: " + std::to_string(T) + " work-item(s) a row, " + (whole ? "" : "up to ") + std::to_string(V) +
               " vector(s) of " + std::to_string(st.kernel.plan.width) + " each" +
               (whole ? std::string() : " (" + std::to_string(rs.row_vectors) + " a row, some lanes idle)") + ", " + std::to_string(rs.rows_per_item) +
               " row(s) a work-item, " + std::to_string(rs.rows_per_group) + " rows a work-group of " + std::to_string(rs.local_size) +
               (rs.row_warp && rs.lanes_per_row > 1 ? "; partial results meeting within warps" : "");
      } else if (rs.row_lanes) {  // lane_rows.cpp's rows_in_lanes
        out += "; short rows in lanes: " + std::to_string(st.kernel.plan.width) + " rows of " + std::to_string(rs.row_lane_length) +
               " a work-item, a lane each, read in vectors and turned into lanes";
      } else if (rs.rows_per_group > 1)
        out += "; " + std::to_string(rs.rows_per_group) + " short rows a work-group of " + std::to_string(rs.local_size) + " (" +
               (per_row == 1 ? std::string("a work-item") : std::to_string(per_row) + " work-items") + " a row)";
      if (rs.row_warp && per_row > 1 && rs.lanes_per_row == 0) out += "; partial results meeting within warps";
    }
    if (st.kind == ScheduleStep::Kind::Kernel && st.kernel.plan.kind == codegen::KernelKind::Row) {
      const auto& plan = st.kernel.plan;
      const auto phases = std::count_if(plan.instrs.begin(), plan.instrs.end(), codegen::is_row_reduction);
      const auto& rs = plan.reduce;
      out += "; row kernel: rows of " + std::to_string(st.kernel.args.reduce_count) + ", " + std::to_string(phases) +
             " reduction(s) in it, work-groups of " + std::to_string(rs.local_size) + " (" +
             std::to_string(rs.local_size / rs.rows_per_group) + " per row, " + std::to_string(rs.rows_per_group) +
             (rs.row_lanes     ? " vector(s) of " + std::to_string(plan.width) +
                                   " rows each, a lane a row: rows of at most two vectors, read in vectors across rows), "
              : rs.row_columns ? " vector(s) of " + std::to_string(plan.width) +
                                   " neighbouring columns each, rows along a leading axis read a row of columns at a time), "
                               : " row(s) each), ") +
             (rs.row_split ? std::string(rs.row_split == 1 ? "partials of " : "the outputs of, from their partials, ") +
                                 std::to_string(st.kernel.args.groups) + " segments a row, " : std::string()) +
             (rs.combine ? std::string("the whole array over ") + std::to_string(st.kernel.args.count) +
                               " groups, each combining the reduction's partial results"
              : rs.row_chunks ? "up to " + std::to_string(rs.row_chunks) + " elements each kept in registers" +
                                    (rs.row_recompute ? std::string(", exp and the like computed again in each phase") : std::string())
                              : std::string("the row re-read in each phase"));
      if (rs.row_reciprocal) out += "; dividing by the row's value through its reciprocal";
      if (rs.row_staged) out += "; the group's rows staged through local memory";
      if (rs.row_rotate) out += "; every other row's vectors rotated by one (whole 32-byte sectors a store)";
      // launch.cpp's length_admitted may still run it with the length as an argument.
      if (rs.row_length)
        out += "; the row length a constant of the kernel (a device's first " + std::to_string(kRowLengths) +
               " lengths of a kernel; later ones an argument)";
    }
    out += "\n";
    for (const int k : st.outputs) writer[std::size_t(k)] = int(i);
  }
  return out;
}

namespace {

enum LogBits : unsigned { kLogSchedule = 1, kLogTune = 2 };

// FUSECL_LOG: a comma-separated list of the logs wanted, read once. Unknown
// words get one warning; the known ones still count.
unsigned log_bits() {
  static const unsigned bits = [] {
    const std::string_view raw = rt::env_value("FUSECL_LOG");
    unsigned on = 0;
    std::string unknown;
    std::string_view rest = raw;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view word = rt::trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (word == "schedule") on |= kLogSchedule;
      else if (word == "tune") on |= kLogTune;
      else if (!word.empty()) unknown += (unknown.empty() ? "" : ", ") + std::string(word);
    }
    if (!unknown.empty())
      rt::write_to_stderr("fusecl: warning: FUSECL_LOG='" + std::string(raw) + "' asks for an unknown log (" + unknown +
                          "; the logs are schedule and tune, comma-separated); " +
                          (on ? "using the known ones" : "using no log"));
    return on;
  }();
  return bits;
}

}  // namespace

bool log_schedules() { return log_bits() & kLogSchedule; }

bool log_tuning() { return log_bits() & kLogTune; }

}  // namespace fusecl::detail
