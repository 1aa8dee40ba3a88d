// Runs the fusecl-info executable as a user would.
#include <catch2/catch.hpp>

#include "support/cache_test_support.hpp"

#include <fusecl/device.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

using Catch::Matchers::Contains;

namespace {

struct Run {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// `env` is what goes between `env` and the tool: options such as -u VAR
// first, then VAR=value words.
Run run_info(const std::string& env, const std::string& args = "") {
  const std::string cmd = "env " + env + " '" + fusecl::test::tools_dir() + "/fusecl-info' " + args + " 2>&1";
  Run r;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> chunk;
  while (std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) r.output.append(chunk.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The first device of a type, as choose_device() would pick it (any machine:
// PoCL alone, or a GPU listed before it).
const fusecl::DeviceInfo* first_of_type(const std::string& type) {
  static const auto all = fusecl::devices();
  for (const auto& d : all)
    if (d.type == type) return &d;
  return nullptr;
}

const fusecl::DeviceInfo& default_choice() {
  if (const auto* gpu = first_of_type("GPU")) return *gpu;
  if (const auto* cpu = first_of_type("CPU")) return *cpu;
  static const auto all = fusecl::devices();
  return all.front();
}

}  // namespace

TEST_CASE("fusecl-info lists the devices and marks the chosen one", "[tools][opencl]") {
  const Run r = run_info("-u FUSECL_DEVICE");
  INFO(r.output);
  CHECK(r.status == 0);
  const auto& chosen = default_choice();
  CHECK_THAT(r.output, Contains("* " + chosen.id() + "  [" + chosen.type + "] " + chosen.platform_name + " / " + chosen.name));
  CHECK_THAT(r.output, Contains("global memory"));
  CHECK_THAT(r.output, Contains("GiB ("));
  CHECK_THAT(r.output, Contains("max parameter size"));
  CHECK_THAT(r.output, Contains("fp64                    yes"));
  CHECK_THAT(r.output, Contains("preferred"));
  CHECK_THAT(r.output, Contains("native"));
  CHECK_THAT(r.output, Contains("fusecl uses " + chosen.id() + ": default: "));
}

TEST_CASE("fusecl-info follows FUSECL_DEVICE and reports a bad one", "[tools][opencl]") {
  const auto* first_cpu = first_of_type("CPU");
  REQUIRE(first_cpu != nullptr);  // PoCL, at least
  const Run cpu = run_info("FUSECL_DEVICE=CPU");
  CHECK(cpu.status == 0);
  CHECK_THAT(cpu.output, Contains("fusecl uses " + first_cpu->id() + ": FUSECL_DEVICE=CPU: first CPU"));

  const Run bad = run_info("FUSECL_DEVICE=no-such-device");
  INFO(bad.output);
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("  " + first_cpu->id() + "  [CPU]"));  // still listed, without the mark
  CHECK_THAT(bad.output, !Contains("* "));
  CHECK_THAT(bad.output, Contains("FUSECL_DEVICE=no-such-device: no device matches"));
}

TEST_CASE("fusecl-info --help and bad arguments", "[tools]") {
  const Run help = run_info("", "--help");
  CHECK(help.status == 0);
  CHECK_THAT(help.output, Contains("Usage: fusecl-info"));
  CHECK_THAT(help.output, Contains("FUSECL_DEVICE"));

  const Run bad = run_info("", "--frobnicate");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Contains("unknown argument '--frobnicate'"));
}

TEST_CASE("fusecl-info explains how to install a driver when there is no platform", "[tools]") {
  // Both common ICD loaders (ocl-icd and Khronos') read their vendor list from
  // OCL_ICD_VENDORS when it is set; an empty folder means no driver at all.
  const Run r = run_info("-u OCL_ICD_FILENAMES OCL_ICD_VENDORS=/nonexistent-fusecl-test");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("No OpenCL platform was found"));
  CHECK_THAT(r.output, Contains("sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1"));
  CHECK_THAT(r.output, Contains("/etc/OpenCL/vendors"));
}
