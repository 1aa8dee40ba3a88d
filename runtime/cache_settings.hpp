// How the on-disk kernel cache behaves, read from the environment.
//
// Environment variables (all optional):
//
//   FUSECL_CACHE            "on" / "read-write" (default): look entries up and store new ones.
//                           "read-only": look entries up, never write anything (no new
//                           entries, no access-time refresh, no eviction).
//                           "off": no disk cache at all; nothing is read and no folder is created.
//                           Any other value: a warning, and the default.
//   FUSECL_CACHE_DIR        The cache folder. Else $XDG_CACHE_HOME/fusecl, else ~/.cache/fusecl
//                           (set but empty: a warning, and the same fallback).
//   FUSECL_CACHE_MAX_BYTES  Size cap of the folder, default 256 MiB. A number of bytes with an
//                           optional binary suffix: 1048576, 512K, 512M, 2G, 1T (also "512MiB").
//                           After every store the least recently used entries (by file mtime; a
//                           hit refreshes it) are evicted until the folder is under the cap.
//   FUSECL_CACHE_SAVE_SOURCE=1  Keep each entry's OpenCL C source beside it as <key>.cl.
//   FUSECL_CACHE_LOG=1      Log hits, misses, stores and evictions to stderr.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fusecl::rt {

enum class CacheMode { ReadWrite, ReadOnly, Off };

/// "read-write", "read-only" or "off".
std::string_view cache_mode_name(CacheMode m);

/// Receives one complete line of diagnostics (already prefixed "fusecl: warning: " or
/// "fusecl: cache: "), without the trailing newline.
using DiagnosticSink = std::function<void(const std::string& line)>;

/// Writes the line and a newline to stderr in one call, so lines of processes sharing
/// a terminal do not interleave mid-line.
void write_to_stderr(const std::string& line);

inline constexpr std::uint64_t default_cache_max_bytes = 256ull << 20;

struct DiskCacheSettings {
  CacheMode mode = CacheMode::ReadWrite;
  std::filesystem::path dir;  // empty only when mode is Off
  std::uint64_t max_bytes = default_cache_max_bytes;
  bool save_source = false;
  bool log = false;
  // Whether FUSECL_CACHE_MAX_BYTES / FUSECL_CACHE gave the values above (with
  // a valid value), for tools that say where a setting came from.
  bool max_bytes_from_env = false;
  bool mode_from_env = false;
  DiagnosticSink sink = write_to_stderr;  // tests capture warnings here
};

/// Settings from the variables above. Problems with them (an unknown FUSECL_CACHE value,
/// a malformed size, no home folder to put the cache in) are reported to `sink` as warnings
/// and the default is used instead; never throws for bad values.
DiskCacheSettings settings_from_env(const DiagnosticSink& sink = write_to_stderr);

/// The default folder: FUSECL_CACHE_DIR, else $XDG_CACHE_HOME/fusecl, else ~/.cache/fusecl.
/// Empty when none can be determined (no HOME and no passwd entry).
std::filesystem::path default_cache_dir();

/// Parses "1048576", "512K", "512M", "2G", "1T", "512MiB", "2gb" (binary multiples,
/// case-insensitive). nullopt for anything else, including overflow.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace fusecl::rt
