#include "runtime/stats_counters.hpp"

#include "fusecl/stats.hpp"
#include "runtime/buffer_pool.hpp"

namespace fusecl::rt {

Counters& process_counters() {
  // Atomics of integers are trivially destructible, so code running during
  // static destruction (a buffer released late) can still bump them safely.
  static Counters c;
  return c;
}

namespace {
thread_local Counters* uncounted = nullptr;  // set by an UncountedScope
}  // namespace

Counters& counters() { return uncounted ? *uncounted : process_counters(); }

UncountedScope::UncountedScope() : previous_(uncounted) {
  static thread_local Counters scratch;
  uncounted = &scratch;
}

UncountedScope::~UncountedScope() { uncounted = previous_; }

}  // namespace fusecl::rt

namespace fusecl {

Stats stats() {
  const rt::Counters& c = rt::process_counters();
  Stats s;
  s.uploads = c.uploads.load();
  s.downloads = c.downloads.load();
  s.bytes_uploaded = c.bytes_uploaded.load();
  s.bytes_downloaded = c.bytes_downloaded.load();
  s.kernels_launched = c.kernels_launched.load();
  s.programs_built = c.programs_built.load();
  s.programs_loaded = c.programs_loaded.load();
  s.memory_cache_hits = c.memory_cache_hits.load();
  s.disk_cache_hits = c.disk_cache_hits.load();
  s.disk_cache_misses = c.disk_cache_misses.load();
  s.auto_evaluations = c.auto_evaluations.load();
  s.peak_device_bytes = c.peak_device_bytes.load();
  s.streamed_chunks = c.streamed_chunks.load();
  s.plans_reused = c.plans_reused.load();
  return s;
}

void reset_stats() {
  rt::Counters& c = rt::process_counters();
  for (auto* counter : {&c.uploads, &c.downloads, &c.bytes_uploaded, &c.bytes_downloaded, &c.kernels_launched,
                        &c.programs_built, &c.programs_loaded, &c.memory_cache_hits, &c.disk_cache_hits,
                        &c.disk_cache_misses, &c.auto_evaluations, &c.streamed_chunks, &c.plans_reused})
    counter->store(0);
  c.peak_device_bytes.store(rt::device_bytes_held());
}

}  // namespace fusecl
