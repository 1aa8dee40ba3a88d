// Helpers for the kernel-cache tests: private temporary folders, file bytes,
// running the fusecl-cache tool, and a disk cache that records its warnings.
#pragma once

#include "runtime/disk_cache.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace fusecl::test {

/// A fresh folder (mode 0700) under the system temp folder, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A distinct, fixed cache key for each n (the key of a tiny kernel source).
rt::CacheKey test_key(int n);

/// `size` bytes of a pattern that differs with n: a payload to store under test_key(n).
std::vector<unsigned char> test_payload(int n, std::size_t size = 1000);

std::vector<unsigned char> read_bytes(const std::filesystem::path& p);
void write_bytes(const std::filesystem::path& p, const std::vector<unsigned char>& bytes);

/// Lines a DiskCache sent to its sink.
struct Diagnostics {
  std::vector<std::string> lines;
  std::size_t warnings() const;                        // lines starting "fusecl: warning:"
  bool any_contains(const std::string& text) const;
};

/// Read-write settings for `dir` whose diagnostics go to `diag` (which must outlive them).
rt::DiskCacheSettings settings_for(const std::filesystem::path& dir, Diagnostics& diag);

/// What running a command gave.
struct CommandResult {
  int exit_code = -1;  // -1: it did not exit normally
  std::string out, err;
};

/// Runs a /bin/sh command line, capturing its standard output and error.
CommandResult run_command(const std::string& command);

/// Runs the built fusecl-cache with `args` (already shell-quoted where needed).
CommandResult run_cache_tool(const std::string& args);

/// Runs one test case of this test binary (by name or tag, e.g. a hidden
/// "[.child]" case) in a child process under `env` ("A=1 B=2", already quoted;
/// "-u NAME" unsets), so that a setting read once per process, or a crash,
/// can be tested.
CommandResult run_this_test_binary(const std::string& env, const std::string& test_name);

/// Single-quotes `s` for /bin/sh.
std::string shell_quote(const std::string& s);

/// Every file (not folder) under `dir`, recursively.
std::vector<std::filesystem::path> files_under(const std::filesystem::path& dir);

}  // namespace fusecl::test

namespace fusecl::test {
/// Where the built tools are: $FUSECL_TOOLS_DIR when set (a build run on
/// another machine), else the build folder this binary was configured with.
std::string tools_dir();
}  // namespace fusecl::test
