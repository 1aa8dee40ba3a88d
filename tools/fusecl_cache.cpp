// fusecl-cache: look at and tidy fusecl's on-disk kernel cache. Needs no OpenCL.
#include "runtime/byte_size.hpp"
#include "runtime/disk_cache.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace fusecl::rt;
namespace fs = std::filesystem;

constexpr const char* usage_text = R"(Usage: fusecl-cache [--dir DIR] COMMAND [OPTIONS]

Looks at and tidies fusecl's on-disk cache of compiled OpenCL programs.

Commands:
  stats                  number of entries, total size, size cap and folder
  list                   every entry, most recently used first: key, size, time
                         since last use, device and kernel name
  verify [--fix]         check every entry completely (header, size, checksums);
                         exits 1 if any is bad. With --fix, removes the bad ones and
                         exits 0 once they are gone
  prune --max-bytes N    remove least recently used entries until the cache holds at
                         most N bytes (N may end in K, M, G or T: 512M, 2G)
  clear                  remove every entry

Options:
  --dir DIR              the cache folder; default: FUSECL_CACHE_DIR, else
                         $XDG_CACHE_HOME/fusecl, else ~/.cache/fusecl
  -h, --help             show this help

Exit status: 0 success, 1 bad entries or a failure, 2 a usage error.
)";

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "fusecl-cache: %s\nRun 'fusecl-cache --help' for usage.\n", msg.c_str());
  return 2;
}

std::string age(std::int64_t mtime_ns) {
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::int64_t s = std::max<std::int64_t>(0, (now - mtime_ns) / 1'000'000'000);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::vector<CacheFile> entries_of(const DiskCache& cache) {
  std::vector<CacheFile> files = cache.scan();
  std::erase_if(files, [](const CacheFile& f) { return f.kind != CacheFile::Kind::Entry; });
  return files;
}

int cmd_stats(const DiskCache& cache) {
  const DiskCacheSettings& s = cache.settings();
  std::uint64_t entries = 0, entry_bytes = 0, sources = 0, temps = 0, total = 0;
  for (const CacheFile& f : cache.scan()) {
    total += f.bytes;
    if (f.kind == CacheFile::Kind::Entry) ++entries, entry_bytes += f.bytes;
    else if (f.kind == CacheFile::Kind::Source) ++sources;
    else ++temps;
  }
  std::error_code ec;
  const bool exists = fs::is_directory(s.dir, ec);
  std::printf("folder:   %s%s\n", s.dir.c_str(), exists ? "" : " (does not exist yet)");
  std::printf("entries:  %llu\n", static_cast<unsigned long long>(entries));
  std::printf("size:     %s\n", exact_bytes(total).c_str());
  if (sources || temps)
    std::printf("          binaries %s, %llu saved sources, %llu temporary files\n", human_bytes(entry_bytes).c_str(),
                static_cast<unsigned long long>(sources), static_cast<unsigned long long>(temps));
  std::printf("cap:      %s, %s\n", exact_bytes(s.max_bytes).c_str(),
              s.max_bytes_from_env ? "set by FUSECL_CACHE_MAX_BYTES" : "the default (FUSECL_CACHE_MAX_BYTES changes it)");
  std::printf("mode:     %s, %s\n", std::string(cache_mode_name(s.mode)).c_str(),
              s.mode_from_env ? "set by FUSECL_CACHE" : "the default (FUSECL_CACHE changes it)");
  return 0;
}

int cmd_list(const DiskCache& cache) {
  std::vector<CacheFile> files = entries_of(cache);
  std::sort(files.begin(), files.end(), [](const CacheFile& a, const CacheFile& b) { return a.mtime_ns > b.mtime_ns; });
  struct Row {
    std::string key, size, age, device, kernel;
  };
  std::vector<Row> rows;
  std::size_t device_width = 6;
  for (const CacheFile& f : files) {
    const EntryRead r = read_entry(f.path, f.key, ReadPayload::No);
    if (r.missing) continue;  // evicted meanwhile
    // A bad entry's metadata cannot be trusted; the reason takes its place.
    Row row{f.key.hex(), human_bytes(f.bytes), age(f.mtime_ns),
            r ? r.header.meta.device_name : "(bad entry: " + r.error + ")",
            r ? r.header.meta.kernel_name : std::string(1, '-')};
    device_width = std::max(device_width, row.device.size());
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    std::printf("no entries in %s\n", cache.settings().dir.c_str());
    return 0;
  }
  const int dw = static_cast<int>(device_width);
  std::printf("%-32s  %10s  %9s  %-*s  %s\n", "KEY", "SIZE", "LAST USE", dw, "DEVICE", "KERNEL");
  for (const Row& r : rows)
    std::printf("%-32s  %10s  %9s  %-*s  %s\n", r.key.c_str(), r.size.c_str(), r.age.c_str(), dw, r.device.c_str(),
                r.kernel.c_str());
  return 0;
}

int cmd_verify(DiskCache& cache, bool fix) {
  const std::size_t total = entries_of(cache).size();
  const std::vector<BadEntry> bad = cache.verify(fix);
  for (const BadEntry& b : bad) std::printf("bad: %s %s\n", b.path.c_str(), b.reason.c_str());
  std::printf("%zu entries checked, %zu bad\n", total, bad.size());
  if (bad.empty()) return 0;
  if (!fix) {
    std::printf("run 'fusecl-cache verify --fix' to remove the bad entries\n");
    return 1;
  }
  // Whatever could not be removed shows up again; report success only for a clean cache.
  const std::vector<BadEntry> left = cache.verify(false);
  std::printf("removed %zu bad entries\n", bad.size() - std::min(bad.size(), left.size()));
  return left.empty() ? 0 : 1;
}

int cmd_prune(DiskCache& cache, std::uint64_t max_bytes) {
  const PruneResult r = cache.prune(max_bytes);
  std::printf("removed %llu entries (%s); %llu entries (%s) remain, cap %s\n",
              static_cast<unsigned long long>(r.removed_entries), human_bytes(r.removed_bytes).c_str(),
              static_cast<unsigned long long>(r.kept_entries), human_bytes(r.kept_bytes).c_str(),
              human_bytes(max_bytes).c_str());
  return r.kept_bytes <= max_bytes ? 0 : 1;
}

int cmd_clear(DiskCache& cache) {
  const PruneResult r = cache.clear();
  std::printf("removed %llu entries (%s) from %s\n", static_cast<unsigned long long>(r.removed_entries),
              human_bytes(r.removed_bytes).c_str(), cache.settings().dir.c_str());
  return r.kept_bytes == 0 && r.kept_entries == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::string> dir, max_bytes_text;
  std::string command;
  bool fix = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage_text, stdout);
      return 0;
    }
    // Options taking a value accept both "--opt VALUE" and "--opt=VALUE".
    auto value = [&](std::string_view name, std::optional<std::string>& out) -> int {
      if (a.starts_with(std::string(name) + "=")) {
        out = std::string(a.substr(name.size() + 1));
      } else if (i + 1 < argc) {
        out = argv[++i];
      } else {
        return usage_error(std::string(name) + " needs a value");
      }
      if (out->empty()) return usage_error(std::string(name) + " needs a non-empty value");
      return 0;
    };
    if (a == "--dir" || a.starts_with("--dir=")) {
      if (int rc = value("--dir", dir)) return rc;
    } else if (a == "--max-bytes" || a.starts_with("--max-bytes=")) {
      if (int rc = value("--max-bytes", max_bytes_text)) return rc;
    } else if (a == "--fix") {
      fix = true;
    } else if (a.starts_with("-")) {
      return usage_error("unknown option '" + std::string(a) + "'");
    } else if (command.empty()) {
      command = a;
    } else {
      return usage_error("unexpected argument '" + std::string(a) + "'");
    }
  }

  if (command.empty()) return usage_error("no command given (stats, list, verify, prune or clear)");
  if (command != "stats" && command != "list" && command != "verify" && command != "prune" && command != "clear")
    return usage_error("unknown command '" + command + "'");
  if (fix && command != "verify") return usage_error("--fix belongs to 'verify'");
  if (max_bytes_text && command != "prune") return usage_error("--max-bytes belongs to 'prune'");
  std::optional<std::uint64_t> max_bytes;
  if (command == "prune") {
    if (!max_bytes_text) return usage_error("'prune' needs --max-bytes N");
    max_bytes = parse_byte_size(*max_bytes_text);
    if (!max_bytes) return usage_error("--max-bytes '" + *max_bytes_text + "' is not a size like 1048576, 512M or 2G");
  }

  DiskCacheSettings settings = settings_from_env();
  // The tool works on the folder even where FUSECL_CACHE turns the library's use of it off.
  settings.dir = dir ? fs::path(*dir) : default_cache_dir();
  if (settings.dir.empty()) {
    std::fprintf(stderr, "fusecl-cache: no cache folder: HOME is not set; use --dir DIR or FUSECL_CACHE_DIR\n");
    return 1;
  }
  std::error_code ec;
  if (fs::exists(settings.dir, ec) && !fs::is_directory(settings.dir, ec)) {
    std::fprintf(stderr, "fusecl-cache: %s is not a folder\n", settings.dir.c_str());
    return 1;
  }
  DiskCache cache(settings);

  if (command == "stats") return cmd_stats(cache);
  if (command == "list") return cmd_list(cache);
  if (command == "verify") return cmd_verify(cache, fix);
  if (command == "prune") return cmd_prune(cache, *max_bytes);
  return cmd_clear(cache);
}
