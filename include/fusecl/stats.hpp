// Counters of device work, for users and for tests that pin fusion behaviour.
#pragma once

#include <cstdint>

namespace fusecl {

struct Stats {
  std::uint64_t uploads = 0, downloads = 0;
  std::uint64_t bytes_uploaded = 0, bytes_downloaded = 0;
  std::uint64_t kernels_launched = 0;
  std::uint64_t programs_built = 0;   // compiled from source
  std::uint64_t programs_loaded = 0;  // created from a binary out of the disk cache
  std::uint64_t memory_cache_hits = 0;
  std::uint64_t disk_cache_hits = 0, disk_cache_misses = 0;
  std::uint64_t auto_evaluations = 0;  // graphs evaluated early because they grew past the bound
  // The most device memory fusecl's buffers held at once (in use and cached
  // for reuse, all devices together); reset_stats() restarts it from what is
  // held then.
  std::uint64_t peak_device_bytes = 0;
  // Chunks that expressions over host views (host_view) were computed in.
  std::uint64_t streamed_chunks = 0;
  // Evaluations that ran the schedule kept from an earlier evaluation of a
  // graph of the same structure instead of scheduling theirs (FUSECL_PLAN_CACHE).
  std::uint64_t plans_reused = 0;
};

/// A snapshot of the counters since the start or the last reset_stats().
Stats stats();
void reset_stats();

}  // namespace fusecl
