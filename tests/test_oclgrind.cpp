// Runs a sample of kernel shapes under the Oclgrind simulator (Debian package
// `oclgrind`), which reports out-of-bounds accesses, data races between
// work-items and work-groups, and OpenCL API misuse that real drivers let
// pass silently. Oclgrind is registered privately for a child process (a
// temporary OCL_ICD_VENDORS folder, never /etc/OpenCL/vendors); the child is
// this binary running a hidden test case. Without Oclgrind the tests warn
// and pass: scripts/setup.sh --test installs it.
#include "codegen/philox.hpp"
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/cache_test_support.hpp"
#include "support/device_compare.hpp"
#include "support/device_rows.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <sys/wait.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>

using namespace fusecl;
using namespace fusecl::test;
namespace fs = std::filesystem;

namespace {

// The ICD library of the oclgrind package, or empty when it is not installed.
std::string oclgrind_icd_library() {
  std::string listed;
  if (FILE* p = popen("dpkg -L oclgrind 2>/dev/null", "r")) {
    std::array<char, 4096> chunk;
    while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), p)) listed.append(chunk.data(), n);
    pclose(p);
  }
  std::istringstream lines(listed);
  for (std::string line; std::getline(lines, line);)
    if (line.ends_with("/liboclgrind-rt-icd.so") && fs::exists(line)) return line;
  for (const char* guess : {"/usr/lib/oclgrind/liboclgrind-rt-icd.so", "/usr/local/lib/liboclgrind-rt-icd.so"})
    if (fs::exists(guess)) return guess;
  return "";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What Oclgrind prints for each problem it finds (and glibc for heap damage).
bool reports_problem(const std::string& err) {
  for (const char* marker : {"data race", "Invalid read", "Invalid write", "Uninitialized", "runtime error",
                             "Oclgrind -", "corrupted", "double free", "Kernel: "})
    if (err.find(marker) != std::string::npos) return true;
  return false;
}

struct ChildResult {
  int status = -1;  // exit code; -1: killed by a signal (abort)
  std::string out, err;
};

// Runs this test binary's hidden test `test_name` on Oclgrind, with `env`
// (VAR=value words) added, a fresh kernel cache and Oclgrind's checks on.
ChildResult run_on_oclgrind(const std::string& icd, const std::string& test_name, const std::string& env) {
  TempDir dir;
  fs::create_directories(dir.path() / "vendors");
  std::ofstream(dir.path() / "vendors" / "oclgrind.icd") << icd << "\n";
  const fs::path self = fs::read_symlink("/proc/self/exe");
  const fs::path out = dir.path() / "out", err = dir.path() / "err";
  const std::string cmd = "env OCL_ICD_VENDORS=" + shell_quote((dir.path() / "vendors").string()) +
                          " FUSECL_DEVICE=oclgrind FUSECL_CACHE_DIR=" + shell_quote((dir.path() / "cache").string()) +
                          " OCLGRIND_CHECK_API=1 " + env + " " + shell_quote(self.string()) + " " + shell_quote(test_name) +
                          " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int raw = std::system(cmd.c_str());
  ChildResult r;
  if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The child exited 0 and Oclgrind reported nothing (its output shown if not).
void check_clean(const ChildResult& r) {
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.status == 0);
  CHECK_FALSE(reports_problem(r.err));
}

bool have_oclgrind(std::string& icd) {
  icd = oclgrind_icd_library();
  if (icd.empty()) WARN("SKIPPED: Oclgrind is not installed (scripts/setup.sh --test installs the oclgrind package)");
  return !icd.empty();
}

// True inside the child (on Oclgrind); guards the hidden cases against being
// run by hand on another device, where they would prove nothing.
bool on_oclgrind() { return device().platform_name.find("Oclgrind") != std::string::npos; }

HostArray<float> ints(const Dims& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return h_generate<float>(shape, [&](const Dims&) { return float(rand_int(rng, -50, 50)); });
}

// Pattern `which` of patterns() along the last axis of d (seeded inputs with
// edge values), one row kernel planned with this device's tuning, which
// `expect` checks before it runs; then against the host reference.
template <class Expect>
void checked_rows(std::size_t which, const Dims& d, std::uint64_t seed, Expect expect) {
  const auto all = patterns();
  const Pattern& pat = all[which];
  INFO(pat.name << " over rows of " << d[1]);
  const auto h = inputs(d, 1, seed, pat.lo, pat.hi, true);
  const auto y = pat.device(from_host(h, Shape(d)), 1);
  {
    const auto node = y.node();
    const detail::GraphLock lock{node.get()};
    detail::Schedule s = detail::make_schedule({node}, detail::tuning_of(*node->device));
    REQUIRE(s.kernel_count() == 1);
    expect(s.steps[0].kernel.plan);
    detail::run_schedule(*node->device, s);
  }
  check_rows(pat, h, y.to_host(), d, 1);
}

// Softmax along the rows of the n x m array a, one row kernel dividing
// through the row's reciprocal (`adjust` sets the rest of the tuning;
// `expect` checks the plan before it runs), then against the host in
// double; returns what the device gave.
std::vector<float> checked_softmax(const HostArray<float>& a, const std::function<void(detail::DeviceTuning&)>& adjust,
                                   const std::function<void(const codegen::KernelPlan&)>& expect) {
  const std::int64_t n = a.shape[0], m = a.shape[1];
  const auto x = to_device(a);
  const auto e = exp(x - max(x, 1, true));
  const auto y = e / sum(e, 1, true);
  {
    const auto node = y.node();
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*node->device);
    t.row_reciprocal = true;
    adjust(t);
    detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() == 1);
    const auto& plan = s.steps[0].kernel.plan;
    REQUIRE(plan.reduce.row_chunks > 0);
    REQUIRE(codegen::render(plan, codegen::kernel_name(plan)).find("fcl_rdiv_") != std::string::npos);
    expect(plan);
    detail::run_schedule(*node->device, s);
  }
  const auto got = y.to_host();
  for (std::int64_t i = 0; i < n; ++i) {
    double mx = -INFINITY, s = 0;
    for (std::int64_t j = 0; j < m; ++j) mx = std::max(mx, double(a.data[std::size_t(i * m + j)]));
    for (std::int64_t j = 0; j < m; ++j) s += std::exp(double(a.data[std::size_t(i * m + j)]) - mx);
    for (std::int64_t j = 0; j < m; ++j) {
      const double want = std::exp(double(a.data[std::size_t(i * m + j)]) - mx) / s;
      REQUIRE(std::fabs(got[std::size_t(i * m + j)] - want) <= 1e-6 * want + 1e-37);
    }
  }
  return got;
}

}  // namespace

TEST_CASE("exiting after a split reduction with FUSECL_POOL_MAX_BYTES=0 is clean (Oclgrind)", "[oclgrind][exit]") {
  // The split reduction's scratch buffer was a function-local static; its
  // destructor released it at exit, after the driver's teardown, and with
  // the pool caching nothing that reached clReleaseMemObject: Oclgrind then
  // aborted with "corrupted double-linked list".
  std::string icd;
  if (!have_oclgrind(icd)) return;
  check_clean(run_on_oclgrind(icd, "[.oclgrind-child-exit]", "FUSECL_POOL_MAX_BYTES=0"));
}

TEST_CASE("kernel shapes run clean under Oclgrind's out-of-bounds, data-race and API checks", "[oclgrind]") {
  std::string icd;
  if (!have_oclgrind(icd)) return;
  // The earlier GPU row layouts (FUSECL_ROW_HELD_BYTES=0): the sample's shapes
  // were chosen for them, and the whole array of 20000 keeps the grid form.
  check_clean(run_on_oclgrind(icd, "[.oclgrind-child-shapes]", "OCLGRIND_DATA_RACES=1 FUSECL_ROW_HELD_BYTES=0"));
}

TEST_CASE("long rows deep in registers, division through the row's reciprocal, and short rows in lanes run clean under Oclgrind", "[oclgrind]") {
  std::string icd;
  if (!have_oclgrind(icd)) return;
  // Oclgrind is a GPU to fusecl: the deep register form (FUSECL_ROW_HELD_BYTES
  // at its default), and division through the reciprocal with its second
  // pass, which the child asks for (Oclgrind reports neither correctly
  // rounded division nor fma, so fusecl would not use it there by itself),
  // as it asks for a CPU's lanes form.
  check_clean(run_on_oclgrind(icd, "[.oclgrind-child-deep]", "OCLGRIND_DATA_RACES=1 FUSECL_TUNE=0"));
}

TEST_CASE("a CPU's transposed blocks in registers run clean under Oclgrind", "[oclgrind]") {
  std::string icd;
  if (!have_oclgrind(icd)) return;
  // Oclgrind is no CPU to fusecl: the child asks for the form.
  check_clean(run_on_oclgrind(icd, "[.oclgrind-child-blocks]", "FUSECL_TUNE=0"));
}

TEST_CASE("child: a CPU's transposed blocks in registers", "[.oclgrind-child-blocks]") {
  REQUIRE(on_oclgrind());
  // Scheduled with the CPU's tiling (DeviceTuning::tile_registers): one
  // kernel of blocks in registers, then against the host.
  auto in_blocks = [](const auto& z, const auto& want, int tile) {
    {
      const auto node = z.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      t.tile_registers = true;
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      REQUIRE(s.steps[0].kernel.plan.tile_registers);
      REQUIRE(int(s.steps[0].kernel.plan.tile) == tile);
      detail::run_schedule(*node->device, s);
    }
    require_matches(z, want);
  };
  auto add = [](float a, float b) { return a + b; };
  // 64 x 64 floats fill their buffers' size class (16 KiB): a block's vector
  // past an edge would read past the buffer. Whole blocks only.
  const auto p = ints({64, 64}, 40), q = ints({64, 64}, 41);
  in_blocks(to_device(p) + transpose(to_device(q)), h_map2<float>(p, h_transpose(q), add), 8);
  // A batch of 3, partial blocks at both edges (37 = 4 x 8 + 5, 41 = 5 x 8 + 1).
  const auto a = ints({3, 37, 41}, 42), b = ints({3, 41, 37}, 43);
  in_blocks(permute(to_device(b), {0, 2, 1}) + to_device(a), h_map2<float>(h_permute(b, {0, 2, 1}), a, add), 8);
  // A flip along the tile axis: every block element by element.
  in_blocks(to_device(p) + transpose(flip(to_device(q), 1)), h_map2<float>(p, h_transpose(h_flip(q, 1)), add), 8);
  if (device().fp64) {
    // 8-byte elements: 4 x 4 blocks, 17 x 20 (a partial row of blocks).
    const auto d = h_generate<double>({17, 20}, [](const Dims& i) { return double(i[0] * 100 + i[1]); });
    const auto e = h_generate<double>({20, 17}, [](const Dims& i) { return double(i[0] * 1000 + i[1]); });
    in_blocks(to_device(d) * 2.0 + transpose(to_device(e)),
              h_map2<double>(d, h_transpose(e), [](double u, double v) { return u * 2.0 + v; }), 4);
  }
}

TEST_CASE("child: long rows deep in registers, division through the reciprocal, short rows in lanes", "[.oclgrind-child-deep]") {
  // (and softmax's pair in a group per row, below)
  REQUIRE(on_oclgrind());
  // Softmax against the host in double: rows of 2049 (128 work-items of 32
  // elements, in vectors from each row's aligned start: row_skew; 3 x 2049
  // is no multiple of 4, so the last row's last vector passes the array's
  // end), 5000 (256 of 8 vectors) and 9000 (exp computed again), and short
  // rows of 17 (a work-item each, staged through local memory: row_staged,
  // the span's last vector part full; and without staging, 2 work-items,
  // row_skew), each with a row scaled down (every quotient in the
  // reciprocal's range: its first pass alone) and a row with -inf (zeros:
  // the second pass).
  for (const auto& [m, stage] : {std::pair<std::int64_t, int>{2049, 1}, {5000, 1}, {9000, 1}, {17, 1}, {17, 0}}) {
    INFO("softmax over rows of " << m << (stage ? "" : ", not staged"));
    auto a = ints({3, m}, 30 + std::uint64_t(m));
    for (std::int64_t j = 0; j < m; ++j) a.data[std::size_t(m + j)] *= 0.01f;
    a.data[std::size_t(2 * m + 7)] = -INFINITY;
    const int staged = m == 17 && stage ? 16 : 0, setting = stage;
    const bool skewed = m % 4 != 0 && staged == 0;
    const auto got = checked_softmax(
        a, [setting](detail::DeviceTuning& t) { t.row_stage = setting; },
        [staged, skewed](const codegen::KernelPlan& plan) {
          REQUIRE(int(plan.reduce.row_staged) == staged);
          REQUIRE(plan.reduce.row_skew == skewed);
        });
    CHECK(got[std::size_t(2 * m + 7)] == 0.0f);
  }
  // Rows of 129 element by element, the length a constant (16 work-items a
  // row, 9 elements each, the last chunk the row's for one of them): only
  // the last chunk tests the row's end, and the last group's rows past the
  // last (127 rows, 8 a group) compute on the last row's loads and must
  // store nothing: 127 x 129 floats fill the buffer's size class, 64 KiB,
  // but for one, so a store of theirs passes its end. Softmax through the
  // reciprocal, a row with -inf (its second pass).
  {
    const std::int64_t n = 127, m = 129;
    auto a = ints({n, m}, 36);
    a.data[std::size_t(5 * m + 128)] = -INFINITY;
    const auto got = checked_softmax(a, [](detail::DeviceTuning&) {}, [&](const codegen::KernelPlan& plan) {
      REQUIRE(plan.width == 1);
      REQUIRE(plan.reduce.row_length == std::uint32_t(m));
      REQUIRE(int(plan.reduce.row_chunks) == 9);
      REQUIRE(plan.reduce.local_size / plan.reduce.rows_per_group == 16);
      REQUIRE(codegen::render(plan, codegen::kernel_name(plan)).find("if (k >= 8 && r >= m) break;") != std::string::npos);
    });
    CHECK(got[std::size_t(5 * m + 128)] == 0.0f);
  }
  // Layer norm and softmax over rows of 52 in whole vectors, 4 work-items a
  // row of 4 vectors each, the last chunk the row's for one of them: the
  // loops after the first reduction's (layer norm's squared deviations,
  // softmax's exp and its sum) and the output loop compute the others' past
  // the row's end (their loads repeat its last vector) and must neither
  // count nor store them (in_: render_row_loops.cpp). 315 x 52 floats fill the
  // buffer's size class, 64 KiB, but for 16 bytes: the last row's stores
  // past its end would pass the buffer's.
  for (const std::size_t which : {std::size_t(4), std::size_t(3)})
    checked_rows(which, {315, 52}, 37, [](const codegen::KernelPlan& plan) {
      REQUIRE(plan.width == 4);
      REQUIRE(int(plan.reduce.row_chunks) == 4);
      REQUIRE(plan.reduce.local_size / plan.reduce.rows_per_group == 4);
      const std::string text = codegen::render(plan, codegen::kernel_name(plan));
      // The second reduction's update, and the output loop's stores (one pass, or two through the reciprocal).
      int masked = 0;
      for (std::size_t at = text.find("if (in_) {"); at != std::string::npos; at = text.find("if (in_) {", at + 1)) ++masked;
      REQUIRE(masked >= 2);
    });
  // Softmax over rows of 20 in whole vectors, 2 work-items a row: every other
  // row's vectors rotated by one (ReduceSpec::row_rotate), its last chunk
  // position its first vector. 102 rows (the last odd, rotated) fill the
  // buffer's size class, 8 KiB, but for 32 bytes: a rotated row's last
  // vector taken past its end would pass the buffer's.
  checked_rows(3, {102, 20}, 38, [](const codegen::KernelPlan& plan) {
    REQUIRE(plan.width == 4);
    REQUIRE(plan.reduce.local_size / plan.reduce.rows_per_group == 2);
    REQUIRE(plan.reduce.row_rotate);
  });
  // Softmax over rows of 30 in 8-byte vectors (plan_row.cpp's
  // narrowed_rows), 4 work-items a row of 4, 4, 4 and 3 float2: the last
  // work-item's fourth position is past the row's end (it loads the row's
  // last vector again and must store nothing). 68 rows fill the buffer's
  // size class, 8 KiB, but for 32 bytes.
  checked_rows(3, {68, 30}, 39, [](const codegen::KernelPlan& plan) {
    REQUIRE(plan.width == 2);
    REQUIRE(plan.reduce.local_size / plan.reduce.rows_per_group == 4);
    REQUIRE(int(plan.reduce.row_chunks) == 4);
  });
  // Short rows in the lanes form (a CPU's: lane j of a vector is a row, its
  // loads gathered m apart): 17 rows of 15, so the last vector holds one row
  // and its other lanes repeat it (they must read nothing past it, and store
  // nothing: 255 floats fill the buffer's size class, 1 KiB, but for one);
  // x - max is exact.
  {
    const std::size_t rows = 17, m = 15;
    const auto a = ints({std::int64_t(rows), std::int64_t(m)}, 34);
    const auto x = to_device(a);
    const auto y = x - max(x, 1, true);
    {
      const auto node = y.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      cpu_row_layout(t, true);
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      REQUIRE(s.steps[0].kernel.plan.reduce.row_lanes);
      detail::run_schedule(*node->device, s);
    }
    const auto got = y.to_host();
    for (std::size_t i = 0; i < rows; ++i) {
      const float mx = *std::max_element(a.data.begin() + std::ptrdiff_t(i * m), a.data.begin() + std::ptrdiff_t(i * m + m));
      for (std::size_t j = 0; j < m; ++j) REQUIRE(got[i * m + j] == a.data[i * m + j] - mx);
    }
  }
  // logsumexp: softmax's pair in a group per row (its sum read by no row
  // kernel), four vectors a block, the blocks' last partly past the row (the
  // rest one by one), a tail element, and a masked row (-inf but two); the
  // log and the add where it stores (the max is the caller's no longer).
  // Over rows of 3001 a group each, and over rows of 203 that share a group
  // (ReduceSpec::rows_per_group: each row's work-items meet in their own
  // part of local memory), the last group's last rows past the last row.
  const auto logsumexp = [&](std::int64_t n, std::int64_t m, std::uint64_t seed, bool shared) {
    INFO(n << " rows of " << m);
    auto a = ints({n, m}, seed);
    const std::int64_t masked = shared ? 3 : 2, keep = shared ? 6 : 4;
    for (std::int64_t j = 0; j < m; ++j)
      if (j != keep && j != m - 1) a.data[std::size_t(masked * m + j)] = -INFINITY;
    const auto x = to_device(a);
    const auto y = [&] {  // the max held by no one but y
      const auto mx = max(x, 1, true);
      return log(sum(exp(x - mx), 1, true)) + mx;
    }();
    {
      const auto node = y.node();
      const detail::GraphLock lock{node.get()};
      auto t = detail::tuning_of(*node->device);
      if (shared) t.local_size = 64, t.max_work_group_size = 256, t.target_groups = 1, t.pair_kernels = true, t.pair_sum_elements = 1;
      detail::Schedule s = detail::make_schedule({node}, t);
      REQUIRE(s.kernel_count() == 1);
      const auto& rs = s.steps[0].kernel.plan.reduce;
      REQUIRE(s.steps[0].kernel.plan.finish.size() == 4);
      REQUIRE(rs.online);
      REQUIRE(rs.strategy == codegen::ReduceStrategy::GroupPerOutput);
      if (shared) REQUIRE((rs.rows_per_group > 1 && n % rs.rows_per_group != 0));
      detail::run_schedule(*node->device, s);
    }
    const auto got = y.to_host();
    for (std::int64_t i = 0; i < n; ++i) {
      double big = -INFINITY, s = 0;
      for (std::int64_t j = 0; j < m; ++j) big = std::max(big, double(a.data[std::size_t(i * m + j)]));
      for (std::int64_t j = 0; j < m; ++j) s += std::exp(double(a.data[std::size_t(i * m + j)]) - big);
      REQUIRE(std::fabs(got[std::size_t(i)] - (std::log(s) + big)) <= 1e-5 * (1 + std::fabs(std::log(s) + big)));
    }
  };
  logsumexp(4, 3001, 35, false);
  logsumexp(11, 203, 36, true);
  // The whole array past a row kernel's reach: partials, then every group
  // combines them (the grid form), exact.
  const auto w = ints({40000}, 33);
  const auto xw = to_device(w);
  const auto mw = *std::max_element(w.data.begin(), w.data.end());
  const auto got = (xw - max(xw)).to_host();
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == w.data[i] - mw);
}

TEST_CASE("child: a split reduction, then exit", "[.oclgrind-child-exit]") {
  REQUIRE(on_oclgrind());
  // 2^16 elements: split over several groups on Oclgrind's one compute unit.
  const auto x = from_host(std::vector<float>(std::size_t(1) << 16, 1.0f));
  const std::string src = kernel_source(sum(x * x));
  REQUIRE(src.find("scratch") != std::string::npos);
  CHECK(sum(x * x).to_host() == std::vector<float>{65536.0f});
}

TEST_CASE("child: a sample of kernel shapes", "[.oclgrind-child-shapes]") {
  REQUIRE(on_oclgrind());
  auto add = [](float a, float b) { return a + b; };
  SECTION("elementwise with a vector tail") {
    const auto a = ints({4099}, 1), b = ints({4099}, 2);
    require_matches(to_device(a) * to_device(b) + 1.0f, h_map2<float>(a, b, [](float p, float q) { return p * q + 1.0f; }));
  }
  SECTION("broadcast") {
    const auto a = ints({63, 65}, 3), b = ints({65}, 4);
    require_matches(to_device(a) + to_device(b), h_map2<float>(a, b, add));
  }
  SECTION("transposed operand") {
    const auto a = ints({37, 41}, 5), b = ints({41, 37}, 6);
    require_matches(transpose(to_device(a)) + to_device(b), h_map2<float>(h_transpose(a), b, add));
  }
  SECTION("tiled transposes: a batch, partial tiles, 8-byte elements") {
    // Tiles in local memory behind a barrier (render_tiled.cpp): every
    // work-item of a partial tile must reach it, and none read past an edge.
    const auto a = ints({3, 37, 41}, 14), b = ints({3, 41, 37}, 15);
    const auto t = permute(to_device(b), {0, 2, 1}) + to_device(a);
    REQUIRE(kernel_source(t).find("barrier(CLK_LOCAL_MEM_FENCE)") != std::string::npos);
    require_matches(t, h_map2<float>(h_permute(b, {0, 2, 1}), a, add));
    if (device().fp64) {
      const auto d = h_generate<double>({17, 20}, [](const Dims& i) { return double(i[0] * 100 + i[1]); });
      const auto e = h_generate<double>({20, 17}, [](const Dims& i) { return double(i[0] * 1000 + i[1]); });
      require_matches(to_device(d) * 2.0 + transpose(to_device(e)),
                      h_map2<double>(d, h_transpose(e), [](double p, double q) { return p * 2.0 + q; }));
    }
  }
  SECTION("negative-step slice") {
    const auto a = ints({1001}, 7);
    require_matches(slice(to_device(a), 0, std::nullopt, std::nullopt, -3) * 2.0f,
                    h_map<float>(h_slice(a, {Slice{std::nullopt, std::nullopt, -3}}), [](float v) { return v * 2.0f; }));
  }
  auto sums = [](const std::vector<float>& v) {
    float s = 0;
    for (float f : v) s += f;
    return s;
  };
  SECTION("reduction: a work-item per output") {
    const auto a = ints({300, 13}, 8);  // no whole vectors: not in lanes on a GPU's tuning
    const auto r = sum(to_device(a), 1);
    CHECK(kernel_source(r).find("reqd_work_group_size") == std::string::npos);
    require_matches(r, h_reduce<float>(a, {1}, false, false, sums));
  }
  SECTION("reduction: short rows sharing a group, the last group past the last row") {
    // On a GPU's tuning (Oclgrind's is one): rows of 33 and 47 two
    // work-items each, many rows a group (scheduler.cpp's share_groups; rows
    // of more than 32 that are no whole vectors are not read in lanes); rows
    // past the last get an empty range and no store.
    for (const std::int64_t m : {33, 47}) {
      const auto a = ints({301, m}, 18);
      const auto r = sum(to_device(a), 1);
      const std::string src = kernel_source(r);
      INFO(src);
      CHECK(src.find("o < n") != std::string::npos);
      require_matches(r, h_reduce<float>(a, {1}, false, false, sums));
    }
  }
  SECTION("reduction: short rows in lanes, the last group past the last row") {
    // On a GPU's tuning: rows of 16, 24 and 128 over 4, 2 and 32 work-items
    // (render_lane_rows.cpp), their lanes meeting in local memory; rows past
    // the last read the last row and store nothing. Rows of 10 (5 vectors of
    // 2 over 2 work-items), 44 (11 of 4 over 4) and 100 (25 over 32): the
    // lanes past the row's last vector load that vector again, and nothing
    // past it.
    // Rows of 17 and 31 (no whole vectors) in scalars over 4 work-items.
    // argmax too: each lane's index beside its value, rows of 24 over 2
    // work-items, of 31 in scalars.
    for (const std::int64_t m : {16, 24, 128, 10, 44, 100, 17, 31}) {
      const auto a = ints({301, m}, 19);
      const auto r = sum(to_device(a), 1);
      const std::string src = kernel_source(r);
      INFO(src);
      CHECK(src.find("lane_") != std::string::npos);
      require_matches(r, h_reduce<float>(a, {1}, false, false, sums));
      if (m != 24 && m != 31) continue;
      const auto g = argmax(to_device(a), 1);
      CHECK(kernel_source(g).find("lane_") != std::string::npos);
      std::vector<std::int64_t> want;
      for (std::int64_t o = 0; o < 301; ++o) {
        const auto row = a.data.begin() + o * m;
        want.push_back(std::max_element(row, row + m) - row);
      }
      CHECK(g.to_host() == want);
    }
    // Columns 6 to 15 of 64 x 16 (rows of 10 in place, 16 apart): the last
    // row ends where the buffer does (4096 bytes, its size class). (A lane
    // past its row's last vector loads that vector again; Oclgrind's
    // compiler sinks a load whose value ok_ discards under ok_, so it would
    // not see such a lane read past the row either way.)
    const auto b = ints({64, 16}, 20);
    auto whole = to_device(b) * 1.0f;  // a buffer of the pool's, 4096 bytes, not the host's vector
    eval(whole);
    const auto r = sum(slice(whole, 1, 6, 16), 1);
    const std::string src = kernel_source(r);
    INFO(src);
    CHECK(src.find("lane_") != std::string::npos);
    require_matches(r, h_reduce<float>(h_slice(b, {Slice{}, Slice{6, 16}}), {1}, false, false, sums));
  }
  SECTION("reduction: a group per output") {
    const auto a = ints({8, 2000}, 9);
    const auto r = sum(to_device(a), 1);
    const std::string src = kernel_source(r);
    CHECK(src.find("reqd_work_group_size") != std::string::npos);
    CHECK(src.find("scratch") == std::string::npos);
    require_matches(r, h_reduce<float>(a, {1}, false, false, sums));
  }
  SECTION("reduction: column blocks, whole and split over parts of the rows") {
    // A group per 32 columns, 8 rows at a time, a tree over the rows in local
    // memory: the last block is partial (45 = 32 + 13 columns).
    const auto a = ints({37, 45}, 16);
    const auto r = sum(to_device(a), 0);
    REQUIRE(kernel_source(r).find("reqd_work_group_size(32, 8, 1)") != std::string::npos);
    require_matches(r, h_reduce<float>(a, {0}, false, false, sums));
    const auto tall = ints({2000, 40}, 17);
    const auto t = sum(to_device(tall), 0);
    REQUIRE(kernel_source(t).find("scratch") != std::string::npos);
    require_matches(t, h_reduce<float>(tall, {0}, false, false, sums));
  }
  SECTION("reduction: columns of bytes in 8 lanes, outputs past the last whole vector, parts of the rows") {
    // scheduler.cpp's column_vectors on a GPU's tuning (Oclgrind's is one):
    // int8 down columns in vectors of 8 (char8 loads): a max (its
    // accumulator a byte) over 45 outputs, 5 past the last whole vector, in
    // few rows and in many (parts of the rows, met by a second kernel); a
    // sum (int64) over 2051 outputs, 3 past it.
    auto check = [](std::int64_t M, std::int64_t B, bool is_max) {
      std::vector<std::int8_t> h(std::size_t(M * B));
      std::mt19937_64 rng(std::uint64_t(M * 7919 + B));
      for (auto& v : h) v = std::int8_t(int(rng() % 256) - 128);
      const auto x = from_host(h, {M, B});
      INFO((is_max ? "max" : "sum") << " down " << M << " rows of " << B);
      if (is_max) {
        const auto y = max(x, 0);
        REQUIRE(kernel_source(y).find("char8") != std::string::npos);
        const auto got = y.to_host();
        for (std::int64_t c = 0; c < B; ++c) {
          std::int8_t best = -128;
          for (std::int64_t r = 0; r < M; ++r) best = std::max(best, h[std::size_t(r * B + c)]);
          REQUIRE(got[std::size_t(c)] == best);
        }
      } else {
        const auto y = sum(x, 0);
        REQUIRE(kernel_source(y).find("char8") != std::string::npos);
        const auto got = y.to_host();
        for (std::int64_t c = 0; c < B; ++c) {
          std::int64_t t = 0;
          for (std::int64_t r = 0; r < M; ++r) t += h[std::size_t(r * B + c)];
          REQUIRE(got[std::size_t(c)] == t);
        }
      }
    };
    check(37, 45, true);
    check(3000, 45, true);
    check(20, 2051, false);
  }
  SECTION("a reduction's consumer where it stores: columns in vectors, parts of the rows, rows") {
    // src/reduce_finish.cpp: sqrt(|mean(2x)|) * 3 - 0.25 computed where the
    // mean stores (KernelPlan::finish), one kernel where the rows are not
    // split: down 45 columns (a tail past the last whole vector), down 2000
    // rows (parts, met by a second kernel that computes the finish, its
    // scalars after the divisor), and over rows of 13.
    auto check = [](const HostArray<float>& a, int axis) {
      const std::int64_t R = a.shape[0], C = a.shape[1], len = axis == 0 ? R : C;
      const auto x = to_device(a);
      const auto y = sqrt(abs(mean(x * 2.0f, axis))) * 3.0f - 0.25f;
      reset_stats();
      eval(y);
      const auto kernels = stats().kernels_launched;
      INFO(R << " x " << C << ", axis " << axis << ": " << kernels << " kernels");
      CHECK((kernels == 1 || (kernels == 2 && len >= 1000)));
      const auto got = y.to_host();
      for (std::int64_t o = 0; o < (axis == 0 ? C : R); ++o) {
        double t = 0;
        for (std::int64_t i = 0; i < len; ++i) t += 2.0 * a.data[std::size_t(axis == 0 ? i * C + o : o * C + i)];
        const float want = std::sqrt(std::fabs(float(t) / float(len))) * 3.0f - 0.25f;
        CHECK(std::fabs(got[std::size_t(o)] - want) <= 1e-6f * (1.0f + std::fabs(want)));
      }
    };
    check(ints({37, 45}, 25), 0);
    check(ints({2000, 45}, 26), 0);
    check(ints({300, 13}, 27), 1);
  }
  SECTION("reduction: split over groups, finished by a second kernel") {
    auto a = ints({20000}, 10);
    a.data[15000] = a.data[17000] = 99;  // the first maximum lies in a later group than the start
    const auto x = to_device(a);
    REQUIRE(kernel_source(sum(x)).find("scratch") != std::string::npos);
    require_matches(sum(x), h_reduce<float>(a, {}, true, false, sums));
    CHECK(argmax(x).to_host() == std::vector<std::int64_t>{15000});
    const auto two = ints({2, 20000}, 11);
    require_matches(max(to_device(two), 1), h_reduce<float>(two, {1}, false, false, [](const std::vector<float>& v) {
                      float m = v[0];
                      for (float f : v) m = std::max(m, f);
                      return m;
                    }));
  }
  SECTION("var and mean in one pass: a work-item per output, a group per output, split over groups") {
    // Moment kernels (render_moment.cpp): four arrays of sums in local
    // memory, a tree over them, partials of a split in scratch. Small integers:
    // exact sums; the variance within an ulp of float64's.
    if (device().fp64) {
      auto check = [&](const HostArray<float>& a, int axis) {
        const auto x = to_device(a);
        auto v = axis < 0 ? var(x) : var(x, axis);
        auto m = axis < 0 ? mean(x) : mean(x, axis);
        REQUIRE(kernel_source(v).find("double") != std::string::npos);  // one pass: float64 sums
        eval(v, m);
        const auto gv = v.to_host(), gm = m.to_host();
        const std::int64_t len = axis < 0 ? std::int64_t(a.data.size()) : a.shape.back();
        for (std::size_t o = 0; o < gv.size(); ++o) {
          double s = 0, q = 0;
          for (std::int64_t i = 0; i < len; ++i) s += a.data[o * std::size_t(len) + std::size_t(i)];
          const double mu = s / double(len);
          for (std::int64_t i = 0; i < len; ++i) q += (a.data[o * std::size_t(len) + std::size_t(i)] - mu) * (a.data[o * std::size_t(len) + std::size_t(i)] - mu);
          CHECK(std::fabs(double(gv[o]) - q / double(len)) <= FLT_EPSILON * q / double(len));
          CHECK(gm[o] == float(s) / float(len));
        }
      };
      check(ints({300, 13}, 18), 1);
      check(ints({8, 2003}, 19), 1);
      check(ints({20001}, 20), -1);
    }
  }
  SECTION("var and mean of float64 in one pass: blocks met in Chan's update, split, down columns") {
    // render_moment_chan.cpp: its first value read before the loop, blocks
    // of a lane, a tree of Chan's updates in local memory, partials of a
    // split with their x0 in scratch, column blocks in vectors. Small
    // integers: exact sums, so the mean is exact and the variance within a
    // few ulps of the two-pass reference.
    if (device().fp64) {
      auto check = [&](const HostArray<float>& a, int axis) {
        const std::vector<double> d(a.data.begin(), a.data.end());
        const auto x = from_host(d, Shape(a.shape));
        auto v = axis < 0 ? var(x) : var(x, axis);
        auto m = axis < 0 ? mean(x) : mean(x, axis);
        if (axis != 0) REQUIRE(kernel_source(v).find("fcl_chan_merge") != std::string::npos);
        eval(v, m);
        const auto gv = v.to_host(), gm = m.to_host();
        const std::int64_t rows = a.shape.size() == 2 ? a.shape[0] : 1, cols = a.shape.back();
        const std::int64_t len = axis < 0 ? std::int64_t(d.size()) : axis == 0 ? rows : cols;
        auto at = [&](std::size_t o, std::int64_t i) {
          return axis == 0 ? d[std::size_t(i * cols) + o] : d[o * std::size_t(len) + std::size_t(i)];
        };
        for (std::size_t o = 0; o < gv.size(); ++o) {
          // In long double: float64's own two passes over 20001 values are
          // further from the variance than the kernel is.
          double s = 0;
          for (std::int64_t i = 0; i < len; ++i) s += at(o, i);
          const long double mu = (long double)s / len;
          long double q = 0;
          for (std::int64_t i = 0; i < len; ++i) q += (at(o, i) - mu) * (at(o, i) - mu);
          const double want = double(q / len);
          INFO("output " << o << " of " << gv.size() << ", axis " << axis << ": " << std::setprecision(17) << gv[o] << " against " << want);
          CHECK(std::fabs(gv[o] - want) <= 16 * DBL_EPSILON * want);
          CHECK(gm[o] == s / double(len));
        }
      };
      check(ints({300, 13}, 21), 1);
      check(ints({8, 2003}, 22), 1);
      check(ints({20001}, 23), -1);
      check(ints({1000, 64}, 24), 0);
    }
  }
  SECTION("var and mean of float64 over short rows in lanes: a GPU's layout, the lanes met in local memory") {
    // render_lane_rows.cpp's chan_body: each row's first value loaded
    // before its lanes' vectors, the tree of Chan's updates in local memory
    // (data races checked), 100 rows so that the last group's rows past the
    // last load the last row and store nothing. Small integers: exact sums.
    if (device().fp64) {
      for (const std::int64_t m : {24, 64}) {
        INFO("rows of " << m);
        const auto a = ints({100, m}, 25 + std::uint64_t(m));
        const std::vector<double> d(a.data.begin(), a.data.end());
        const auto x = from_host(d, {100, m});
        auto v = var(x, 1);
        auto mu = mean(x, 1);
        {
          const detail::GraphLock lock{v.node().get()};
          auto t = gpu_reduction_tuning(*v.node()->device, true);
          t.row_warp = 0;
          detail::Schedule s = detail::make_schedule({v.node(), mu.node()}, t);
          REQUIRE(s.kernel_count() == 1);
          REQUIRE(int(s.steps[0].kernel.plan.reduce.lanes_per_row) == (m == 64 ? 16 : 4));
          detail::run_schedule(*v.node()->device, s);
        }
        const auto gv = v.to_host(), gm = mu.to_host();
        for (std::size_t o = 0; o < 100; ++o) {
          double s = 0;
          for (std::int64_t i = 0; i < m; ++i) s += d[o * std::size_t(m) + std::size_t(i)];
          const long double c = (long double)s / m;
          long double q = 0;
          for (std::int64_t i = 0; i < m; ++i) q += (d[o * std::size_t(m) + std::size_t(i)] - c) * (d[o * std::size_t(m) + std::size_t(i)] - c);
          CHECK(std::fabs(gv[o] - double(q / m)) <= 16 * DBL_EPSILON * double(q / m));
          CHECK(gm[o] == s / double(m));
        }
      }
    }
  }
  SECTION("a moment kernel's consumer where it stores: 1 / sqrt(var + eps), and std / mean from its two values") {
    // reduce_finish.cpp's moment paths: the finish's statements at the
    // moment stores of render_moment.cpp (a work-item an output, a group an
    // output) and of render_moment_chan.cpp (float64 column blocks in
    // vectors). Small positive integers: exact means.
    if (device().fp64) {
      auto check = [&](const HostArray<float>& a, int axis, bool f64) {
        const std::vector<double> d(a.data.begin(), a.data.end());
        const std::int64_t rows = a.shape[0], cols = a.shape[1], len = axis == 0 ? rows : cols;
        std::vector<double> got_r, got_c;
        const auto run = [&](const auto& x) {
          const auto r = 1.0f / sqrt(var(x, axis) + 1e-5f);
          const auto c = stddev(x, axis) / (mean(x, axis) + 100.0f);
          REQUIRE(kernel_source(r).find(" f3_ = ") != std::string::npos);  // the finish's entries: var, + eps, sqrt, 1 /
          REQUIRE(kernel_source(c).find(" f3_ = ") != std::string::npos);  // std, mean, + 100, /
          const auto gr = r.to_host(), gc = c.to_host();
          got_r.assign(gr.begin(), gr.end());
          got_c.assign(gc.begin(), gc.end());
        };
        if (f64) run(from_host(d, Shape(a.shape)));
        else run(to_device(a));
        for (std::size_t o = 0; o < got_r.size(); ++o) {
          const auto at = [&](std::int64_t i) { return axis == 0 ? d[std::size_t(i * cols) + o] : d[o * std::size_t(len) + std::size_t(i)]; };
          long double s = 0, q = 0;
          for (std::int64_t i = 0; i < len; ++i) s += at(i);
          const long double mu = s / len;
          for (std::int64_t i = 0; i < len; ++i) q += (at(i) - mu) * (at(i) - mu);
          const long double want_r = 1 / std::sqrt(q / len + 1e-5L), want_c = std::sqrt(q / len) / (mu + 100);
          CHECK(std::fabs((long double)got_r[o] - want_r) <= 4 * FLT_EPSILON * want_r);
          CHECK(std::fabs((long double)got_c[o] - want_c) <= 4 * FLT_EPSILON * want_c);
        }
      };
      check(ints({300, 13}, 25), 1, false);
      check(ints({8, 2003}, 26), 1, false);
      check(ints({1000, 64}, 27), 0, true);
    }
  }
  SECTION("random") {
    const auto u = random::uniform<float>({1027}, 42).to_host();
    for (std::size_t i = 0; i < u.size(); ++i) REQUIRE(u[i] == codegen::uniform_f32(i, 42));
  }
  SECTION("row kernels: rows in loops, in registers, several per group, along an outer axis") {
    // x - max(x, axis, true) is exact, so the results compare exactly; the
    // shapes give every group layout (render_row.cpp) on 16 or 256 work-items.
    auto shifted = [](const HostArray<float>& a, int axis) {
      const auto mx = h_reduce<float>(a, {axis}, false, true, [](const std::vector<float>& v) {
        float m = v[0];
        for (float f : v) m = std::max(m, f);
        return m;
      });
      return h_map2<float>(a, h_broadcast_to(mx, a.shape), [](float p, float q) { return p - q; });
    };
    for (const auto& [dims, axis] : {std::pair{Dims{6, 2000}, 1}, std::pair{Dims{30, 17}, 1}, std::pair{Dims{9, 3}, 1},
                                     std::pair{Dims{70, 5}, 0}}) {
      const auto a = ints(dims, 14);
      const auto x = to_device(a);
      const auto r = x - max(x, axis, true);
      REQUIRE(kernel_source(r).find("fusecl_row_") != std::string::npos);
      require_matches(r, shifted(a, axis));
    }
    // The whole array, past a row kernel's limit on Oclgrind (32 KiB of
    // local memory): partial results, then every group combines them.
    const auto w = ints({20000}, 16);
    const auto xw = to_device(w);
    REQUIRE(kernel_source(xw - max(xw)).find("get_num_groups") != std::string::npos);
    require_matches(xw - max(xw), shifted(w, 0));
    const auto a = ints({6, 300}, 15);
    const auto x = to_device(a);
    const auto e = exp(x - max(x, 1, true));
    const auto sm = (e / sum(e, 1, true)).to_host();
    for (std::int64_t i = 0; i < 6; ++i) {
      double mx = -INFINITY, s = 0;
      for (std::int64_t j = 0; j < 300; ++j) mx = std::max(mx, double(a.data[std::size_t(i * 300 + j)]));
      for (std::int64_t j = 0; j < 300; ++j) s += std::exp(double(a.data[std::size_t(i * 300 + j)]) - mx);
      for (std::int64_t j = 0; j < 300; ++j)
        REQUIRE(std::fabs(sm[std::size_t(i * 300 + j)] - std::exp(double(a.data[std::size_t(i * 300 + j)]) - mx) / s) <= 1e-6);
    }
  }
  SECTION("concatenate") {
    const auto a = ints({5, 7}, 12), b = ints({5, 3}, 13);
    require_matches(concatenate({to_device(a), to_device(b)}, 1), h_concatenate<float>({a, b}, 1));
  }
}
