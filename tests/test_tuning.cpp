// Per-device tuning (src/tuning.hpp): the tuning file's format and the ways
// it can be damaged, in this process; measuring once, reloading in the next
// process, FUSECL_TUNE and explicit knobs, in child processes (this binary's
// hidden cases, or fusecl-info) with a private cache folder each, since the
// suite itself runs with FUSECL_TUNE=0; and results that do not depend on
// the launch settings.
#include <catch2/catch.hpp>

#include "runtime/disk_cache.hpp"
#include "runtime/tuning_file.hpp"
#include "src/device_state.hpp"
#include "src/schedule.hpp"
#include "src/tuning.hpp"
#include "support/cache_test_support.hpp"

#include <fusecl/fusecl.hpp>

#include <sys/stat.h>
#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using fusecl::rt::Knob;
using fusecl::test::TempDir;
namespace fs = std::filesystem;

namespace {

fusecl::DeviceInfo fake_gpu() {
  fusecl::DeviceInfo d;
  d.name = "Test GPU";
  d.vendor = "Test Vendor";
  d.driver_version = "1.0";
  d.version = "OpenCL 3.0 test";
  d.type = "GPU";
  d.compute_units = 8;
  d.max_work_group_size = 1024;
  return d;
}

// `text` (without its checksum line) sealed with a correct checksum, as a
// hand edit that also fixed the checksum would leave it.
std::string sealed(const std::string& body) {
  char sum[17];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(XXH3_64bits(body.data(), body.size())));
  return body + "checksum " + sum + "\n";
}

std::string without_checksum(const std::string& text) { return text.substr(0, text.rfind("checksum ")); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::vector<std::string> warnings_in(const std::string& err) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(err))
    if (line.rfind("fusecl: warning:", 0) == 0) out.push_back(line);
  return out;
}

std::string read_text(const fs::path& p) {
  const auto bytes = fusecl::test::read_bytes(p);
  return std::string(bytes.begin(), bytes.end());
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  fusecl::test::write_bytes(p, std::vector<unsigned char>(text.begin(), text.end()));
}

std::string env_for(const TempDir& dir, const std::string& more) {
  return "FUSECL_CACHE_DIR=" + fusecl::test::shell_quote(dir.path().string()) + " " + more;
}

// Every value of every knob's tuned setting a file can hold, the defaults of `info`.
fusecl::rt::TunedValues full_values(const fusecl::DeviceInfo& info) { return fusecl::rt::default_values(info); }

}  // namespace

// ---- the file, in this process ---------------------------------------------------------

TEST_CASE("tuning files round-trip, and their key changes with the driver", "[tuning]") {
  const auto info = fake_gpu();
  auto values = full_values(info);
  values[Knob::VectorBytes] = 32;
  values[Knob::RowElements] = 8;
  const std::string text = fusecl::rt::format_tuning(info, values);
  CHECK_THAT(text, Contains("fusecl-tuning " + std::to_string(fusecl::rt::tuning_format_version) + "\ndevice Test GPU\nvendor Test Vendor\ndriver 1.0\nopencl OpenCL 3.0 test\n"));
  CHECK_THAT(text, Contains("elementwise.vector_bytes 32\n"));
  const auto r = fusecl::rt::parse_tuning(text, info);
  REQUIRE(r);
  CHECK(r.values.v == values.v);

  // Only the classes measured so far are in a file.
  fusecl::rt::TunedValues partial;
  partial[Knob::VectorBytes] = 16;
  partial[Knob::ElementwiseLocal] = 128;
  const auto p = fusecl::rt::parse_tuning(fusecl::rt::format_tuning(info, partial), info);
  REQUIRE(p);
  CHECK(p.values.v == partial.v);

  // A driver update: another key, so another file, and this one's lines no longer match.
  auto updated = info;
  updated.driver_version = "1.1";
  CHECK(fusecl::rt::tuning_key(updated) != fusecl::rt::tuning_key(info));
  CHECK(fusecl::rt::tuning_path("/c", updated) != fusecl::rt::tuning_path("/c", info));
  CHECK(fusecl::rt::tuning_path("/c", info).parent_path() == fs::path("/c/tuning"));
  auto other_version = info;
  other_version.version = "OpenCL 2.0 test";
  CHECK(fusecl::rt::tuning_key(other_version) != fusecl::rt::tuning_key(info));
  const auto moved = fusecl::rt::parse_tuning(text, updated);
  CHECK_FALSE(moved);
  CHECK_THAT(moved.error, Contains("describes another device"));
}

TEST_CASE("damaged tuning files are rejected, each with its reason", "[tuning]") {
  const auto info = fake_gpu();
  const std::string good = fusecl::rt::format_tuning(info, full_values(info));
  const std::string body = without_checksum(good);
  std::string flipped = good;
  flipped[flipped.find("elementwise.vector_bytes 16") + 26] = '8';  // 16 -> 18, the checksum left as it was
  std::string odd = body;
  odd.replace(odd.find("vector_bytes 16"), 15, "vector_bytes 24");
  std::string big = body;
  big.replace(big.find("reduce.local_size 256"), 21, "reduce.local_size 2048");
  struct Case {
    const char* what;
    std::string text;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"empty", "", "is empty"},
      {"garbage", "\x7f" "ELF\x02\x01 not text at all", "is not a fusecl tuning file"},
      {"cut in half", good.substr(0, good.size() / 2), "is truncated"},
      {"missing its last newline", good.substr(0, good.size() - 1), "is truncated"},
      {"a changed value", flipped, "bad checksum"},
      {"lines after the checksum", good + "row.elements_per_item 8\n", "truncated or extended"},
      {"another format", sealed("fusecl-tuning " + std::to_string(fusecl::rt::tuning_format_version + 1) + "\n" + body.substr(body.find('\n') + 1)),
       "is not format version " + std::to_string(fusecl::rt::tuning_format_version)},
      {"vector bytes not a power of two", sealed(odd), "elementwise.vector_bytes 24 is out of range"},
      {"a group larger than the device's", sealed(big), "reduce.local_size 2048 is out of range (a power of two from 1 to 1024)"},
      {"an unknown setting", sealed(body + "reduce.magic 3\n"), "is not a known setting"},
      {"a repeated setting", sealed(body + "row.elements_per_item 8\n"), "repeats a setting"},
      {"no number", sealed(body + "row.elements_per_item eight\n"), "has no whole number"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = fusecl::rt::parse_tuning(c.text, info);
    CHECK_FALSE(r);
    CHECK_THAT(r.error, Contains(c.reason));
    CHECK(r.values.empty());
  }
}

TEST_CASE("tuning files are written 0600 in a 0700 folder, and not at all by a read-only cache", "[tuning]") {
  TempDir t;
  fusecl::test::Diagnostics diag;
  const auto info = fake_gpu();
  const fs::path path = fusecl::rt::tuning_path(t.path() / "cache", info);
  const std::string text = fusecl::rt::format_tuning(info, full_values(info));
  {
    fusecl::rt::DiskCache cache(fusecl::test::settings_for(t.path() / "cache", diag));
    REQUIRE(cache.store_text(path, text));
  }
  CHECK(read_text(path) == text);
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(path.parent_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK(fusecl::rt::read_tuning(path, info));
  CHECK(fusecl::rt::read_tuning(path.parent_path() / "absent.txt", info).missing);
  // Tuning files are not kernel entries: eviction and clear leave them be.
  {
    fusecl::rt::DiskCache cache(fusecl::test::settings_for(t.path() / "cache", diag));
    cache.prune(0);
    cache.clear();
  }
  CHECK(fs::exists(path));

  auto ro = fusecl::test::settings_for(t.path() / "ro", diag);
  ro.mode = fusecl::rt::CacheMode::ReadOnly;
  fusecl::rt::DiskCache cache(ro);
  CHECK_FALSE(cache.store_text(fusecl::rt::tuning_path(t.path() / "ro", info), text));
  CHECK_FALSE(fs::exists(t.path() / "ro"));
  CHECK(diag.warnings() == 0);
}

// ---- results do not depend on the launch settings ----------------------------------------

namespace {

// `make()`'s value computed with `t` as the device's tuning (and its
// elementwise work-group size, which launch() reads from the device).
std::vector<float> computed_with(const std::function<fusecl::Array<float>()>& make, fusecl::detail::DeviceTuning t) {
  const fusecl::Array<float> y = make();
  const auto node = y.node();
  const fusecl::detail::DevicePtr dev = node->device;
  {
    const fusecl::detail::GraphLock lock{node.get()};
    fusecl::detail::tuning_of(*dev);
    const int saved = dev->tuning->elementwise_local_size;
    dev->tuning->elementwise_local_size = t.elementwise_local_size;
    fusecl::detail::Schedule s = fusecl::detail::make_schedule({node}, t);
    fusecl::detail::run_schedule(*dev, s);
    dev->tuning->elementwise_local_size = saved;
  }
  return y.to_host();
}

std::vector<float> inputs(std::size_t n) {
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = std::sin(float(i) * 0.37f) * 3.0f;
  return h;
}

}  // namespace

TEST_CASE("results do not depend on the tuned launch settings", "[tuning][opencl]") {
  using fusecl::Array;
  const auto h = inputs(37 * 301);
  const Array<float> x = fusecl::from_host(h, {37, 301});
  const std::function<Array<float>()> ew = [&] { return x * 1.5f + 0.5f; };
  const std::function<Array<float>()> total = [&] { return fusecl::sum(x); };
  const std::function<Array<float>()> softmax = [&] {
    const auto e = fusecl::exp(x - fusecl::max(x, 1, true));
    return e / fusecl::sum(e, 1, true);
  };
  const auto dev = fusecl::default_device().state();
  fusecl::detail::DeviceTuning base;
  {
    const fusecl::detail::GraphLock lock(*dev);
    base = fusecl::detail::tuning_of(*dev);
  }
  const auto& info = fusecl::device();
  const auto ew0 = computed_with(ew, base), sum0 = computed_with(total, base), soft0 = computed_with(softmax, base);
  struct Trial {
    Knob knob;
    std::vector<int> values;
  };
  // Every candidate the tuner tries, on any device.
  const std::vector<Trial> trials = {{Knob::VectorBytes, {4, 8, 16, 32, 64}},
                                     {Knob::ElementwiseLocal, {64, 128, 256}},
                                     {Knob::ReduceLocal, {8, 16, 32, 64, 128, 256}},
                                     {Knob::GroupsPerUnit, {1, 2, 4, 8}},
                                     {Knob::RowElements, {2, 4, 8}}};
  for (const auto& trial : trials) {
    for (const int v : trial.values) {
      if (!fusecl::rt::knob_range_problem(trial.knob, v, info).empty()) continue;
      INFO(fusecl::rt::knob_spec(trial.knob).name << " " << v);
      auto t = base;
      fusecl::detail::set_knob(t, trial.knob, v, info);
      CHECK(computed_with(ew, t) == ew0);  // elementwise: bit for bit
      const auto s = computed_with(total, t);
      CHECK(s[0] == Approx(sum0[0]).epsilon(1e-5));  // reductions: only the order of additions differs
      const auto soft = computed_with(softmax, t);
      REQUIRE(soft.size() == soft0.size());
      float worst = 0;
      for (std::size_t i = 0; i < soft.size(); ++i) worst = std::max(worst, std::fabs(soft[i] - soft0[i]));
      CHECK(worst <= 1e-6f);
    }
  }
}

// ---- across processes ---------------------------------------------------------------------

namespace {

// What a child computes: an elementwise expression, a sum and a row softmax
// (one kernel class each), each evaluated twice; the values on stdout.
void child_workload(bool all_classes) {
  using fusecl::Array;
  const auto h = inputs(37 * 301);
  const Array<float> x = fusecl::from_host(h, {37, 301});
  for (int round = 0; round < 2; ++round) {
    std::ostringstream out;
    out.precision(9);
    out << "ew";
    for (const float v : (x * 1.5f + 0.5f).to_host()) out << ' ' << v;
    if (all_classes) {
      out << "\nsum " << fusecl::sum(x).to_host()[0] << "\nsoftmax";
      const auto e = fusecl::exp(x - fusecl::max(x, 1, true));
      for (const float v : (e / fusecl::sum(e, 1, true)).to_host()) out << ' ' << v;
    }
    // The tuner's own kernels are not counted: the program sees only its own.
    out << "\nkernels " << fusecl::stats().kernels_launched << " uploads " << fusecl::stats().uploads;
    if (round == 1) std::cout << "<<" << out.str() << ">>\n";
  }
}

std::string results_of(const fusecl::test::CommandResult& r) {
  const auto a = r.out.find("<<"), b = r.out.find(">>");
  return a == std::string::npos || b == std::string::npos ? std::string() : r.out.substr(a + 2, b - a - 2);
}

std::vector<double> numbers_after(const std::string& results, const std::string& label) {
  std::vector<double> out;
  for (const auto& line : lines_of(results)) {
    if (line.rfind(label + " ", 0) != 0) continue;
    std::istringstream in(line.substr(label.size()));
    for (double v; in >> v;) out.push_back(v);
  }
  return out;
}

fs::path device_tuning_path(const TempDir& dir) { return fusecl::rt::tuning_path(dir.path(), fusecl::device()); }

}  // namespace

TEST_CASE("tuning child: every class", "[.tuning_child]") { child_workload(true); }
TEST_CASE("tuning child: elementwise only", "[.tuning_child_ew]") { child_workload(false); }

TEST_CASE("tuning is measured once per class, stored, and reloaded by the next process", "[tuning][opencl]") {
  TempDir dir;
  const std::string env = env_for(dir, "FUSECL_TUNE=1 FUSECL_LOG=tune");
  const auto first = fusecl::test::run_this_test_binary(env, "[.tuning_child]");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  // Each class once, though the child evaluates each twice.
  CHECK(count_of(first.err, "measured the elementwise kernels") == 1);
  CHECK(count_of(first.err, "measured the reduce kernels") == 1);
  CHECK(count_of(first.err, "measured the row kernels") == 1);
  CHECK_THAT(first.err, Contains("elementwise.vector_bytes 16: "));  // each candidate with its time
  CHECK(warnings_in(first.err).empty());
  const fs::path path = device_tuning_path(dir);
  CHECK_THAT(first.err, Contains("stored in " + path.string()));
  const auto stored = fusecl::rt::read_tuning(path, fusecl::device());
  REQUIRE(stored);
  for (std::size_t k = 0; k < fusecl::rt::knob_count; ++k) CHECK(stored.values.v[k].has_value());
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const std::string text = read_text(path);

  const auto second = fusecl::test::run_this_test_binary(env, "[.tuning_child]");
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second.err.find("fusecl: tune:") == std::string::npos);  // loaded: nothing measured, nothing stored
  CHECK(read_text(path) == text);
  CHECK(results_of(second) == results_of(first));
  CHECK_FALSE(results_of(first).empty());

  const auto info = fusecl::test::run_command("env " + env_for(dir, "FUSECL_TUNE=1 '" + fusecl::test::tools_dir() + "/fusecl-info'"));
  INFO(info.out);
  CHECK(info.exit_code == 0);
  CHECK_THAT(info.out, Contains("Tuning of " + fusecl::device().id() + " (FUSECL_TUNE=1):"));
  CHECK(count_of(info.out, "loaded from " + path.string()) == fusecl::rt::knob_count);
}

TEST_CASE("a damaged tuning file is ignored with one warning, measured again and replaced", "[tuning][opencl]") {
  TempDir dir;
  const fs::path path = device_tuning_path(dir);
  const auto& info = fusecl::device();
  const std::string good = fusecl::rt::format_tuning(info, full_values(info));
  std::string flipped = good;
  flipped[flipped.find("elementwise.local_size") + 23] ^= 1;
  std::string odd = without_checksum(good);
  const auto at = odd.find("row.elements_per_item ");
  odd.replace(at, odd.find('\n', at) - at, "row.elements_per_item 3");
  const std::vector<std::pair<std::string, std::string>> damage = {
      {"this is not a tuning file\n", "is not a fusecl tuning file"},
      {good.substr(0, good.size() / 2), "is truncated"},
      {flipped, "bad checksum"},
      {sealed(odd), "row.elements_per_item 3 is out of range"},
  };
  for (const auto& [text, reason] : damage) {
    write_text(path, text);
    const auto r = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=1 FUSECL_LOG=tune"), "[.tuning_child_ew]");
    INFO(reason << "\n" << r.err);
    REQUIRE(r.exit_code == 0);
    const auto warnings = warnings_in(r.err);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("tuning file " + path.string() + " "));
    CHECK_THAT(warnings[0], Contains(reason));
    CHECK_THAT(warnings[0], Contains("measured again and the file replaced"));
    CHECK(count_of(r.err, "measured the elementwise kernels") == 1);
    const auto now = fusecl::rt::read_tuning(path, info);
    CHECK(now);
    CHECK(now.values[Knob::VectorBytes].has_value());
  }

  // A read-only cache reads, warns, measures, and leaves the file as it was.
  write_text(path, "garbage\n");
  const auto ro = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=1 FUSECL_LOG=tune FUSECL_CACHE=read-only"),
                                                     "[.tuning_child_ew]");
  INFO(ro.err);
  REQUIRE(ro.exit_code == 0);
  REQUIRE(warnings_in(ro.err).size() == 1);
  CHECK_THAT(ro.err, Contains("the cache is read-only: not stored"));
  CHECK_THAT(ro.err, Contains("kept in memory for this process (the disk cache is read-only)"));
  CHECK(read_text(path) == "garbage\n");
}

TEST_CASE("FUSECL_TUNE=0 measures and writes nothing and gives the same results, and a bad value warns", "[tuning][opencl]") {
  TempDir dir;
  const auto off = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=0 FUSECL_LOG=tune"), "[.tuning_child]");
  INFO(off.err);
  REQUIRE(off.exit_code == 0);
  CHECK(off.err.find("fusecl: tune:") == std::string::npos);
  CHECK(warnings_in(off.err).empty());
  CHECK_FALSE(fs::exists(dir.path() / "tuning"));
  const auto info = fusecl::test::run_command("env " + env_for(dir, "FUSECL_TUNE=0 '" + fusecl::test::tools_dir() + "/fusecl-info'"));
  CHECK(count_of(info.out, "default (FUSECL_TUNE=0)") == fusecl::rt::knob_count);

  const auto on = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=yes FUSECL_LOG=tune"), "[.tuning_child]");
  INFO(on.err);
  REQUIRE(on.exit_code == 0);
  CHECK(count_of(on.err, "measured the ") == 3);
  // Elementwise results are the same bits whatever the launch; reductions differ in rounding at most.
  const std::string a = results_of(off), b = results_of(on);
  CHECK(numbers_after(a, "ew") == numbers_after(b, "ew"));
  CHECK(numbers_after(a, "sum").at(0) == Approx(numbers_after(b, "sum").at(0)).epsilon(1e-5));
  // The kernel count may differ: whether a reduction is split over groups
  // (two kernels where the device lacks C11 atomics) depends on the measured
  // local size. The uploads may not.
  const auto ka = numbers_after(a, "kernels"), kb = numbers_after(b, "kernels");
  REQUIRE(ka.size() == 1);
  REQUIRE(kb.size() == 1);
  CHECK(kb[0] >= 6);  // two rounds of three evaluations, a kernel or more each
  CHECK(ka[0] >= 6);
  REQUIRE(a.find(" uploads ") != std::string::npos);
  REQUIRE(b.find(" uploads ") != std::string::npos);
  CHECK(a.substr(a.find(" uploads ")) == b.substr(b.find(" uploads ")));
  const auto sa = numbers_after(a, "softmax"), sb = numbers_after(b, "softmax");
  REQUIRE(sa.size() == sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) CHECK(sa[i] == Approx(sb[i]).margin(1e-6));

  const auto bad = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=maybe"), "[.tuning_child_ew]");
  CHECK_THAT(bad.err, Contains("fusecl: warning: FUSECL_TUNE='maybe' is not one of 1, 0, again; using the default"));

  // Without a disk cache, measured for the process only.
  const auto nocache = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=1 FUSECL_LOG=tune FUSECL_CACHE=off"),
                                                          "[.tuning_child_ew]");
  CHECK_THAT(nocache.err, Contains("kept in memory for this process (the disk cache is off)"));
}

TEST_CASE("a driver update measures again, FUSECL_TUNE=again replaces, and explicit knobs win", "[tuning][opencl]") {
  TempDir dir;
  const auto& info = fusecl::device();
  auto old_driver = info;
  old_driver.driver_version += "-before-the-update";
  const fs::path old_path = fusecl::rt::tuning_path(dir.path(), old_driver);
  const std::string old_text = fusecl::rt::format_tuning(old_driver, full_values(old_driver));
  write_text(old_path, old_text);
  const auto r = fusecl::test::run_this_test_binary(env_for(dir, "FUSECL_TUNE=1 FUSECL_LOG=tune"), "[.tuning_child_ew]");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count_of(r.err, "measured the elementwise kernels") == 1);
  CHECK(fusecl::rt::read_tuning(device_tuning_path(dir), info));
  CHECK(read_text(old_path) == old_text);  // the old driver's file is another key's

  // Stored values that differ from the defaults, then environment knobs over them.
  auto values = full_values(info);
  values[Knob::VectorBytes] = 8;
  values[Knob::RowElements] = 2;
  write_text(device_tuning_path(dir), fusecl::rt::format_tuning(info, values));
  const std::string tool = "'" + fusecl::test::tools_dir() + "/fusecl-info'";
  const auto shown = fusecl::test::run_command("env " + env_for(dir, "FUSECL_TUNE=1 FUSECL_VECTOR_BYTES=32 " + tool));
  INFO(shown.out);
  CHECK_THAT(shown.out, Contains("elementwise.vector_bytes      32  FUSECL_VECTOR_BYTES"));
  CHECK_THAT(shown.out, Contains("row.elements_per_item          2  loaded from " + device_tuning_path(dir).string()));

  // again: measured anew (with the environment's vector size, which is not measured) and stored.
  const auto again = fusecl::test::run_command("env " + env_for(dir, "FUSECL_TUNE=again FUSECL_LOG=tune FUSECL_VECTOR_BYTES=32 " + tool + " --tune"));
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("elementwise.vector_bytes ") == std::string::npos);
  CHECK(count_of(again.err, "measured the ") == 3);
  CHECK_THAT(again.out, Contains("elementwise.vector_bytes      32  FUSECL_VECTOR_BYTES"));
  CHECK_THAT(again.out, Contains("row.elements_per_item "));
  CHECK(count_of(again.out, "measured now, stored in " + device_tuning_path(dir).string()) == fusecl::rt::knob_count - 1);
  const auto after = fusecl::rt::read_tuning(device_tuning_path(dir), info);
  REQUIRE(after);
  // Pinned, so not measured, and again ignored what was stored: absent, so a
  // later run without the variable measures the elementwise class again.
  CHECK_FALSE(after.values[Knob::VectorBytes].has_value());
}
