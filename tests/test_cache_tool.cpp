// The fusecl-cache command-line tool, run as a separate process on private folders.
#include "runtime/disk_cache.hpp"
#include "support/cache_test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace fusecl::rt;
using fusecl::test::Diagnostics;
using fusecl::test::TempDir;
using fusecl::test::test_key;
using fusecl::test::test_payload;
using fusecl::test::run_cache_tool;
using fusecl::test::shell_quote;
namespace fs = std::filesystem;

namespace {

// A cache folder with `n` good entries for kernels "kernel_0".."kernel_<n-1>",
// entry i last used i*100 seconds ago.
struct Filled {
  TempDir t;
  Diagnostics diag;
  DiskCache cache{fusecl::test::settings_for(t.path(), diag)};
  std::string dir = shell_quote(t.path().string());

  explicit Filled(int n) {
    for (int i = 0; i < n; ++i) {
      cache.store(test_key(i), {"Tool Test Device", "kernel_" + std::to_string(i), "9.9"}, test_payload(i), {});
      fs::last_write_time(cache.entry_path(test_key(i)),
                          fs::file_time_type::clock::now() - std::chrono::seconds(100 * i));
    }
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for (const CacheFile& f : cache.scan()) n += f.kind == CacheFile::Kind::Entry;
    return n;
  }
};

}  // namespace

TEST_CASE("fusecl-cache verify finds bad entries and --fix removes them", "[cache_tool]") {
  Filled f(3);
  auto ok = run_cache_tool("--dir " + f.dir + " verify");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("3 entries checked, 0 bad") != std::string::npos);

  const fs::path bad = f.cache.entry_path(test_key(1));
  std::vector<unsigned char> bytes = fusecl::test::read_bytes(bad);
  bytes.back() ^= 0xff;
  fusecl::test::write_bytes(bad, bytes);
  const fs::path squatter = f.cache.entry_path(test_key(7));
  fs::create_directories(squatter);

  auto found = run_cache_tool("verify --dir " + f.dir);  // --dir may come after the command
  CHECK(found.exit_code == 1);
  CHECK(found.out.find(bad.string()) != std::string::npos);
  CHECK(found.out.find("payload") != std::string::npos);
  CHECK(found.out.find(squatter.string()) != std::string::npos);
  CHECK(found.out.find("4 entries checked, 2 bad") != std::string::npos);
  CHECK(fs::exists(bad));  // verify alone changes nothing

  auto fixed = run_cache_tool("--dir " + f.dir + " verify --fix");
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.out.find("removed 2 bad entries") != std::string::npos);
  CHECK_FALSE(fs::exists(bad));
  CHECK_FALSE(fs::exists(squatter));
  CHECK(fs::exists(f.cache.entry_path(test_key(0))));
  CHECK(fs::exists(f.cache.entry_path(test_key(2))));
  CHECK(run_cache_tool("--dir " + f.dir + " verify").exit_code == 0);
}

TEST_CASE("fusecl-cache list shows every entry with the most recently used first", "[cache_tool]") {
  Filled f(3);
  auto r = run_cache_tool("--dir " + f.dir + " list");
  REQUIRE(r.exit_code == 0);
  for (int i = 0; i < 3; ++i) {
    CHECK(r.out.find(test_key(i).hex()) != std::string::npos);
    CHECK(r.out.find("kernel_" + std::to_string(i)) != std::string::npos);
  }
  CHECK(r.out.find("Tool Test Device") != std::string::npos);
  CHECK(r.out.find("KEY") < r.out.find(test_key(0).hex()));
  CHECK(r.out.find(test_key(0).hex()) < r.out.find(test_key(1).hex()));
  CHECK(r.out.find(test_key(1).hex()) < r.out.find(test_key(2).hex()));

  TempDir empty;
  auto none = run_cache_tool("--dir " + shell_quote((empty.path() / "absent").string()) + " list");
  CHECK(none.exit_code == 0);
  CHECK(none.out.find("no entries") != std::string::npos);
  CHECK_FALSE(fs::exists(empty.path() / "absent"));  // looking creates nothing
}

TEST_CASE("fusecl-cache stats and prune and clear", "[cache_tool]") {
  Filled f(4);
  const std::uint64_t one = fs::file_size(f.cache.entry_path(test_key(0)));

  auto stats = run_cache_tool("--dir=" + f.dir + " stats");
  REQUIRE(stats.exit_code == 0);
  CHECK(stats.out.find("entries:  4") != std::string::npos);
  CHECK(stats.out.find(std::to_string(4 * one) + " bytes") != std::string::npos);
  CHECK(stats.out.find(f.t.path().string()) != std::string::npos);
  CHECK(stats.out.find("cap:") != std::string::npos);
  // Where the cap and mode come from: the default unless the variable is set.
  const std::string tool = shell_quote((fs::path(fusecl::test::tools_dir()) / "fusecl-cache").string());
  auto defaults = fusecl::test::run_command("env -u FUSECL_CACHE_MAX_BYTES -u FUSECL_CACHE " + tool + " --dir=" + f.dir + " stats");
  CHECK(defaults.out.find("the default (FUSECL_CACHE_MAX_BYTES changes it)") != std::string::npos);
  CHECK(defaults.out.find("set by FUSECL_CACHE_MAX_BYTES") == std::string::npos);
  CHECK(defaults.out.find("the default (FUSECL_CACHE changes it)") != std::string::npos);
  auto set = fusecl::test::run_command("FUSECL_CACHE_MAX_BYTES=1G FUSECL_CACHE=read-only " + tool + " --dir=" + f.dir + " stats");
  CHECK(set.out.find("1 GiB (1073741824 bytes), set by FUSECL_CACHE_MAX_BYTES") != std::string::npos);
  CHECK(set.out.find("read-only, set by FUSECL_CACHE") != std::string::npos);

  auto pruned = run_cache_tool("--dir " + f.dir + " prune --max-bytes " + std::to_string(2 * one));
  CHECK(pruned.exit_code == 0);
  CHECK(f.entries() == 2);
  CHECK(fs::exists(f.cache.entry_path(test_key(0))));  // the two most recently used stay
  CHECK(fs::exists(f.cache.entry_path(test_key(1))));

  CHECK(run_cache_tool("--dir " + f.dir + " prune --max-bytes=1K").exit_code == 0);
  CHECK(f.entries() == 0);

  Filled g(2);
  auto cleared = run_cache_tool("--dir " + g.dir + " clear");
  CHECK(cleared.exit_code == 0);
  CHECK(cleared.out.find("removed 2 entries") != std::string::npos);
  CHECK(g.entries() == 0);
  CHECK(run_cache_tool("--dir " + g.dir + " stats").out.find("entries:  0") != std::string::npos);
}

TEST_CASE("fusecl-cache explains usage errors", "[cache_tool]") {
  TempDir t;
  const std::string dir = "--dir " + shell_quote(t.path().string()) + " ";
  auto help = run_cache_tool("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Usage: fusecl-cache") != std::string::npos);

  struct Case {
    std::string args, message;
  };
  for (const Case& c : {Case{"", "no command"}, Case{dir + "frobnicate", "unknown command 'frobnicate'"},
                        Case{dir + "prune", "needs --max-bytes"}, Case{dir + "prune --max-bytes lots", "not a size"},
                        Case{dir + "list --fix", "--fix belongs to 'verify'"},
                        Case{dir + "stats --bogus", "unknown option"},
                        Case{"stats --dir", "--dir needs a value"}, Case{dir + "list extra", "unexpected argument"}}) {
    INFO(c.args);
    auto r = run_cache_tool(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.find("--help") != std::string::npos);
  }
}
