// The mutable side of fusecl::Stats: every part of the library bumps these.
#pragma once

#include <atomic>
#include <cstdint>

namespace fusecl::rt {

struct Counters {
  std::atomic<std::uint64_t> uploads{0}, downloads{0}, bytes_uploaded{0}, bytes_downloaded{0};
  std::atomic<std::uint64_t> kernels_launched{0}, programs_built{0}, programs_loaded{0};
  std::atomic<std::uint64_t> memory_cache_hits{0}, disk_cache_hits{0}, disk_cache_misses{0};
  std::atomic<std::uint64_t> auto_evaluations{0};
  std::atomic<std::uint64_t> peak_device_bytes{0};  // buffer_pool.cpp keeps it
  std::atomic<std::uint64_t> streamed_chunks{0};
  std::atomic<std::uint64_t> plans_reused{0};
};

/// The counters this thread's work bumps: the process's, which stats()
/// reads, or, inside an UncountedScope, a set of its own that nobody reads.
Counters& counters();

/// The process's counters, which stats() reads and reset_stats() resets.
Counters& process_counters();

/// Work this thread does while one is alive does not count in stats(): the
/// tuner's synthetic kernels (src/tuner.hpp) are not the program's work, and
/// programs that check their kernel counts must not see them.
class UncountedScope {
 public:
  UncountedScope();
  ~UncountedScope();
  UncountedScope(const UncountedScope&) = delete;
  UncountedScope& operator=(const UncountedScope&) = delete;

 private:
  Counters* previous_;
};

}  // namespace fusecl::rt
