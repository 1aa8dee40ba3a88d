#include "src/materialize.hpp"

#include "fusecl/error.hpp"
#include "runtime/env_settings.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/plan_cache.hpp"
#include "src/schedule.hpp"
#include "src/stream.hpp"
#include "src/tuning.hpp"

#include <algorithm>
#include <atomic>
#include <iostream>

namespace fusecl::detail {

namespace {

thread_local std::uint64_t evaluations = 0;

std::atomic<bool>& fusion_flag() {
  static std::atomic<bool> on{rt::switch_setting("FUSECL_FUSION", true)};
  return on;
}

// A root reading host views: computed chunk by chunk into a buffer, or,
// where it cannot follow the chunks itself, after its inputs are.
void evaluate_host(const NodePtr& r) {
  if (r->op == Op::Buffer || !refresh_host(*r)) return;
  if (chunkable(*r)) return evaluate_streamed(r);
  std::vector<NodePtr> inputs;
  for (const auto& in : r->inputs)
    if (in->host) inputs.push_back(in);
  evaluate(inputs);
  r->host = false;
}

// Evaluates roots that all live on `dev`: the pass decides every kernel, then they run.
void evaluate_on(DeviceState& dev, const std::vector<NodePtr>& roots) {
  for (const auto& r : roots)
    if (r->host) evaluate_host(r);
  ScratchKey scratch;
  GraphKey& key = *scratch;
  const bool keyed = plan_cache_enabled() && make_graph_key(roots, key);
  if (keyed && run_kept_plan(dev, key)) return;
  Schedule s = tuned_schedule(dev, roots);
  if (s.steps.empty() && s.outputs.empty()) return;
  if (keyed) keep_plan(dev, std::move(key), s);
  if (log_schedules()) std::cerr << describe(s, describe(dev)) << std::flush;
  run_schedule(dev, s);
}

}  // namespace

std::uint64_t evaluations_on_this_thread() { return evaluations; }
void count_evaluation_on_this_thread() { ++evaluations; }

bool fusion_enabled() { return fusion_flag().load(std::memory_order_relaxed); }
void set_fusion_enabled(bool on) { fusion_flag().store(on); }

void evaluate(const std::vector<NodePtr>& roots) {
  ++evaluations;
  // Roots on one device are the common case: no grouping needed.
  DeviceState* first = nullptr;
  bool one_device = true;
  for (const auto& r : roots) {
    if (!r->device) continue;  // scalars are never evaluated
    if (first && r->device.get() != first) one_device = false;
    if (!first) first = r->device.get();
  }
  if (!first) return;
  if (one_device) return evaluate_on(*first, roots);
  std::vector<std::pair<DeviceState*, std::vector<NodePtr>>> by_device;
  for (const auto& r : roots) {
    if (!r->device) continue;
    auto it = std::find_if(by_device.begin(), by_device.end(), [&](const auto& p) { return p.first == r->device.get(); });
    if (it == by_device.end()) it = by_device.insert(by_device.end(), {r->device.get(), {}});
    it->second.push_back(r);
  }
  for (const auto& [dev, nodes] : by_device) evaluate_on(*dev, nodes);
}

bool evaluate_into(const NodePtr& root, std::shared_ptr<rt::DeviceBuffer> dst) {
  if (root->op == Op::Buffer || !root->device) return false;
  ++evaluations;
  DeviceState& dev = *root->device;
  Schedule s = tuned_schedule(dev, {root});
  const int k = s.output_of(*root);
  if (k < 0 || s.outputs[std::size_t(k)].nodes.size() != 1) return false;
  const bool written = std::any_of(s.steps.begin(), s.steps.end(), [&](const ScheduleStep& st) {
    return st.kind == ScheduleStep::Kind::Kernel && std::find(st.outputs.begin(), st.outputs.end(), k) != st.outputs.end();
  });
  if (!written) return false;
  s.outputs[std::size_t(k)].preset = std::move(dst);
  if (log_schedules()) std::cerr << describe(s, describe(dev)) << std::flush;
  run_schedule(dev, s);
  return true;
}

std::string kernel_source_of(const NodePtr& x) {
  if (x->op == Op::Buffer || x->op == Op::Scalar) return "";
  ++evaluations;
  if (x->host && refresh_host(*x) && chunkable(*x))
    return "// streamed over host views: every chunk of rows runs this kernel\n" + kernel_source_of(first_chunk(x));
  if (x->op == Op::Transfer) {
    evaluate({x->inputs[0]});
    return "// a copy from device " + describe(*x->inputs[0]->device) + " to " + describe(*x->device) +
           " through host memory: no kernel\n";
  }
  DeviceState& dev = *x->device;
  Schedule s = tuned_schedule(dev, {x});
  // x's own kernels are shown, not run; the steps before them run, so that
  // the source shown is the one evaluation would launch.
  const int own = s.output_of(*x);
  if (own < 0) return "";
  std::vector<ScheduledKernel> kernels;
  decltype(s.steps) before;
  for (auto& step : s.steps) {
    if (std::find(step.outputs.begin(), step.outputs.end(), own) != step.outputs.end()) kernels.push_back(std::move(step.kernel));
    else before.push_back(std::move(step));
  }
  s.steps = std::move(before);
  s.outputs.at(std::size_t(own)).nodes.clear();  // x stays unevaluated
  run_schedule(dev, s);
  if (x->op != Op::Concat) return kernels.empty() ? "" : kernel_source(dev.runtime(), kernels.back().plan).source;
  // As evaluation runs it: one kernel per non-empty input, in order, each
  // writing its slab of the output in place.
  std::string out = "// concatenate along axis " + std::to_string(x->concat_axis()) + " into shape " + x->shape.str() + ": " +
                    std::to_string(kernels.size()) + " kernel(s), one per non-empty input\n";
  std::int64_t start = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < x->inputs.size(); ++i) {
    const NodePtr& in = x->inputs[i];
    const std::int64_t len = in->shape.dims()[std::size_t(x->concat_axis())];
    if (in->shape.size() > 0) {
      out += "\n// input " + std::to_string(i) + ", shape " + in->shape.str() + " -> [" + std::to_string(start) + ", " +
             std::to_string(start + len) + ") along axis " + std::to_string(x->concat_axis()) + "\n";
      out += kernel_source(dev.runtime(), kernels.at(next++).plan).source;
    }
    start += len;
  }
  return out;
}

}  // namespace fusecl::detail
