// The disk kernel cache on its own: keys, settings, the entry format, damage,
// unusable folders, modes, eviction and several processes at once. No OpenCL.
#include "runtime/disk_cache.hpp"
#include "support/cache_test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <set>

using namespace fusecl;
using namespace fusecl::rt;
using fusecl::test::Diagnostics;
using fusecl::test::TempDir;
using fusecl::test::test_key;
using fusecl::test::test_payload;
namespace fs = std::filesystem;

namespace {

const EntryMetadata meta{"Test Device", "k", "1.0"};

// Sets (or with nullopt unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void set_age(const fs::path& p, std::chrono::seconds age) {
  fs::last_write_time(p, fs::file_time_type::clock::now() - age);
}

bool has_temp_files(const fs::path& dir) {
  for (const fs::path& p : test::files_under(dir))
    if (p.filename().string().starts_with(".tmp-")) return true;
  return false;
}

}  // namespace

TEST_CASE("the cache key changes with every field and fields cannot run together", "[disk_cache]") {
  KeyInputs base;
  base.source = "__kernel void f(__global float* x) { x[0] = 1; }";
  base.options = "-cl-fast-relaxed-math";
  base.platform_name = "Portable Computing Language";
  base.platform_version = "OpenCL 3.0 PoCL 3.1";
  base.device_name = "cpu-x86-64";
  base.device_version = "OpenCL 3.0";
  base.driver_version = "3.1";

  std::vector<KeyInputs> variants(10, base);
  variants[1].source += " ";
  variants[2].options = "";
  variants[3].platform_name += "x";
  variants[4].platform_version += "x";
  variants[5].device_name += "x";
  variants[6].device_version += "x";
  variants[7].driver_version += "x";
  variants[8].format_version += 1;
  variants[9].library += ".1";
  std::set<std::string> keys;
  for (const KeyInputs& v : variants) keys.insert(cache_key(v).hex());
  CHECK(keys.size() == variants.size());
  CHECK(cache_key(base) == cache_key(base));  // and it really repeats

  KeyInputs a = base, b = base;
  a.options = "ab";
  a.source = "c";
  b.options = "a";
  b.source = "bc";
  CHECK_FALSE(cache_key(a) == cache_key(b));

  const std::string hex = cache_key(base).hex();
  CHECK(hex.size() == 32);
  CacheKey parsed;
  REQUIRE(parse_key_hex(hex, parsed));
  CHECK(parsed == cache_key(base));
  CHECK_FALSE(parse_key_hex("xyz", parsed));
  CHECK_FALSE(parse_key_hex(std::string(31, '0') + "g", parsed));
}

TEST_CASE("byte sizes accept binary suffixes and reject everything else", "[disk_cache]") {
  CHECK(parse_byte_size("0") == 0u);
  CHECK(parse_byte_size("1048576") == 1048576u);
  CHECK(parse_byte_size("512K") == 512u << 10);
  CHECK(parse_byte_size("512M") == 512u << 20);
  CHECK(parse_byte_size("512m") == 512u << 20);
  CHECK(parse_byte_size("2G") == 2ull << 30);
  CHECK(parse_byte_size("2GiB") == 2ull << 30);
  CHECK(parse_byte_size("3kb") == 3u << 10);
  CHECK(parse_byte_size("1T") == 1ull << 40);
  for (const char* bad : {"", "M", "12X", "-5", "1.5G", " 5", "5 M", "99999999999999999999", "17179869184G"})
    CHECK_FALSE(parse_byte_size(bad).has_value());
}

TEST_CASE("settings come from the environment and bad values warn and fall back to the default", "[disk_cache]") {
  Diagnostics diag;
  auto sink = [&diag](const std::string& l) { diag.lines.push_back(l); };
  ScopedEnv dir("FUSECL_CACHE_DIR", "/some/where");

  SECTION("defaults") {
    ScopedEnv m("FUSECL_CACHE", std::nullopt), c("FUSECL_CACHE_MAX_BYTES", std::nullopt);
    ScopedEnv s("FUSECL_CACHE_SAVE_SOURCE", std::nullopt), l("FUSECL_CACHE_LOG", std::nullopt);
    const DiskCacheSettings st = settings_from_env(sink);
    CHECK(st.mode == CacheMode::ReadWrite);
    CHECK(st.dir == "/some/where");
    CHECK(st.max_bytes == 256ull << 20);
    CHECK_FALSE(st.save_source);
    CHECK_FALSE(st.log);
    CHECK(diag.lines.empty());
  }
  SECTION("every variable set") {
    ScopedEnv m("FUSECL_CACHE", "read-only"), c("FUSECL_CACHE_MAX_BYTES", "512M");
    ScopedEnv s("FUSECL_CACHE_SAVE_SOURCE", "1"), l("FUSECL_CACHE_LOG", "1");
    const DiskCacheSettings st = settings_from_env(sink);
    CHECK(st.mode == CacheMode::ReadOnly);
    CHECK(st.max_bytes == 512ull << 20);
    CHECK(st.save_source);
    CHECK(st.log);
    CHECK(diag.lines.empty());
  }
  SECTION("off leaves no folder to create") {
    ScopedEnv m("FUSECL_CACHE", "off");
    const DiskCacheSettings st = settings_from_env(sink);
    CHECK(st.mode == CacheMode::Off);
    CHECK(st.dir.empty());
  }
  SECTION("unknown values") {
    ScopedEnv m("FUSECL_CACHE", "sometimes"), c("FUSECL_CACHE_MAX_BYTES", "lots");
    ScopedEnv s("FUSECL_CACHE_SAVE_SOURCE", "maybe");
    const DiskCacheSettings st = settings_from_env(sink);
    CHECK(st.mode == CacheMode::ReadWrite);
    CHECK(st.max_bytes == 256ull << 20);
    CHECK_FALSE(st.save_source);
    CHECK(diag.warnings() == 3);
    CHECK(diag.any_contains("FUSECL_CACHE='sometimes'"));
    CHECK(diag.any_contains("FUSECL_CACHE_MAX_BYTES='lots'"));
    CHECK(diag.any_contains("FUSECL_CACHE_SAVE_SOURCE='maybe'"));
  }
  SECTION("folder fallbacks") {
    ScopedEnv d("FUSECL_CACHE_DIR", std::nullopt), h("HOME", "/home/someone");
    {
      ScopedEnv x("XDG_CACHE_HOME", "/xdg/cache");
      CHECK(default_cache_dir() == "/xdg/cache/fusecl");
    }
    {
      ScopedEnv x("XDG_CACHE_HOME", "relative/is/ignored");
      CHECK(default_cache_dir() == "/home/someone/.cache/fusecl");
    }
    ScopedEnv x("XDG_CACHE_HOME", std::nullopt);
    CHECK(default_cache_dir() == "/home/someone/.cache/fusecl");
  }
}

TEST_CASE("a stored entry loads back exactly from a private folder with nothing left over", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCacheSettings s = test::settings_for(t.path() / "cache", diag);
  s.save_source = true;
  s.log = true;
  DiskCache cache(s);
  const CacheKey k = test_key(1);

  CHECK_FALSE(cache.load(k).has_value());  // a plain miss: no warning, nothing created
  CHECK_FALSE(fs::exists(t.path() / "cache"));
  cache.store(k, meta, test_payload(1), "the source");
  const auto loaded = cache.load(k);
  REQUIRE(loaded.has_value());
  CHECK(*loaded == test_payload(1));
  CHECK(diag.warnings() == 0);
  CHECK(diag.any_contains("fusecl: cache: stored " + k.hex()));

  const fs::path entry = cache.entry_path(k);
  CHECK(entry == t.path() / "cache" / k.hex().substr(0, 2) / (k.hex() + ".bin"));
  CHECK((fs::status(t.path() / "cache").permissions() & fs::perms::all) == fs::perms::owner_all);
  CHECK((fs::status(entry.parent_path()).permissions() & fs::perms::all) == fs::perms::owner_all);
  CHECK((fs::status(entry).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  const auto src = test::read_bytes(cache.source_path(k));
  CHECK(std::string(src.begin(), src.end()) == "the source");
  CHECK_FALSE(has_temp_files(t.path()));

  const EntryRead header = read_entry(entry, k, ReadPayload::No);
  REQUIRE(header);
  CHECK(header.header.meta.device_name == "Test Device");
  CHECK(header.header.meta.kernel_name == "k");
  CHECK(header.header.meta.driver_version == "1.0");
  CHECK(header.payload.empty());

  // An empty payload is a valid entry too.
  cache.store(test_key(2), meta, {}, {});
  const auto empty = cache.load(test_key(2));
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
}

TEST_CASE("every kind of damaged entry is a miss with one warning and is rewritten by the next store",
          "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path(), diag));
  const CacheKey k = test_key(1);
  cache.store(k, meta, test_payload(1), {});
  const fs::path p = cache.entry_path(k);
  std::vector<unsigned char> bytes = test::read_bytes(p);
  REQUIRE(bytes.size() > 1000);

  std::string expected_reason;
  SECTION("truncated in the payload") {
    bytes.resize(bytes.size() - 10);
    test::write_bytes(p, bytes);
    expected_reason = "truncated";
  }
  SECTION("truncated in the header") {
    bytes.resize(60);
    test::write_bytes(p, bytes);
    expected_reason = "truncated";
  }
  SECTION("a flipped payload byte") {
    bytes[bytes.size() - 100] ^= 0x10;
    test::write_bytes(p, bytes);
    expected_reason = "payload";
  }
  SECTION("a flipped header byte (in the metadata)") {
    bytes[53] ^= 0x01;
    test::write_bytes(p, bytes);
    expected_reason = "header";
  }
  SECTION("a flipped header byte (in the payload length)") {
    bytes[33] ^= 0x01;
    test::write_bytes(p, bytes);
    expected_reason = "header";
  }
  SECTION("wrong magic") {
    bytes[0] = 'X';
    test::write_bytes(p, bytes);
    expected_reason = "magic";
  }
  SECTION("another format version") {
    bytes[8] = 99;
    test::write_bytes(p, bytes);
    expected_reason = "format version";
  }
  SECTION("zero length") {
    test::write_bytes(p, {});
    expected_reason = "empty";
  }
  SECTION("stray bytes after the payload") {
    bytes.push_back(0);
    test::write_bytes(p, bytes);
    expected_reason = "stray";
  }
  SECTION("a valid entry of another key under this name") {
    cache.store(test_key(2), meta, test_payload(2), {});
    fs::copy_file(cache.entry_path(test_key(2)), p, fs::copy_options::overwrite_existing);
    expected_reason = "holds key";
  }
  SECTION("a directory in place of the file") {
    fs::remove(p);
    fs::create_directory(p);
    test::write_bytes(p / "inside", {1, 2, 3});
    expected_reason = "directory";
  }
  SECTION("a symbolic link in place of the file") {
    fs::rename(p, t.path() / "elsewhere.bin");
    fs::create_symlink(t.path() / "elsewhere.bin", p);
    expected_reason = "symbolic link";
  }
  SECTION("a FIFO in place of the file (opening it must not hang)") {
    fs::remove(p);
    REQUIRE(::mkfifo(p.c_str(), 0600) == 0);
    expected_reason = "not a regular file";
  }
  SECTION("a file that cannot be read") {
    ::chmod(p.c_str(), 0);
    if (::access(p.c_str(), R_OK) == 0) {
      // Running as root: permissions do not stop reads; damage it another way.
      test::write_bytes(p, {'F', 'C', 'L'});
      expected_reason = "truncated";
    } else {
      expected_reason = "cannot be opened";
    }
  }

  CHECK_FALSE(cache.load(k).has_value());
  REQUIRE(diag.warnings() == 1);
  CHECK(diag.lines[0].find(p.string()) != std::string::npos);
  CHECK(diag.lines[0].find(expected_reason) != std::string::npos);

  cache.store(k, meta, test_payload(1), {});
  const auto again = cache.load(k);
  REQUIRE(again.has_value());
  CHECK(*again == test_payload(1));
  CHECK(diag.warnings() == 1);
  CHECK(fs::is_regular_file(fs::symlink_status(p)));
  CHECK_FALSE(has_temp_files(t.path()));
}

TEST_CASE("a file where an entry's subfolder belongs is replaced by the next store", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path(), diag));
  const CacheKey k = test_key(1);
  test::write_bytes(cache.entry_path(k).parent_path(), {1, 2, 3});
  CHECK_FALSE(cache.load(k).has_value());
  cache.store(k, meta, test_payload(1), {});
  CHECK(cache.load(k) == test_payload(1));
  CHECK(diag.warnings() == 0);
}

TEST_CASE("a cache folder that cannot be created warns once and turns the disk cache off", "[disk_cache]") {
  TempDir t;
  test::write_bytes(t.path() / "file", {1});
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path() / "file" / "cache", diag));
  CHECK_FALSE(cache.load(test_key(1)).has_value());
  for (int i = 0; i < 3; ++i) cache.store(test_key(i), meta, test_payload(i), {});
  CHECK(diag.warnings() == 1);
  CHECK(diag.any_contains("cannot create the kernel cache folder"));
  CHECK(cache.mode() == CacheMode::Off);
  CHECK_FALSE(cache.load(test_key(1)).has_value());
  CHECK(diag.warnings() == 1);
}

TEST_CASE("a cache folder that cannot be written warns once and reads go on", "[disk_cache]") {
  TempDir t;
  const fs::path dir = t.path() / "cache";
  {
    Diagnostics d;
    DiskCache writer(test::settings_for(dir, d));
    writer.store(test_key(1), meta, test_payload(1), {});
  }
  // Make the folder and its subfolders unwritable.
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_directory()) fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_exec);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  const bool chmod_blocks_writes = ::access(dir.c_str(), W_OK) != 0;

  Diagnostics diag;
  if (chmod_blocks_writes) {
    DiskCache cache(test::settings_for(dir, diag));
    CHECK(cache.load(test_key(1)) == test_payload(1));
    for (int i = 2; i < 6; ++i) cache.store(test_key(i), meta, test_payload(i), {});
    CHECK(diag.warnings() == 1);
    CHECK(diag.any_contains("cannot write to the kernel cache folder"));
    CHECK(cache.mode() == CacheMode::ReadOnly);
    CHECK(cache.load(test_key(1)) == test_payload(1));
    CHECK(test::files_under(dir).size() == 1);
  } else {
    // Running as root, where permission bits do not stop writes: a folder below a
    // regular file still makes every write fail, so the warning and the fallback are
    // still exercised.
    WARN("permission bits do not stop this user's writes; testing writes below a regular file instead");
    test::write_bytes(t.path() / "file", {1});
    DiskCache cache(test::settings_for(t.path() / "file" / "cache", diag));
    for (int i = 2; i < 6; ++i) cache.store(test_key(i), meta, test_payload(i), {});
    CHECK(diag.warnings() == 1);
    CHECK(cache.mode() == CacheMode::Off);
  }
}

TEST_CASE("a write that fails part way (a full disk) warns once and leaves no file behind", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path(), diag));
  {
    // A file-size limit makes write() fail with EFBIG part way through, as a full
    // disk fails with ENOSPC; SIGXFSZ would otherwise kill the process.
    rlimit old{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    rlimit small = old;
    small.rlim_cur = 16 * 1024;
    auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    cache.store(test_key(1), meta, test_payload(1, 64 * 1024), {});
    cache.store(test_key(2), meta, test_payload(2, 64 * 1024), {});
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
  }
  CHECK(diag.warnings() == 1);
  CHECK(diag.any_contains("could not store a kernel binary"));
  CHECK(test::files_under(t.path()).empty());
  CHECK(cache.mode() == CacheMode::ReadWrite);  // space may come back: later stores still try

  cache.store(test_key(1), meta, test_payload(1, 64 * 1024), {});
  CHECK(cache.load(test_key(1)) == test_payload(1, 64 * 1024));
  CHECK(diag.warnings() == 1);
}

TEST_CASE("FUSECL_CACHE=off reads nothing and creates nothing", "[disk_cache]") {
  TempDir t;
  const fs::path dir = t.path() / "never";
  Diagnostics diag;
  DiskCacheSettings s = test::settings_for(dir, diag);
  s.mode = CacheMode::Off;
  DiskCache cache(s);
  CHECK_FALSE(cache.readable());
  cache.store(test_key(1), meta, test_payload(1), "src");
  CHECK_FALSE(cache.load(test_key(1)).has_value());
  CHECK_FALSE(fs::exists(dir));
  CHECK(diag.lines.empty());

  ScopedEnv m("FUSECL_CACHE", "off"), d("FUSECL_CACHE_DIR", dir.string());
  DiskCache from_env(settings_from_env());
  from_env.store(test_key(1), meta, test_payload(1), "src");
  CHECK_FALSE(from_env.load(test_key(1)).has_value());
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("FUSECL_CACHE=read-only reads entries but writes nothing, not even their mtime", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  {
    DiskCache writer(test::settings_for(t.path(), diag));
    writer.store(test_key(1), meta, test_payload(1), {});
  }
  DiskCacheSettings s = test::settings_for(t.path(), diag);
  s.mode = CacheMode::ReadOnly;
  s.max_bytes = 0;  // eviction would remove everything, if it ran
  DiskCache cache(s);
  const fs::path p = cache.entry_path(test_key(1));
  set_age(p, std::chrono::hours(1));
  const auto before = fs::last_write_time(p);

  CHECK(cache.load(test_key(1)) == test_payload(1));
  CHECK(fs::last_write_time(p) == before);
  cache.store(test_key(2), meta, test_payload(2), "src");
  CHECK(test::files_under(t.path()) == std::vector<fs::path>{p});

  std::vector<unsigned char> bytes = test::read_bytes(p);
  bytes.back() ^= 1;
  test::write_bytes(p, bytes);
  CHECK_FALSE(cache.load(test_key(1)).has_value());
  CHECK(diag.warnings() == 1);
  CHECK(diag.any_contains("read-only"));
  cache.store(test_key(1), meta, test_payload(1), {});
  CHECK(test::read_bytes(p) == bytes);  // left as it was
}

TEST_CASE("eviction under the size cap removes the least recently used entries", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCacheSettings s = test::settings_for(t.path(), diag);
  s.save_source = true;
  DiskCache probe(s);
  probe.store(test_key(0), meta, test_payload(0), "source 0");
  const std::uint64_t one =
      fs::file_size(probe.entry_path(test_key(0))) + fs::file_size(probe.source_path(test_key(0)));
  probe.clear();

  s.max_bytes = 2 * one + one / 2;  // room for two entries
  DiskCache cache(s);
  cache.store(test_key(1), meta, test_payload(1), "source 1");
  cache.store(test_key(2), meta, test_payload(2), "source 2");
  set_age(cache.entry_path(test_key(1)), std::chrono::seconds(200));
  set_age(cache.entry_path(test_key(2)), std::chrono::seconds(100));
  REQUIRE(cache.load(test_key(1)).has_value());  // 1 is now the most recently used
  cache.store(test_key(3), meta, test_payload(3), "source 3");

  CHECK(fs::exists(cache.entry_path(test_key(1))));
  CHECK_FALSE(fs::exists(cache.entry_path(test_key(2))));
  CHECK_FALSE(fs::exists(cache.source_path(test_key(2))));  // a source goes with its entry
  CHECK(fs::exists(cache.entry_path(test_key(3))));
  CHECK(diag.warnings() == 0);

  const PruneResult r = cache.prune(0);
  CHECK(r.removed_entries == 2);
  CHECK(r.kept_bytes == 0);
  CHECK(test::files_under(t.path()).empty());
}

TEST_CASE("prune removes temporary files of crashed writers but not fresh ones", "[disk_cache]") {
  TempDir t;
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path(), diag));
  cache.store(test_key(1), meta, test_payload(1), {});
  const fs::path sub = cache.entry_path(test_key(1)).parent_path();
  test::write_bytes(sub / ".tmp-1-stale", {1, 2});
  test::write_bytes(sub / ".tmp-2-fresh", {1, 2});
  test::write_bytes(sub / "unrelated.txt", {1});
  set_age(sub / ".tmp-1-stale", std::chrono::hours(2));
  cache.prune(1ull << 30);
  CHECK_FALSE(fs::exists(sub / ".tmp-1-stale"));
  CHECK(fs::exists(sub / ".tmp-2-fresh"));
  CHECK(fs::exists(sub / "unrelated.txt"));  // not the cache's to remove
  CHECK(fs::exists(cache.entry_path(test_key(1))));
}

TEST_CASE("processes storing and loading the same entries at once never see a partial entry", "[disk_cache]") {
  TempDir t;
  constexpr int processes = 4, keys = 3, rounds = 10;
  constexpr std::size_t size = 256 * 1024;  // big enough that a write is not instantaneous
  std::vector<pid_t> children;
  for (int c = 0; c < processes; ++c) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Child: no Catch assertions here; the exit code says what went wrong.
      int code = 0;
      try {
        Diagnostics diag;
        DiskCache cache(test::settings_for(t.path(), diag));
        for (int r = 0; r < rounds && code == 0; ++r) {
          for (int k = 0; k < keys; ++k) {
            if (auto got = cache.load(test_key(k)); got && *got != test_payload(k, size)) code = 1;
            cache.store(test_key(k), meta, test_payload(k, size), {});
          }
        }
        if (code == 0 && diag.warnings() != 0) code = 2;
      } catch (...) {
        code = 3;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  Diagnostics diag;
  DiskCache cache(test::settings_for(t.path(), diag));
  CHECK(cache.verify(false).empty());
  for (int k = 0; k < keys; ++k) CHECK(cache.load(test_key(k)) == test_payload(k, size));
  CHECK_FALSE(has_temp_files(t.path()));
}
