// Both cache levels with a real OpenCL device: get_kernel through build_program,
// the disk cache and the driver, including a binary the driver rejects, a failed
// build, and several processes filling one cache folder at once.
#include "fusecl/error.hpp"
#include "fusecl/stats.hpp"
#include "runtime/context.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/program_build.hpp"
#include "support/cache_test_support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

using namespace fusecl;
using namespace fusecl::rt;
using fusecl::test::Diagnostics;
using fusecl::test::TempDir;
namespace fs = std::filesystem;

namespace {

// y[i] = y[i] * a + variant (+ OFFSET when the build options define it).
KernelSource scale_kernel(const std::string& name, int variant, const std::string& options = {}) {
  return {name,
          "#ifndef OFFSET\n#define OFFSET 0\n#endif\n"
          "__kernel void " + name + "(__global float* y, const float a) {\n"
          "  const size_t i = get_global_id(0);\n"
          "  y[i] = y[i] * a + " + std::to_string(variant) + ".0f + OFFSET;\n"
          "}\n",
          options};
}

// Runs a scale kernel over 0, 1, ..., n-1 with a = 2; true when every y[i] == 2i + expected_add.
bool runs_correctly(cl_kernel k, int expected_add, std::size_t n = 256) {
  std::vector<float> y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = float(i);
  auto buf = upload(runtime(), y.data(), n * sizeof(float));
  const float a = 2.0f;
  check(clSetKernelArg(k, 0, sizeof(cl_mem), &buf->mem), "clSetKernelArg(0)");
  check(clSetKernelArg(k, 1, sizeof(float), &a), "clSetKernelArg(1)");
  check(clEnqueueNDRangeKernel(runtime().queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  download(runtime(), *buf, 0, n * sizeof(float), y.data());
  for (std::size_t i = 0; i < n; ++i)
    if (y[i] != 2.0f * float(i) + float(expected_add)) return false;
  return true;
}

// Points the process-wide disk cache at a fresh folder for one test, with empty
// kernel memory and zeroed counters, and restores the environment's cache afterwards.
struct PrivateCache {
  TempDir t;
  Diagnostics diag;
  explicit PrivateCache(CacheMode mode = CacheMode::ReadWrite, bool save_source = false) {
    DiskCacheSettings s = test::settings_for(t.path() / "cache", diag);
    s.mode = mode;
    s.save_source = save_source;
    set_disk_cache(s);
    clear_memory_cache(runtime());
    reset_stats();
  }
  ~PrivateCache() {
    clear_memory_cache(runtime());
    set_disk_cache(settings_from_env());
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for (const CacheFile& f : disk_cache().scan()) n += f.kind == CacheFile::Kind::Entry;
    return n;
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a kernel is built once then found in memory then loaded from disk", "[kernel_cache][cl]") {
  PrivateCache pc;
  int renders = 0;
  auto render = [&] {
    ++renders;
    return scale_kernel("fusecl_test_levels", 1);
  };

  cl_kernel cold = get_kernel(runtime(), "test:levels", render);
  Stats s = stats();
  CHECK(s.programs_built == 1);
  CHECK(s.programs_loaded == 0);
  CHECK(s.disk_cache_misses == 1);
  CHECK(s.disk_cache_hits == 0);
  CHECK(pc.entries() == 1);
  CHECK(runs_correctly(cold, 1));

  CHECK(get_kernel(runtime(), "test:levels", render) == cold);
  CHECK(get_kernel(runtime(), "test:levels", render) == cold);
  CHECK(stats().memory_cache_hits == 2);
  CHECK(renders == 1);  // a memory hit renders nothing

  clear_memory_cache(runtime());
  cl_kernel warm = get_kernel(runtime(), "test:levels", render);
  s = stats();
  CHECK(renders == 2);
  CHECK(s.programs_built == 1);  // nothing compiled
  CHECK(s.programs_loaded == 1);
  CHECK(s.disk_cache_hits == 1);
  CHECK(s.disk_cache_misses == 1);
  CHECK(runs_correctly(warm, 1));
  CHECK(pc.diag.warnings() == 0);
}

TEST_CASE("build options reach the compiler and are part of the disk key", "[kernel_cache][cl]") {
  PrivateCache pc;
  cl_kernel three = get_kernel(runtime(), "test:options3", [] { return scale_kernel("fusecl_test_options", 0, "-DOFFSET=3"); });
  cl_kernel five = get_kernel(runtime(), "test:options5", [] { return scale_kernel("fusecl_test_options", 0, "-DOFFSET=5"); });
  CHECK(runs_correctly(three, 3));
  CHECK(runs_correctly(five, 5));
  CHECK(stats().programs_built == 2);
  CHECK(pc.entries() == 2);
}

TEST_CASE("FUSECL_CACHE_SAVE_SOURCE keeps each entry's source beside it", "[kernel_cache][cl]") {
  PrivateCache pc(CacheMode::ReadWrite, true);
  const KernelSource ks = scale_kernel("fusecl_test_saved", 4);
  CHECK(runs_correctly(get_kernel(runtime(), "test:saved", [&] { return ks; }), 4));
  const auto saved = test::read_bytes(disk_cache().source_path(program_cache_key(ks, runtime().dev.info)));
  CHECK(std::string(saved.begin(), saved.end()) == ks.source);
}

TEST_CASE("with the disk cache off or read-only kernels are built and nothing is written", "[kernel_cache][cl]") {
  const CacheMode mode = GENERATE(CacheMode::Off, CacheMode::ReadOnly);
  INFO(cache_mode_name(mode));
  PrivateCache pc(mode);
  CHECK(runs_correctly(get_kernel(runtime(), "test:nowrite", [] { return scale_kernel("fusecl_test_nowrite", 5); }), 5));
  clear_memory_cache(runtime());
  CHECK(runs_correctly(get_kernel(runtime(), "test:nowrite", [] { return scale_kernel("fusecl_test_nowrite", 5); }), 5));
  const Stats s = stats();
  CHECK(s.programs_built == 2);
  CHECK(s.programs_loaded == 0);
  CHECK(s.disk_cache_hits == 0);
  CHECK(s.disk_cache_misses == (mode == CacheMode::Off ? 0u : 2u));  // off does not even look
  CHECK_FALSE(fs::exists(pc.t.path() / "cache"));
  CHECK(pc.diag.lines.empty());
}

TEST_CASE("a cached binary the driver rejects is rebuilt from source and replaced", "[kernel_cache][cl]") {
  PrivateCache pc;
  const KernelSource ks = scale_kernel("fusecl_test_rejected", 2);
  const CacheKey key = program_cache_key(ks, runtime().dev.info);
  // A well-formed entry (its checksums match) whose payload is not a program.
  std::vector<unsigned char> garbage(4096);
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<unsigned char>(i * 131 + 7);
  disk_cache().store(key, {"some device", ks.name, "some driver"}, garbage, {});
  REQUIRE(disk_cache().load(key) == garbage);

  cl_kernel k = get_kernel(runtime(), "test:rejected", [&] { return ks; });
  CHECK(runs_correctly(k, 2));
  Stats s = stats();
  CHECK(s.programs_built == 1);
  CHECK(s.programs_loaded == 0);
  CHECK(s.disk_cache_hits == 0);
  CHECK(s.disk_cache_misses == 1);
  CHECK(pc.diag.warnings() == 1);
  CHECK(pc.diag.any_contains("rejected the cached binary"));

  const auto replaced = disk_cache().load(key);
  REQUIRE(replaced.has_value());
  CHECK(*replaced != garbage);

  clear_memory_cache(runtime());
  CHECK(runs_correctly(get_kernel(runtime(), "test:rejected", [&] { return ks; }), 2));
  CHECK(stats().programs_loaded == 1);
  CHECK(pc.diag.warnings() == 1);
}

TEST_CASE("a kernel that does not compile throws its build log and its numbered source", "[kernel_cache][cl]") {
  PrivateCache pc;
  const KernelSource broken{"fusecl_test_broken",
                            "__kernel void fusecl_test_broken(__global float* y) {\n"
                            "  y[0] = fusecl_undefined_name;\n"
                            "}\n",
                            ""};
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure is not cached either
    try {
      get_kernel(runtime(), "test:broken", [&] { return broken; });
      FAIL("the build should have failed");
    } catch (const Error& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find("fusecl_test_broken") != std::string::npos);
      CHECK(msg.find("build log:") != std::string::npos);
      CHECK(msg.find("generated source:") != std::string::npos);
      CHECK(msg.find("1 | __kernel void fusecl_test_broken") != std::string::npos);
      CHECK(msg.find("2 |   y[0] = fusecl_undefined_name;") != std::string::npos);
      CHECK(msg.find("3 | }") != std::string::npos);
    }
  }
  CHECK(stats().programs_built == 0);
  CHECK(pc.entries() == 0);
}

// Run only by the next test, as a child process with FUSECL_TEST_CHILD_VARIANT set;
// hidden from normal runs and from ctest.
TEST_CASE("child process of the multi-process cache test", "[.cache-child]") {
  const char* v = std::getenv("FUSECL_TEST_CHILD_VARIANT");
  if (!v) return;
  const int variant = std::atoi(v) % 2;
  const std::string name = "fusecl_test_variant_" + std::to_string(variant);
  CHECK(runs_correctly(get_kernel(runtime(), "test:shared", [] { return scale_kernel("fusecl_test_shared", 7); }), 7));
  CHECK(runs_correctly(get_kernel(runtime(), "test:" + name, [&] { return scale_kernel(name, 10 + variant); }), 10 + variant));
}

TEST_CASE("several processes building the same and different kernels into one folder all succeed",
          "[kernel_cache][cl]") {
  TempDir cache, logs;
  constexpr int processes = 4;

  // The children get this test's environment with their own cache folder.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "FUSECL_CACHE", 12) != 0 && std::strncmp(*e, "FUSECL_TEST_CHILD_VARIANT=", 26) != 0)
      env_strings.emplace_back(*e);
  env_strings.push_back("FUSECL_CACHE_DIR=" + cache.path().string());

  std::string self(4096, '\0');
  const ssize_t len = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  REQUIRE(len > 0);
  self.resize(std::size_t(len));

  std::vector<pid_t> children;
  for (int i = 0; i < processes; ++i) {
    std::vector<std::string> env = env_strings;
    env.push_back("FUSECL_TEST_CHILD_VARIANT=" + std::to_string(i));
    std::vector<char*> envp;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string spec = "[cache-child]";
    char* argv[] = {self.data(), spec.data(), nullptr};

    const std::string log = (logs.path() / ("child" + std::to_string(i) + ".log")).string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    children.push_back(pid);
  }
  for (int i = 0; i < processes; ++i) {
    int status = 0;
    REQUIRE(::waitpid(children[std::size_t(i)], &status, 0) == children[std::size_t(i)]);
    INFO("child " << i << " output:\n" << slurp(logs.path() / ("child" + std::to_string(i) + ".log")));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }

  const auto verify = test::run_cache_tool("--dir " + test::shell_quote(cache.path().string()) + " verify");
  INFO(verify.out << verify.err);
  CHECK(verify.exit_code == 0);
  CHECK(verify.out.find("3 entries checked, 0 bad") != std::string::npos);
}

TEST_CASE("launch_kernel sets again only the scalars that changed, and every buffer", "[kernel_cache][cl]") {
  PrivateCache pc;
  const std::string sig = "test:scalars";
  auto render = [] { return scale_kernel("fusecl_test_scalars", 0); };
  const std::size_t n = 64;
  // y = y * a, launched on fresh buffers holding 1, ..., n: every result says which a the kernel used.
  auto scaled = [&](float a) {
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = float(i + 1);
    auto buf = upload(runtime(), y.data(), n * sizeof(float));
    std::uint32_t bits;
    std::memcpy(&bits, &a, sizeof bits);
    const KernelArg args[] = {KernelArg::of_buffer(buf.get()), KernelArg::of_bits(bits, sizeof(float))};
    launch_kernel(runtime(), sig, render, args, n, n);
    download(runtime(), *buf, 0, n * sizeof(float), y.data());
    for (std::size_t i = 0; i < n; ++i)
      if (y[i] != float(i + 1) * a) return false;
    return true;
  };
  // The same scalar twice (the second launch skips it) on a new buffer each
  // time (never skipped), then another scalar, then the first again.
  CHECK(scaled(2.0f));
  CHECK(scaled(2.0f));
  CHECK(scaled(3.0f));
  CHECK(scaled(2.0f));
  CHECK(scaled(-0.0f));  // equal to 0.0f as a float, not as bits: must be set
  CHECK(scaled(0.0f));
  // A caller of get_kernel sets its own arguments (a = 2 here): the next
  // launch_kernel must not trust what it set before.
  CHECK(runs_correctly(get_kernel(runtime(), sig, render), 0, n));
  CHECK(scaled(0.0f));
  CHECK(scaled(5.0f));
}
