#include "runtime/disk_cache.hpp"

#include "runtime/byte_size.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>

namespace fusecl::rt {

namespace fs = std::filesystem;

namespace {

// A temporary file this old belongs to a process that died mid-write (a write takes
// milliseconds); prune removes it. Younger ones may be in flight in another process.
constexpr std::int64_t stale_temp_ns = 3600ll * 1'000'000'000;

constexpr std::string_view temp_prefix = ".tmp-";

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string errno_text(int e) { return std::strerror(e); }

bool is_permission_error(int e) { return e == EACCES || e == EPERM || e == EROFS; }

// Seeds the temp-name generator. random_device can throw where no entropy source
// exists; the pid and the clock still make names unique enough beside the pid itself.
std::uint64_t seed() {
  std::uint64_t s = std::uint64_t(now_ns()) ^ (std::uint64_t(::getpid()) << 32);
  try {
    std::random_device rd;
    s ^= (std::uint64_t(rd()) << 32) | rd();
  } catch (...) {
  }
  return s;
}

// The cache key a file name spells, if it is exactly "<32 lowercase hex><ext>".
std::optional<CacheKey> key_of(const std::string& name, std::string_view ext) {
  if (name.size() != 32 + ext.size() || !name.ends_with(ext)) return std::nullopt;
  CacheKey k;
  const std::string_view stem = std::string_view(name).substr(0, 32);
  if (!parse_key_hex(stem, k) || k.hex() != stem) return std::nullopt;
  return k;
}

bool is_prefix_folder_name(const std::string& name) {
  return name.size() == 2 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

DiskCache::DiskCache(DiskCacheSettings settings)
    : s_(std::move(settings)), mode_(s_.mode), rng_(seed()) {
  if (!s_.sink) s_.sink = write_to_stderr;
  if (s_.dir.empty()) mode_ = CacheMode::Off;
}

fs::path DiskCache::entry_path(const CacheKey& key) const {
  const std::string hex = key.hex();
  return s_.dir / hex.substr(0, 2) / (hex + ".bin");
}

fs::path DiskCache::source_path(const CacheKey& key) const {
  const std::string hex = key.hex();
  return s_.dir / hex.substr(0, 2) / (hex + ".cl");
}

void DiskCache::log(const std::string& msg) const {
  if (s_.log) s_.sink("fusecl: cache: " + msg);
}

void DiskCache::warn(const std::string& msg) const { s_.sink("fusecl: warning: " + msg); }

void DiskCache::warn_once(Trouble t, const std::string& msg) {
  bool& done = warned_[static_cast<int>(t)];
  if (!done) warn(msg);
  done = true;
}

// Warns (once) when someone other than this user could plant entries: an entry is
// machine code that fusecl hands to the driver, so the folder should be private.
void DiskCache::check_folder_safety() {
  if (folder_checked_) return;
  struct stat st{};
  if (::stat(s_.dir.c_str(), &st) != 0) return;  // not there yet; store creates it 0700
  folder_checked_ = true;
  std::string problem;
  if (st.st_uid != ::geteuid()) problem = "belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  else if (st.st_mode & S_IWOTH) problem = "is writable by every user";
  if (!problem.empty())
    warn_once(Trouble::UnsafeFolder, "the kernel cache folder " + s_.dir.string() + " " + problem +
                                         ", who could make fusecl run their code; use a private folder "
                                         "(chmod 700, or set FUSECL_CACHE_DIR)");
}

// One place decides what a failed write means: a permission error will not go away,
// so the cache turns read-only; anything else (a full disk) may, so later stores try
// again, quietly.
void DiskCache::write_failed(const std::string& what, int e) {
  if (is_permission_error(e)) {
    warn_once(Trouble::WriteDenied, "cannot write to the kernel cache folder " + s_.dir.string() + ": " + what +
                                        ": " + errno_text(e) + "; using it read-only for the rest of this run");
    mode_ = CacheMode::ReadOnly;
  } else {
    warn_once(Trouble::WriteFailed, "could not store a kernel binary in " + s_.dir.string() + ": " + what + ": " +
                                        errno_text(e) +
                                        " (nothing was left behind; later store failures in this run are not "
                                        "reported)");
  }
}

// Creates the cache folder (and any missing parents) and the entry's subfolder, all 0700.
// Turns the cache off when the cache folder itself cannot be made, read-only when the
// subfolder cannot be written.
bool DiskCache::ensure_folder(const fs::path& sub) {
  fs::path partial;
  for (const fs::path& part : s_.dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) == 0) continue;
    const int e = errno;
    struct stat st{};
    if (e == EEXIST && ::stat(partial.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    warn_once(Trouble::CreateFolder,
              "cannot create the kernel cache folder " + s_.dir.string() + ": " + partial.string() + ": " +
                  (e == EEXIST ? std::string("exists and is not a folder") : errno_text(e)) +
                  "; running without the disk kernel cache (set FUSECL_CACHE_DIR to a writable folder)");
    mode_ = CacheMode::Off;
    return false;
  }
  check_folder_safety();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (::mkdir(sub.c_str(), 0700) == 0) return true;
    const int e = errno;
    struct stat st{};
    if (e == EEXIST && ::lstat(sub.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return true;
      // A file where a subfolder belongs: damage inside our own folder; clear it and retry.
      if (attempt == 0 && remove_path(sub)) continue;
    }
    write_failed("creating " + sub.string(), e == EEXIST ? ENOTDIR : e);
    return false;
  }
  return false;
}

bool DiskCache::remove_path(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (!ec || ec == std::errc::no_such_file_or_directory) return true;
  warn_once(Trouble::RemoveFailed, "cannot remove " + p.string() + " from the kernel cache: " + ec.message() +
                                       " (later failures to remove are not reported)");
  return false;
}

// Writes `bytes` to a fresh temporary file beside `final_path` and renames it into place.
// On any failure the temporary file is removed, so a full disk leaves nothing behind.
bool DiskCache::write_atomically(const fs::path& final_path, std::span<const unsigned char> bytes) {
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng_()));
  const fs::path temp = final_path.parent_path() /
                        (std::string(temp_prefix) + std::to_string(::getpid()) + "-" + suffix);

  auto fail = [&](const char* step, int e, bool created) {
    if (created) ::unlink(temp.c_str());
    write_failed(std::string(step) + " " + temp.string(), e);
    return false;
  };

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("creating", errno, false);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      return fail("writing", e, true);
    }
    done += std::size_t(n);
  }
  // No fsync: after a power loss an entry may come back empty or partial, and the
  // checksums turn that into an ordinary miss; syncing every store would cost more.
  if (::close(fd) != 0) return fail("closing", errno, true);

  if (::rename(temp.c_str(), final_path.c_str()) != 0) {
    int e = errno;
    // A directory (or other debris) squatting on the entry's name: clear it and retry.
    if ((e == EISDIR || e == ENOTEMPTY || e == EEXIST) && remove_path(final_path)) {
      if (::rename(temp.c_str(), final_path.c_str()) == 0) return true;
      e = errno;
    }
    return fail("renaming", e, true);
  }
  return true;
}

std::optional<std::vector<unsigned char>> DiskCache::load(const CacheKey& key) {
  if (!readable()) return std::nullopt;
  check_folder_safety();
  const fs::path path = entry_path(key);
  EntryRead r;
  try {
    r = read_entry(path, key, ReadPayload::Yes);
  } catch (const std::exception& e) {  // an allocation for a huge (but consistent) entry
    r.error = std::string("cannot be read: ") + e.what();
  }
  if (r.missing) return std::nullopt;
  if (!r) {
    warn("kernel cache entry " + path.string() + " " + r.error +
         (writable() ? "; ignoring it, it will be rebuilt and replaced" : "; ignoring it (the cache is read-only)"));
    return std::nullopt;
  }
  // The mtime is the entry's last use, which eviction goes by. Failing to refresh it
  // only makes the entry look older than it is, so errors are ignored.
  if (writable()) ::utimensat(AT_FDCWD, path.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  return std::move(r.payload);
}

void DiskCache::store(const CacheKey& key, const EntryMetadata& meta, std::span<const unsigned char> binary,
                      std::string_view source) {
  if (!writable()) return;
  try {
    if (!ensure_folder(entry_path(key).parent_path())) return;
    // The source goes first, so that whoever finds the entry also finds its source.
    if (s_.save_source && !source.empty() &&
        !write_atomically(source_path(key), {reinterpret_cast<const unsigned char*>(source.data()), source.size()}))
      return;
    const std::vector<unsigned char> bytes = encode_entry(key, meta, binary);
    if (!write_atomically(entry_path(key), bytes)) return;
    log("stored " + key.hex() + " (kernel " + meta.kernel_name + ", " + human_bytes(bytes.size()) + ")");
    prune(s_.max_bytes);
  } catch (const std::exception& e) {
    // Out of memory, or a library error not foreseen above: the program is built
    // either way, so a store must never take the process down.
    warn_once(Trouble::WriteFailed, "could not store a kernel binary in " + s_.dir.string() + ": " + e.what() +
                                        " (later store failures in this run are not reported)");
  }
}

bool DiskCache::store_text(const fs::path& path, std::string_view text) {
  if (!writable()) return false;
  try {
    if (!ensure_folder(path.parent_path())) return false;
    if (!write_atomically(path, {reinterpret_cast<const unsigned char*>(text.data()), text.size()})) return false;
    log("stored " + path.string());
    return true;
  } catch (const std::exception& e) {
    warn_once(Trouble::WriteFailed, "could not store " + path.string() + ": " + e.what() +
                                        " (later store failures in this run are not reported)");
    return false;
  }
}

std::vector<CacheFile> DiskCache::scan() const {
  std::vector<CacheFile> out;
  if (s_.dir.empty()) return out;
  std::error_code ec;
  for (fs::directory_iterator top(s_.dir, ec), end; !ec && top != end; top.increment(ec)) {
    const fs::path sub = top->path();
    std::error_code sec;
    if (!is_prefix_folder_name(sub.filename().string()) || !top->is_directory(sec) || top->is_symlink(sec)) continue;
    for (fs::directory_iterator it(sub, sec); !sec && it != end; it.increment(sec)) {
      const std::string name = it->path().filename().string();
      CacheFile f;
      f.path = it->path();
      if (name.starts_with(temp_prefix)) {
        f.kind = CacheFile::Kind::Temp;
      } else if (auto k = key_of(name, ".bin")) {
        f.kind = CacheFile::Kind::Entry;
        f.key = *k;
      } else if (auto k2 = key_of(name, ".cl")) {
        f.kind = CacheFile::Kind::Source;
        f.key = *k2;
      } else {
        continue;  // not ours: leave it alone
      }
      struct stat st{};
      if (::lstat(f.path.c_str(), &st) != 0) continue;  // removed meanwhile by another process
      f.bytes = S_ISREG(st.st_mode) ? std::uint64_t(st.st_size) : 0;
      f.mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<BadEntry> DiskCache::verify(bool fix) {
  std::vector<BadEntry> bad;
  for (const CacheFile& f : scan()) {
    if (f.kind != CacheFile::Kind::Entry) continue;
    std::string reason;
    if (f.path.parent_path().filename() != f.key.hex().substr(0, 2)) {
      reason = "is in the wrong subfolder for its key";
    } else {
      EntryRead r;
      try {
        r = read_entry(f.path, f.key, ReadPayload::Yes);
      } catch (const std::exception& e) {
        r.error = std::string("cannot be read: ") + e.what();
      }
      if (r.missing) continue;  // evicted by another process while we looked
      reason = r.error;
    }
    if (reason.empty()) continue;
    bad.push_back({f.path, reason});
    if (fix) {
      remove_path(f.path);
      remove_path(f.path.parent_path() / (f.key.hex() + ".cl"));
    }
  }
  return bad;
}

PruneResult DiskCache::prune(std::uint64_t max_bytes) {
  struct Item {
    std::vector<fs::path> paths;
    std::uint64_t bytes = 0;
    std::int64_t mtime_ns = 0;
    bool has_entry = false;
  };
  std::map<std::string, Item> items;  // by key; an entry and its source go together
  const std::int64_t now = now_ns();
  for (const CacheFile& f : scan()) {
    if (f.kind == CacheFile::Kind::Temp) {
      if (now - f.mtime_ns > stale_temp_ns) remove_path(f.path);
      continue;
    }
    Item& it = items[f.key.hex()];
    it.paths.push_back(f.path);
    it.bytes += f.bytes;
    // The entry's mtime is its last use; a source alone (its entry gone) goes by its own.
    if (f.kind == CacheFile::Kind::Entry) {
      it.mtime_ns = f.mtime_ns;
      it.has_entry = true;
    } else if (!it.has_entry) {
      it.mtime_ns = f.mtime_ns;
    }
  }

  PruneResult res;
  std::vector<Item*> order;
  for (auto& [hex, it] : items) {
    order.push_back(&it);
    res.kept_bytes += it.bytes;
    res.kept_entries += it.has_entry;
  }
  std::sort(order.begin(), order.end(), [](const Item* a, const Item* b) { return a->mtime_ns < b->mtime_ns; });
  for (Item* it : order) {
    if (res.kept_bytes <= max_bytes) break;
    bool removed = true;
    for (const fs::path& p : it->paths) removed = remove_path(p) && removed;
    if (!removed) continue;
    res.kept_bytes -= it->bytes;
    res.removed_bytes += it->bytes;
    res.kept_entries -= it->has_entry;
    res.removed_entries += it->has_entry;
  }
  if (res.removed_entries)
    log("evicted " + std::to_string(res.removed_entries) + " least recently used entries (" +
        human_bytes(res.removed_bytes) + ") to stay under " + human_bytes(max_bytes));
  return res;
}

PruneResult DiskCache::clear() {
  PruneResult res;
  for (const CacheFile& f : scan()) {
    if (!remove_path(f.path)) {
      res.kept_bytes += f.bytes;
      res.kept_entries += f.kind == CacheFile::Kind::Entry;
      continue;
    }
    res.removed_bytes += f.bytes;
    res.removed_entries += f.kind == CacheFile::Kind::Entry;
  }
  return res;
}

namespace {
std::unique_ptr<DiskCache>& process_cache() {
  static std::unique_ptr<DiskCache> cache;
  return cache;
}
}  // namespace

DiskCache& disk_cache() {
  auto& c = process_cache();
  if (!c) c = std::make_unique<DiskCache>(settings_from_env());
  return *c;
}

void set_disk_cache(DiskCacheSettings settings) {
  const std::lock_guard<std::mutex> lock(disk_cache_mutex());
  process_cache() = std::make_unique<DiskCache>(std::move(settings));
}

std::mutex& disk_cache_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace fusecl::rt
