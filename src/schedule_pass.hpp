// The scheduling pass's state (make_schedule, schedule.hpp), shared by the
// files that take its decisions: schedule.cpp (the walk over the roots and
// their barriers, elementwise and reduction kernels), schedule_rows.cpp
// (row kernels: a reduction fused with what reads it) and schedule_pairs.cpp
// (pair kernels: a variance with its mean, softmax's sum with its max).
// Private to those files.
#pragma once

#include "codegen/body.hpp"
#include "src/reduction_pairs.hpp"
#include "src/row_fusion.hpp"
#include "src/schedule.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace fusecl::detail {

// A reduction already in the schedule: one reduction of one array, built
// twice in the same expression (a softmax written out: exp(x - max(x, 1,
// true)) / sum(exp(x - max(x, 1, true)), 1, true)), runs once. Holding the
// input keeps its address from being reused while the schedule is made.
struct MadeReduction {
  NodePtr input;
  Op op;
  DType dtype;
  Shape shape;
  std::vector<int> axes;
  double divisor;
  bool post_sqrt;
  int output;
};

struct FinishBody;  // reduce_finish.cpp

class Scheduler {
  // Short lists made for every evaluation: held in place (scheduler.hpp).
  using Nodes = SmallVector<NodePtr, 4>;
  using Outputs = ScheduleStep::OutputList;

 public:
  Scheduler(const DeviceTuning& tuning, Schedule& out) : schedule(out), tuning_(tuning) {}

  // Schedules `roots` and, first, the barriers below them; `reason` is why
  // the roots get kernels (the barriers have their own).
  void evaluate(const std::vector<NodePtr>& roots, CutReason reason);

  Schedule& schedule;  // being made

  // The output computing n, or -1: Schedule::output_of without its walk.
  int output_of(const Node& n) const { return pending_.find(n); }

 private:
  bool done(const Node& n) const { return is_evaluated(n, &pending_); }

  // Distinct nodes of `nodes` not scheduled or evaluated yet, in order.
  Nodes todo_of(const std::vector<NodePtr>& nodes) const {
    Nodes todo;
    for (const auto& r : nodes)
      if (r->op != Op::Scalar && !done(*r) &&
          std::none_of(todo.begin(), todo.end(), [&](const NodePtr& t) { return t.get() == r.get(); }))
        todo.push_back(r);
    return todo;
  }

  // ---- schedule.cpp: the kernels of roots whose barriers are scheduled ----
  void run(Nodes& todo, std::optional<CutReason> reason);

  // A new output holding n's value. Added to pending_ by the caller only
  // after the kernel computing it is planned, so that plan computes n.
  int new_output(const NodePtr& n) {
    schedule.outputs.push_back({{n}, n->dtype, n->shape.size(), false, nullptr});
    return int(schedule.outputs.size() - 1);
  }

  void add_kernel(ScheduledKernel&& k, const Shape& shape, const Outputs& outputs, CutReason reason);
  void add_roots_kernel(ScheduledKernel k, const Nodes& group, CutReason cut);
  std::uint64_t limit_of(CutReason r) const;
  void add_made(const NodePtr& n, int out);
  int find_made(const Node& r) const;

  // Kernel arguments are limited (CL_DEVICE_MAX_PARAMETER_SIZE, 1 KiB on
  // some devices) and a body with many strided loads or scalars needs many.
  // Where a plan does not fit, parts of the body get kernels first (each
  // smaller, its result read by the rest with one load); the elementwise
  // inputs of the body root, evaluate_inputs_first, are the fallback.
  bool fits(const ScheduledKernel& k) const { return codegen::param_bytes(k.plan) <= tuning_.max_parameter_bytes; }
  void evaluate_inputs_first(const NodePtr& body);
  bool evaluate_parts_to_fit(const NodePtr& body, const OutLayout* out);
  ScheduledKernel plan_reduce_fitting(const NodePtr& root);
  ScheduledKernel plan_elementwise_fitting(const NodePtr& root, const OutLayout* out = nullptr);
  std::uint64_t split_oversized(std::span<const NodePtr> bodies);

  // Why today's kernels compute reduction n, where a row kernel did not (RowTooLong, ColumnReductions).
  std::optional<CutReason> today(const Node& n) const {
    for (const auto& [node, why] : today_)
      if (node == &n) return why;
    return std::nullopt;
  }

  // ---- schedule_rows.cpp: a reduction and its readers in one row kernel ----
  bool schedule_row(const NodePtr& root, CutReason cut, std::span<const NodePtr> later = {});
  bool schedule_in_registers(const NodePtr& root, const RowFusion& rf, CutReason cut, bool vectors = false);
  bool split_wanted(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const;
  bool columns_today(const NodePtr& root, const RowFusion& rf, const codegen::KernelPlan& one) const;
  bool schedule_split(const NodePtr& root, const RowFusion& rf, CutReason cut);
  bool schedule_grid(const NodePtr& root, const RowFusion& rf, CutReason cut);
  bool odd_rows_today(const NodePtr& root, const RowFusion& rf) const;
  // Whether `root`'s rows (of rf.row_elements) are a multiple of the vector width of its dtype.
  bool whole_vectors(const NodePtr& root, std::int64_t row_elements) const {
    return row_elements % std::max(1, tuning_.vector_bytes / size_of(body_root(root)->dtype)) == 0;
  }

  // ---- schedule_pairs.cpp: two reductions of one array in one kernel ----
  template <class Check>
  bool decided(const Node& n, Check&& check);
  // decided's answer for n, if it has given one.
  std::optional<bool> decision(const Node& n) const {
    for (const auto& [node, ok] : pair_ok_)
      if (node == &n) return ok;
    return std::nullopt;
  }
  const NodePtr* moment_input(const Node& v);
  ReductionPair softmax_input(const Node& s);
  const NodePtr* pair_input(const Node& r);
  bool schedule_moment(const NodePtr& first, Nodes& todo, CutReason cut);
  bool schedule_softmax(const NodePtr& first, Nodes& todo, CutReason cut);

  // ---- reduce_finish.cpp: a reduction and its consumer in one kernel ----
  // Schedules root e, an elementwise function of the one reduction `deps`
  // holds, or of the two values one pair kernel computes (softmax's max and
  // sum: a logsumexp; a variance and its mean), and scalars, as that
  // kernel computing e where it stores (codegen KernelPlan::finish); false
  // where it does not take that form.
  bool schedule_finish(const NodePtr& e, const Nodes& deps, CutReason cut);
  bool schedule_pair_finish(const NodePtr& e, const Nodes& deps, CutReason cut);
  bool schedule_moment_finish(const NodePtr& e, const Nodes& deps, CutReason cut);
  bool add_finished(std::optional<ScheduledKernel> planned, FinishBody body, const NodePtr& e, const Shape& shape, CutReason cut);

  DeviceTuning tuning_;
  PendingOutputs pending_;
  std::vector<MadeReduction> made_;
  std::vector<std::pair<const Node*, CutReason>> today_;  // reductions a row kernel did not take, and why
  std::vector<std::pair<const Node*, bool>> pair_ok_;  // decided's answers (moment_input, softmax_input), asked again in run
};

}  // namespace fusecl::detail
