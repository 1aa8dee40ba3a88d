#include "runtime/transfer.hpp"

#include "fusecl/error.hpp"
#include "runtime/context.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/host_copy.hpp"
#include "runtime/stats_counters.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

namespace fusecl::rt {

Staging::Staging(cl_context ctx, cl_command_queue queue) : queue_(queue) {
  try {
    for (auto& s : slots_) {
      cl_int err = CL_SUCCESS;
      s.mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kChunk, nullptr, &err);
      check(err, "clCreateBuffer (pinned staging)");
      s.host = clEnqueueMapBuffer(queue_, s.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kChunk, 0, nullptr, nullptr, &err);
      check(err, "clEnqueueMapBuffer (pinned staging)");
    }
  } catch (...) {
    release();  // what was made before the failure
    throw;
  }
}

Staging::~Staging() { release(); }

void Staging::release() noexcept {
  // Nothing can be reported from here; a failure leaves nothing to undo.
  for (auto& s : slots_) {
    if (s.done) {
      static_cast<void>(clWaitForEvents(1, &s.done));
      static_cast<void>(clReleaseEvent(s.done));
      s.done = nullptr;
    }
    if (s.host) static_cast<void>(clEnqueueUnmapMemObject(queue_, s.mem, s.host, 0, nullptr, nullptr));
    s.host = nullptr;
  }
  static_cast<void>(clFinish(queue_));
  for (auto& s : slots_) {
    if (s.mem) static_cast<void>(clReleaseMemObject(s.mem));
    s.mem = nullptr;
  }
}

void Staging::wait(std::size_t i) {
  Slot& s = slots_[i];
  if (!s.done) return;
  const cl_int err = clWaitForEvents(1, &s.done);
  static_cast<void>(clReleaseEvent(s.done));
  s.done = nullptr;
  // A transfer that failed on the device: the data it carried is lost, so
  // the evaluation that needed it must not go on as if it had arrived.
  check(err, "clWaitForEvents (staged transfer)");
}

namespace {

TransferMode mode_from_env() {
  const std::string_view v = trim(env_value("FUSECL_TRANSFERS"));
  if (v.empty() || v == "auto") return TransferMode::Auto;
  if (v == "direct") return TransferMode::Direct;
  if (v == "staged") return TransferMode::Staged;
  if (v == "mapped") return TransferMode::Mapped;
  write_to_stderr("fusecl: warning: FUSECL_TRANSFERS='" + std::string(v) +
                  "' is none of auto, direct, staged, mapped; using auto");
  return TransferMode::Auto;
}

std::atomic<TransferMode>& mode() {
  static std::atomic<TransferMode> m{mode_from_env()};
  return m;
}

}  // namespace

TransferMode transfer_mode() { return mode().load(std::memory_order_relaxed); }
void set_transfer_mode(TransferMode m) { mode().store(m); }

TransferPath transfer_path(const Runtime& rt, std::size_t bytes) {
  if (bytes < kStagedMinBytes) return TransferPath::Direct;
  switch (transfer_mode()) {
    case TransferMode::Direct: return TransferPath::Direct;
    case TransferMode::Staged: return TransferPath::Staged;
    case TransferMode::Mapped: return TransferPath::Mapped;
    case TransferMode::Auto: break;
  }
  if (copy_threads() < 2) return TransferPath::Direct;
  return rt.dev.info.host_unified_memory ? TransferPath::Mapped : TransferPath::Staged;
}

namespace {

// A queue with its staging buffers (made on first use, under `mutex`).
struct Lane {
  cl_context ctx;
  cl_command_queue q;
  std::unique_ptr<Staging>& staging;
  std::mutex& mutex;
};

Lane main_lane(Runtime& rt) { return {rt.ctx, rt.queue, rt.staging, rt.staging_mutex}; }

Staging& staging_of(Lane& l) {
  // The caller holds l.mutex.
  if (!l.staging) l.staging = std::make_unique<Staging>(l.ctx, l.q);
  return *l.staging;
}

std::string what(const char* call, std::size_t bytes) { return std::string(call) + " of " + std::to_string(bytes) + " bytes"; }

// Chunk k of a staged transfer of `bytes`: where it starts, its length, its slot.
struct Chunk {
  std::size_t off, n, slot;
};
Chunk chunk(std::size_t k, std::size_t bytes) {
  const std::size_t off = k * Staging::kChunk;
  return {off, std::min(Staging::kChunk, bytes - off), k % Staging::kSlots};
}

// A buffer's range mapped into host memory for the scope (blocking), unmapped
// after. Unmapping is enqueued; later work on the in-order queue waits for it.
struct Mapping {
  Mapping(cl_command_queue q, cl_mem mem, std::size_t offset, std::size_t bytes, cl_map_flags flags) : q_(q), mem_(mem) {
    cl_int err = CL_SUCCESS;
    host = clEnqueueMapBuffer(q, mem, CL_TRUE, flags, offset, bytes, 0, nullptr, nullptr, &err);
    check(err, what("clEnqueueMapBuffer", bytes).c_str());
  }
  ~Mapping() {
    // Nothing can be thrown here; a failed unmap leaves a mapping the buffer's release ends.
    static_cast<void>(clEnqueueUnmapMemObject(q_, mem_, host, 0, nullptr, nullptr));
    static_cast<void>(clFlush(q_));
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  void* host = nullptr;

 private:
  cl_command_queue q_;
  cl_mem mem_;
};

}  // namespace

namespace {

void write_via(Runtime& rt, Lane lane, cl_mem dst, const void* src, std::size_t bytes) {
  switch (transfer_path(rt, bytes)) {
    case TransferPath::Direct:
      check(clEnqueueWriteBuffer(lane.q, dst, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr),
            what("clEnqueueWriteBuffer", bytes).c_str());
      return;
    case TransferPath::Mapped: {
      // Blocking map: the queue's earlier work on dst is done, and nothing
      // enqueued later runs before the unmap.
      const Mapping m(lane.q, dst, 0, bytes, CL_MAP_WRITE_INVALIDATE_REGION);
      copy_parallel(m.host, src, bytes);
      return;
    }
    case TransferPath::Staged: break;
  }
  // Chunk k is copied into slot k % kSlots while earlier chunks are on the
  // bus; a slot is reused once its last write is done. The writes are queued
  // in order before anything that reads `dst`, so nothing waits for the last
  // ones here: the caller's memory was copied out of by then.
  const std::lock_guard<std::mutex> lock(lane.mutex);
  Staging& st = staging_of(lane);
  const auto* from = static_cast<const unsigned char*>(src);
  const std::size_t chunks = (bytes + Staging::kChunk - 1) / Staging::kChunk;
  for (std::size_t k = 0; k < chunks; ++k) {
    const Chunk c = chunk(k, bytes);
    st.wait(c.slot);
    copy_parallel(st.host(c.slot), from + c.off, c.n);
    check(clEnqueueWriteBuffer(lane.q, dst, CL_FALSE, c.off, c.n, st.host(c.slot), 0, nullptr, st.event(c.slot)),
          what("clEnqueueWriteBuffer (staged chunk)", c.n).c_str());
    if (k == 0) static_cast<void>(clFlush(lane.q));  // start the bus at once
  }
  static_cast<void>(clFlush(lane.q));
}

void read_via(Runtime& rt, Lane lane, cl_mem src, std::size_t offset, std::size_t bytes, void* dst) {
  switch (transfer_path(rt, bytes)) {
    case TransferPath::Direct:
      check(clEnqueueReadBuffer(lane.q, src, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr),
            what("clEnqueueReadBuffer", bytes).c_str());
      return;
    case TransferPath::Mapped: {
      const Mapping m(lane.q, src, offset, bytes, CL_MAP_READ);
      copy_parallel(dst, m.host, bytes);
      return;
    }
    case TransferPath::Staged: break;
  }
  // Up to kSlots chunks are on the bus while the oldest is copied out.
  const std::lock_guard<std::mutex> lock(lane.mutex);
  Staging& st = staging_of(lane);
  auto* to = static_cast<unsigned char*>(dst);
  const std::size_t chunks = (bytes + Staging::kChunk - 1) / Staging::kChunk;
  auto enqueue = [&](std::size_t k) {
    const Chunk c = chunk(k, bytes);
    st.wait(c.slot);
    check(clEnqueueReadBuffer(lane.q, src, CL_FALSE, offset + c.off, c.n, st.host(c.slot), 0, nullptr, st.event(c.slot)),
          what("clEnqueueReadBuffer (staged chunk)", c.n).c_str());
  };
  for (std::size_t k = 0; k < std::min(chunks, Staging::kSlots); ++k) enqueue(k);
  static_cast<void>(clFlush(lane.q));
  for (std::size_t k = 0; k < chunks; ++k) {
    const Chunk c = chunk(k, bytes);
    st.wait(c.slot);
    copy_parallel(to + c.off, st.host(c.slot), c.n);
    if (k + Staging::kSlots < chunks) {
      enqueue(k + Staging::kSlots);
      static_cast<void>(clFlush(lane.q));
    }
  }
}

}  // namespace

void write_buffer(Runtime& rt, cl_mem dst, const void* src, std::size_t bytes) { write_via(rt, main_lane(rt), dst, src, bytes); }

void read_buffer(Runtime& rt, cl_mem src, std::size_t offset, std::size_t bytes, void* dst) {
  read_via(rt, main_lane(rt), src, offset, bytes, dst);
}

// ---- streamed evaluations' queues ----

StreamQueues::StreamQueues(cl_context ctx, cl_device_id device) {
  cl_int err = CL_SUCCESS;
  up = clCreateCommandQueue(ctx, device, 0, &err);
  check(err, "clCreateCommandQueue (stream uploads)");
  down = clCreateCommandQueue(ctx, device, 0, &err);
  if (err != CL_SUCCESS) {
    static_cast<void>(clReleaseCommandQueue(up));
    check(err, "clCreateCommandQueue (stream downloads)");
  }
}

StreamQueues::~StreamQueues() {
  static_cast<void>(clFinish(up));
  static_cast<void>(clFinish(down));
  up_staging.reset();
  down_staging.reset();
  static_cast<void>(clReleaseCommandQueue(up));
  static_cast<void>(clReleaseCommandQueue(down));
}

EventHandle::~EventHandle() {
  if (ev) static_cast<void>(clReleaseEvent(ev));
}

namespace {

StreamQueues& streams_of(Runtime& rt) {
  const std::lock_guard<std::mutex> lock(rt.streams_mutex);
  if (!rt.streams) rt.streams = std::make_unique<StreamQueues>(rt.ctx, rt.dev.device);
  return *rt.streams;
}

// A marker on `q`: done when everything enqueued on it before is.
Event marker_on(cl_command_queue q) {
  cl_event ev = nullptr;
  check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
  static_cast<void>(clFlush(q));
  return std::make_shared<EventHandle>(ev);
}

}  // namespace

void finish_streams(Runtime& rt) {
  StreamQueues* s = nullptr;
  {
    const std::lock_guard<std::mutex> lock(rt.streams_mutex);
    s = rt.streams.get();
  }
  if (!s) return;
  check(clFinish(s->up), "clFinish (stream uploads)");
  check(clFinish(s->down), "clFinish (stream downloads)");
}

bool streams_overlap(const Runtime& rt) {
  const TransferMode m = transfer_mode();
  return m == TransferMode::Staged || (m == TransferMode::Auto && !rt.dev.info.host_unified_memory && copy_threads() >= 2);
}

std::shared_ptr<DeviceBuffer> stream_upload(Runtime& rt, const void* data, std::size_t bytes) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>();
  StreamQueues& s = streams_of(rt);
  std::shared_ptr<DeviceBuffer> buf = rt.pool->allocate(bytes);
  write_via(rt, {rt.ctx, s.up, s.up_staging, s.up_mutex}, buf->mem, data, bytes);
  counters().uploads += 1;
  counters().bytes_uploaded += bytes;
  return buf;
}

void stream_uploads_after_kernels(Runtime& rt) {
  const Event kernels = marker_on(rt.queue);
  check(clEnqueueBarrierWithWaitList(streams_of(rt).up, 1, &kernels->ev, nullptr), "clEnqueueBarrierWithWaitList (uploads)");
}

Event stream_uploads_done(Runtime& rt) { return marker_on(streams_of(rt).up); }

void kernels_wait(Runtime& rt, const Event& e) {
  check(clEnqueueBarrierWithWaitList(rt.queue, 1, &e->ev, nullptr), "clEnqueueBarrierWithWaitList (kernels)");
}

Event mark(Runtime& rt) { return marker_on(rt.queue); }

void stream_download(Runtime& rt, const DeviceBuffer& buf, std::size_t bytes, void* dst, const Event& after) {
  if (bytes == 0) return;
  StreamQueues& s = streams_of(rt);
  check(clEnqueueBarrierWithWaitList(s.down, 1, &after->ev, nullptr), "clEnqueueBarrierWithWaitList (stream download)");
  read_via(rt, {rt.ctx, s.down, s.down_staging, s.down_mutex}, buf.mem, 0, bytes, dst);
  counters().downloads += 1;
  counters().bytes_downloaded += bytes;
}

void wait(const Event& e) {
  if (e && e->ev) check(clWaitForEvents(1, &e->ev), "clWaitForEvents");
}

namespace {

// A buffer over host memory the device uses in place (CL_MEM_USE_HOST_PTR),
// where that copies nothing: on devices sharing the host's memory, when
// transfers may map. Null where not, or where the driver declines.
std::shared_ptr<DeviceBuffer> in_place(Runtime& rt, void* start, std::size_t bytes, cl_mem_flags access) {
  const TransferMode mode = transfer_mode();
  if (!rt.dev.info.host_unified_memory || bytes == 0 || !start) return nullptr;
  if (mode != TransferMode::Auto && mode != TransferMode::Mapped) return nullptr;
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(rt.ctx, access | CL_MEM_USE_HOST_PTR, bytes, start, &err);
  if (err != CL_SUCCESS || !mem) return nullptr;
  // Not the pool's: it holds no device memory, and goes when its last user does.
  return std::shared_ptr<DeviceBuffer>(new DeviceBuffer{mem, bytes, bytes}, [](DeviceBuffer* b) {
    static_cast<void>(clReleaseMemObject(b->mem));
    delete b;
  });
}

}  // namespace

std::shared_ptr<DeviceBuffer> wrap_host(Runtime& rt, const void* data, std::size_t bytes, std::size_t* pad) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(data);
  *pad = std::size_t(at % 128);
  // The device only reads it; OpenCL takes a non-const pointer for both uses.
  auto buf = in_place(rt, reinterpret_cast<void*>(at - *pad), bytes ? bytes + *pad : 0, CL_MEM_READ_ONLY);
  if (!buf) return nullptr;  // upload instead
  counters().uploads += 1;
  counters().bytes_uploaded += bytes;
  return buf;
}

std::shared_ptr<DeviceBuffer> wrap_host_out(Runtime& rt, void* data, std::size_t bytes) {
  if (reinterpret_cast<std::uintptr_t>(data) % 128 != 0) return nullptr;
  return in_place(rt, data, bytes, CL_MEM_WRITE_ONLY);
}

void host_sync(Runtime& rt, const DeviceBuffer& buf) {
  // A blocking map waits for the kernels writing it and, where the driver
  // kept a copy of its own, brings the values to the host memory it wraps.
  { const Mapping m(rt.queue, buf.mem, 0, buf.bytes, CL_MAP_READ); }
  counters().downloads += 1;
  counters().bytes_downloaded += buf.bytes;
}

void copy_buffer(Runtime& rt, const DeviceBuffer& src, std::size_t src_offset, const DeviceBuffer& dst,
                 std::size_t dst_offset, std::size_t bytes) {
  if (bytes == 0) return;
  if (src_offset > src.bytes || bytes > src.bytes - src_offset || dst_offset > dst.bytes || bytes > dst.bytes - dst_offset)
    throw Error("copy_buffer: " + std::to_string(bytes) + " bytes from offset " + std::to_string(src_offset) + " of " +
                std::to_string(src.bytes) + " to offset " + std::to_string(dst_offset) + " of " + std::to_string(dst.bytes));
  check(clEnqueueCopyBuffer(rt.queue, src.mem, dst.mem, src_offset, dst_offset, bytes, 0, nullptr, nullptr),
        what("clEnqueueCopyBuffer", bytes).c_str());
}

}  // namespace fusecl::rt
