// Moving bytes between host memory and a device. Devices with memory of their
// own (discrete GPUs) copy large transfers through pinned staging buffers in
// chunks: copying the caller's memory into pinned memory (on several cores)
// overlaps the DMA of the previous chunk, where a plain write from pageable
// memory runs at a fraction of the bus's rate. Devices that share the host's
// memory (CPUs through PoCL, integrated GPUs) copy directly.
#pragma once

#include "runtime/cl.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>

namespace fusecl::rt {

struct Runtime;

/// A runtime's staging buffers: pinned host memory (CL_MEM_ALLOC_HOST_PTR,
/// mapped once for the runtime's life), each with the event of the last
/// transfer using it. Made on the first staged transfer.
class Staging {
 public:
  static constexpr std::size_t kSlots = 4;
  static constexpr std::size_t kChunk = std::size_t(16) << 20;

  Staging(cl_context ctx, cl_command_queue queue);
  /// Waits for the transfers still using the buffers, then unmaps and releases them.
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  /// Host memory of slot i, kChunk bytes, free for the caller once wait(i) returned.
  void* host(std::size_t i) const { return slots_[i].host; }
  /// Waits until the last transfer using slot i is done.
  void wait(std::size_t i);
  /// The event the next transfer of slot i fills in (after wait(i)).
  cl_event* event(std::size_t i) { return &slots_[i].done; }

 private:
  void release() noexcept;
  struct Slot {
    cl_mem mem = nullptr;
    void* host = nullptr;
    cl_event done = nullptr;
  };
  cl_command_queue queue_;
  std::array<Slot, kSlots> slots_{};
};

/// The queues of streamed evaluations (host views) on devices with memory of
/// their own: chunks go up on one and come down on the other while kernels
/// run on the runtime's own queue, so the two directions of the bus and the
/// device's compute overlap. Each has its own staging buffers.
struct StreamQueues {
  StreamQueues(cl_context ctx, cl_device_id device);
  /// Waits for both queues, then releases them.
  ~StreamQueues();
  StreamQueues(const StreamQueues&) = delete;
  StreamQueues& operator=(const StreamQueues&) = delete;

  cl_command_queue up = nullptr, down = nullptr;
  std::unique_ptr<Staging> up_staging, down_staging;
  std::mutex up_mutex, down_mutex;
};

/// Waits until the stream queues (where made) are empty.
void finish_streams(Runtime& rt);

/// An OpenCL event, released with its last reference.
struct EventHandle {
  explicit EventHandle(cl_event e) : ev(e) {}
  ~EventHandle();
  EventHandle(const EventHandle&) = delete;
  EventHandle& operator=(const EventHandle&) = delete;
  cl_event ev;
};

/// Transfers at least this large go through staging (where the device has
/// memory of its own); smaller ones are one direct call, whose latency is
/// lower: on an H200, 4 MiB arrays went end to end faster direct (0.84-1.03 ms
/// against 1.24 ms for the demo chain at 2^20), 16 MiB ones staged (2.3-2.7 ms
/// against 3.0-4.0 ms).
constexpr std::size_t kStagedMinBytes = std::size_t(8) << 20;

/// Writes `bytes` from `src` into `dst` at offset 0; the caller's memory is
/// free when this returns (staged chunks are copied out of it by then).
void write_buffer(Runtime& rt, cl_mem dst, const void* src, std::size_t bytes);

/// Reads `bytes` at `offset` of `src` into `dst`; complete when this returns.
void read_buffer(Runtime& rt, cl_mem src, std::size_t offset, std::size_t bytes, void* dst);

/// How a transfer moves its bytes:
/// - `Direct`: one blocking clEnqueueWrite/ReadBuffer from the caller's memory;
/// - `Staged`: through the pinned staging buffers in chunks (devices with memory of their own);
/// - `Mapped`: the buffer mapped into host memory and copied on several cores
///   (devices sharing the host's memory, where mapping copies nothing).
enum class TransferPath { Direct, Staged, Mapped };

/// Which path transfers take. `Auto` (the default): transfers of at least
/// kStagedMinBytes are `Mapped` on devices sharing the host's memory and
/// `Staged` on the others, when copy_threads() is at least 2 (one core copying
/// is slower than the driver's own path: the demo chain at 2^26 host to host
/// took 107 ms staged with one thread, 70-80 ms direct, on an H200); smaller
/// ones `Direct`. The others force their path for every transfer of at least
/// kStagedMinBytes (tests run all three on any device). FUSECL_TRANSFERS sets
/// it: unset or `auto`, `direct`, `staged`, `mapped`.
enum class TransferMode { Auto, Direct, Staged, Mapped };
TransferMode transfer_mode();
/// Overrides FUSECL_TRANSFERS for later transfers (tests).
void set_transfer_mode(TransferMode mode);

/// The path a transfer of `bytes` on `rt` takes.
TransferPath transfer_path(const Runtime& rt, std::size_t bytes);

}  // namespace fusecl::rt
