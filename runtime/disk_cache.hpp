// The second level of the kernel cache: program binaries in a folder on disk,
// shared by every process of the user. No OpenCL here, so the fusecl-cache tool
// uses it too.
//
// Layout: <dir>/<first two hex digits of the key>/<32 hex digits>.bin (256 subfolders,
// so no folder grows huge), optionally <key>.cl beside it with the source. Folders are
// created 0700 and files 0600: anyone who can write the cache can make fusecl run code.
//
// Concurrency without locks: an entry is written to a uniquely named temporary file in
// its own subfolder (".tmp-<pid>-<random>") and renamed over the final name, which is
// atomic, so a reader sees either no entry or a whole one, never a partial one. Two
// processes storing the same key both succeed; the later rename wins and both files are
// identical up to the driver's determinism. Eviction and `clear` may remove a file
// another process is reading; POSIX keeps an open file readable until it is closed.
//
// Failures never throw: a damaged entry is a miss with one warning (and the next store
// replaces it); a folder that cannot be created turns the cache off, one that cannot be
// written turns it read-only, each with one warning; other write failures (a full disk)
// warn once per process and leave no file behind.
//
// fusecl is single-threaded; a DiskCache is not safe to use from several threads at once.
#pragma once

#include "runtime/cache_entry.hpp"
#include "runtime/cache_settings.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fusecl::rt {

/// One file found in the cache folder's subfolders.
struct CacheFile {
  enum class Kind { Entry, Source, Temp };
  Kind kind = Kind::Entry;
  std::filesystem::path path;
  CacheKey key;              // Entry and Source: from the file name
  std::uint64_t bytes = 0;   // 0 for a folder or link where a file belongs (verify reports it)
  std::int64_t mtime_ns = 0; // last use of an entry (a hit refreshes it); nanoseconds since the epoch
};

struct PruneResult {
  std::uint64_t removed_entries = 0, removed_bytes = 0;
  std::uint64_t kept_entries = 0, kept_bytes = 0;
};

struct BadEntry {
  std::filesystem::path path;
  std::string reason;
};

class DiskCache {
 public:
  explicit DiskCache(DiskCacheSettings settings);

  const DiskCacheSettings& settings() const { return s_; }
  /// The settings' mode, or less after a failure (a folder that could not be created or written).
  CacheMode mode() const { return mode_; }
  bool readable() const { return mode_ != CacheMode::Off; }
  bool writable() const { return mode_ == CacheMode::ReadWrite; }

  std::filesystem::path entry_path(const CacheKey& key) const;
  std::filesystem::path source_path(const CacheKey& key) const;

  /// The binary stored under `key`. nullopt on a miss; a damaged or unreadable entry is
  /// a miss with one warning. A hit refreshes the entry's mtime unless the cache is read-only.
  std::optional<std::vector<unsigned char>> load(const CacheKey& key);

  /// Stores (or replaces) the entry atomically, keeps `source` beside it when the settings
  /// ask for it, then evicts least recently used entries down to the cap. Does nothing
  /// unless writable(). Never throws.
  void store(const CacheKey& key, const EntryMetadata& meta, std::span<const unsigned char> binary,
             std::string_view source);

  /// Writes `text` to `path`, a file in a subfolder of the cache folder that
  /// is not a key prefix (tuning/), as entries are written: atomically, 0600,
  /// the subfolder made 0700. Does nothing unless writable(). Never throws;
  /// false when nothing was written. Eviction, verify and clear leave such
  /// files alone (they are not kernels, and are a few hundred bytes).
  bool store_text(const std::filesystem::path& path, std::string_view text);

  /// Every entry, source and temporary file in the subfolders; other files are ignored.
  /// An absent folder is an empty cache. Never creates anything.
  std::vector<CacheFile> scan() const;

  /// Checks every entry completely (header, size, payload checksum, the key against the
  /// file name and subfolder). With fix, removes each bad one and its source.
  std::vector<BadEntry> verify(bool fix);

  /// Removes temporary files left by crashed processes, then least recently used entries
  /// (with their sources) until the entries take at most max_bytes.
  PruneResult prune(std::uint64_t max_bytes);

  /// Removes every entry, source and temporary file; returns what was removed.
  PruneResult clear();

  /// A "fusecl: cache: " line when FUSECL_CACHE_LOG is set.
  void log(const std::string& msg) const;
  /// A "fusecl: warning: " line, every time.
  void warn(const std::string& msg) const;

 private:
  enum class Trouble { CreateFolder, WriteDenied, WriteFailed, RemoveFailed, UnsafeFolder, Count };
  void warn_once(Trouble t, const std::string& msg);
  bool ensure_folder(const std::filesystem::path& sub);
  void check_folder_safety();
  void write_failed(const std::string& what, int e);
  bool write_atomically(const std::filesystem::path& final_path, std::span<const unsigned char> bytes);
  bool remove_path(const std::filesystem::path& p);

  DiskCacheSettings s_;
  CacheMode mode_;
  bool warned_[static_cast<int>(Trouble::Count)] = {};
  bool folder_checked_ = false;
  std::mt19937_64 rng_;
};

/// The process-wide disk cache, from settings_from_env() on first use. A
/// DiskCache is not thread-safe: hold disk_cache_mutex() while using it
/// (devices build kernels at once from several threads).
DiskCache& disk_cache();
std::mutex& disk_cache_mutex();

/// Replaces the process-wide disk cache (tests point it at a temporary folder; an
/// embedding program may configure it in code instead of through the environment).
void set_disk_cache(DiskCacheSettings settings);

}  // namespace fusecl::rt
