// Schedules kept and run again with other buffers (replay.hpp).
#include "src/replay.hpp"

#include "src/device_state.hpp"
#include "src/launch.hpp"

#include <algorithm>

namespace fusecl::detail {

std::shared_ptr<Replay> make_replay(const Schedule& s, std::span<const std::shared_ptr<rt::DeviceBuffer>> buffers,
                                    const std::function<int(const Node&)>& scalar_index, bool fixed_allowed,
                                    std::string& reason) {
  auto r = std::make_shared<Replay>();
  for (const auto& o : s.outputs) {
    if (o.preset) {
      reason = "internal: a schedule output is preset";
      return nullptr;
    }
    r->outputs.push_back({o.dtype, o.elements});
  }
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const ScheduleStep& st = s.steps[i];
    if (st.kind != ScheduleStep::Kind::Kernel) {
      reason = "it copies an array from another device";
      return nullptr;
    }
    Replay::Step step{st.kernel, {}, {}, st.outputs, st.reads, {}};
    for (const auto& [slot, node] : st.kernel.args.scalar_nodes) {
      const int i = scalar_index(*node);
      if (i >= 0) {
        step.scalars.push_back({slot, i});
      } else if (!fixed_allowed) {
        reason = "internal: a scalar that is not one of the graph's";
        return nullptr;
      }
    }
    step.kernel.args.scalar_nodes.clear();  // this graph's nodes: the plan outlives them
    for (auto& in : step.kernel.args.inputs) {
      int source = Replay::kOutput;
      if (in.pending < 0) {
        const auto it = std::find(buffers.begin(), buffers.end(), in.buffer);
        source = in.buffer && it != buffers.end() ? int(it - buffers.begin()) : Replay::kFixed;
        if (source == Replay::kFixed && !fixed_allowed) {
          reason = "a kernel reads memory that is not one of the graph's buffers";
          return nullptr;
        }
        if (source != Replay::kFixed) in.buffer.reset();  // the plan holds no run's memory
      }
      step.source.push_back(source);
    }
    for (const int k : st.outputs) r->outputs[std::size_t(k)].last_write = r->outputs[std::size_t(k)].last_use = int(i);
    for (const int k : st.reads)
      r->outputs[std::size_t(k)].last_use = std::max(r->outputs[std::size_t(k)].last_use, int(i));
    r->steps.push_back(std::move(step));
  }
  if (std::any_of(r->outputs.begin(), r->outputs.end(), [](const Replay::Output& o) { return o.last_write < 0; })) {
    reason = "an output no kernel writes (an empty concatenation)";
    return nullptr;
  }
  return r;
}

SmallVector<std::shared_ptr<rt::DeviceBuffer>, 4> run_replay(
    DeviceState& dev, Replay& r, std::span<const std::shared_ptr<rt::DeviceBuffer>> buffers,
    std::span<const std::uint64_t> scalars,
    const std::function<void(std::size_t, const std::shared_ptr<rt::DeviceBuffer>&)>& finished) {
  SmallVector<std::shared_ptr<rt::DeviceBuffer>, 4> bufs(r.outputs.size());
  SmallVector<std::shared_ptr<rt::DeviceBuffer>, 2> outs;  // one step's, reused
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    Replay::Step& st = r.steps[i];
    outs.clear();
    for (const int k : st.outputs) {
      auto& b = bufs[std::size_t(k)];
      const Replay::Output& o = r.outputs[std::size_t(k)];
      if (!b) b = rt::allocate_output(dev.runtime(), std::size_t(o.elements) * std::size_t(size_of(o.dtype)));
      outs.push_back(b);
    }
    // The run's buffers go into the kept arguments for the launch only (the
    // plan never holds a run's memory), without copying the arguments.
    auto& inputs = st.kernel.args.inputs;
    struct Clear {
      Replay::Step& st;
      ~Clear() {
        for (std::size_t j = 0; j < st.source.size(); ++j)
          if (st.source[j] != Replay::kFixed) st.kernel.args.inputs[j].buffer.reset();
      }
    } clear{st};
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      if (st.source[j] >= 0) inputs[j].buffer = buffers[std::size_t(st.source[j])];
      else if (st.source[j] == Replay::kOutput) inputs[j].buffer = bufs[std::size_t(inputs[j].pending)];
    }
    for (const auto& [slot, k] : st.scalars) st.kernel.args.scalars[std::size_t(slot)] = scalars[std::size_t(k)];
    launch(dev, st.kernel, {outs.data(), outs.size()}, &st.memo);
    for (const int k : st.outputs)
      if (r.outputs[std::size_t(k)].last_write == int(i)) finished(std::size_t(k), bufs[std::size_t(k)]);
    auto release = [&](int k) {
      const Replay::Output& o = r.outputs[std::size_t(k)];
      if (o.last_use == int(i) && !o.kept) bufs[std::size_t(k)].reset();
    };
    std::for_each(st.outputs.begin(), st.outputs.end(), release);
    std::for_each(st.reads.begin(), st.reads.end(), release);
  }
  return bufs;
}

}  // namespace fusecl::detail
