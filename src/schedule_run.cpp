// Runs a schedule (schedule.hpp) on a device: the only place where the
// kernels the pass planned allocate memory, launch and turn nodes into buffers.
#include "src/schedule.hpp"

#include "fusecl/error.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/materialize.hpp"

#include <algorithm>

namespace fusecl::detail {

void become_buffer(Node& n, std::shared_ptr<rt::DeviceBuffer> buf) {
  n.op = Op::Buffer;
  n.data = BufferData{std::move(buf)};
  n.host = false;
  release_inputs(n.inputs);  // a long chain below is freed without recursion
  n.weight = 1;
  n.depth = 0;
}

namespace {

std::shared_ptr<rt::DeviceBuffer> allocate(DeviceState& dev, const ScheduleOutput& o) {
  if (o.preset) return o.preset;
  return rt::allocate_output(dev.runtime(), std::size_t(o.elements) * std::size_t(size_of(o.dtype)));
}

// A copy on `dev` of `source`, an evaluated node of another device, through
// host memory (two contexts share no memory objects).
std::shared_ptr<rt::DeviceBuffer> copy_to(DeviceState& dev, const Node& source) {
  const std::size_t bytes = std::size_t(source.shape.size()) * std::size_t(size_of(source.dtype));
  std::vector<unsigned char> host(bytes);
  if (bytes) rt::download(source.device->runtime(), *source.buffer(), 0, bytes, host.data());
  return rt::upload(dev.runtime(), host.data(), bytes);
}

}  // namespace

void run_schedule(DeviceState& dev, Schedule& s) {
  const std::size_t n = s.outputs.size();
  // Each output is made just before its first writer and its nodes become
  // buffers after its last writer; the runner's own references go after the
  // last step that uses it, so intermediate buffers return to the pool as
  // soon as the graph holding them is released, as they would step by step.
  struct Slot {
    int last_write = -1, last_use = -1;
    std::shared_ptr<rt::DeviceBuffer> buf;
  };
  SmallVector<Slot, 4> slots(n);
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    for (const int k : s.steps[i].outputs) slots[std::size_t(k)].last_write = slots[std::size_t(k)].last_use = int(i);
    for (const int k : s.steps[i].reads)
      slots[std::size_t(k)].last_use = std::max(slots[std::size_t(k)].last_use, int(i));
  }
  auto finish = [&](std::size_t k) {
    for (const auto& node : s.outputs[k].nodes) become_buffer(*node, slots[k].buf);
  };
  // Outputs no kernel writes (a concatenation of empty arrays) exist at once.
  for (std::size_t k = 0; k < n; ++k)
    if (slots[k].last_write < 0 && !s.outputs[k].nodes.empty()) {
      slots[k].buf = allocate(dev, s.outputs[k]);
      finish(k);
    }
  SmallVector<std::shared_ptr<rt::DeviceBuffer>, 2> outs;  // one step's, reused
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    ScheduleStep& step = s.steps[i];
    if (step.kind == ScheduleStep::Kind::Copy) {
      // On its own device, whose lock GraphLock took with ours.
      evaluate({step.source});
      slots[std::size_t(step.outputs.at(0))].buf = copy_to(dev, *step.source);
      step.source.reset();
    } else {
      outs.clear();
      for (const int k : step.outputs) {
        auto& b = slots[std::size_t(k)].buf;
        if (!b) b = allocate(dev, s.outputs[std::size_t(k)]);
        outs.push_back(b);
      }
      for (auto& in : step.kernel.args.inputs)
        if (in.pending >= 0) in.buffer = slots.at(std::size_t(in.pending)).buf;
      launch(dev, step.kernel, {outs.data(), outs.size()});
      step.kernel.args.inputs.clear();  // its input buffers are not held past their last use
    }
    for (const int k : step.outputs)
      if (slots[std::size_t(k)].last_write == int(i)) finish(std::size_t(k));
    auto release = [&](int k) {
      if (slots[std::size_t(k)].last_use != int(i)) return;
      slots[std::size_t(k)].buf.reset();
      s.outputs[std::size_t(k)].nodes.clear();
    };
    std::for_each(step.outputs.begin(), step.outputs.end(), release);
    std::for_each(step.reads.begin(), step.reads.end(), release);
  }
}

}  // namespace fusecl::detail
