#include "fusecl/device.hpp"
#include "fusecl/error.hpp"
#include "runtime/device_discovery.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

using fusecl::DeviceInfo;
using fusecl::rt::choose_device;
using Catch::Matchers::Contains;

namespace {

DeviceInfo fake(int platform, int device, std::string type, std::string platform_name, std::string name) {
  DeviceInfo d;
  d.platform_index = platform;
  d.device_index = device;
  d.type = std::move(type);
  d.platform_name = std::move(platform_name);
  d.name = std::move(name);
  return d;
}

// Two platforms; the GPU is not first, so "first device" and "first GPU" differ.
std::vector<DeviceInfo> machine() {
  return {fake(0, 0, "CPU", "Portable Computing Language", "pthread-haswell-Intel Core i7"),
          fake(1, 0, "accelerator", "Intel(R) FPGA Emulation Platform", "Intel FPGA Emulation Device"),
          fake(2, 0, "GPU", "NVIDIA CUDA", "NVIDIA GeForce RTX 3080"),
          fake(2, 1, "GPU", "NVIDIA CUDA", "NVIDIA GeForce GTX 1050")};
}

std::string choice_error(const std::vector<DeviceInfo>& devices, const std::string& spec) {
  try {
    choose_device(devices, spec);
  } catch (const fusecl::Error& e) {
    return e.what();
  }
  FAIL("choose_device(" << spec << ") did not throw");
  return {};
}

}  // namespace

TEST_CASE("choose_device without a spec prefers a GPU, then a CPU, then anything", "[device]") {
  const auto c = choose_device(machine(), "");
  CHECK(c.index == 2);
  CHECK(c.reason == "default: first GPU (no FUSECL_DEVICE set)");

  const std::vector<DeviceInfo> no_gpu = {fake(0, 0, "accelerator", "FPGA", "fpga"), fake(1, 0, "CPU", "PoCL", "cpu")};
  const auto cpu = choose_device(no_gpu, "");
  CHECK(cpu.index == 1);
  CHECK_THAT(cpu.reason, Contains("first CPU"));

  const std::vector<DeviceInfo> only_other = {fake(0, 0, "other", "Custom", "c0"), fake(0, 1, "other", "Custom", "c1")};
  const auto other = choose_device(only_other, "   ");  // blank counts as unset
  CHECK(other.index == 0);
  CHECK_THAT(other.reason, Contains("first device"));

  CHECK_THROWS_AS(choose_device({}, ""), fusecl::Error);
}

TEST_CASE("choose_device by type is case-insensitive", "[device]") {
  CHECK(choose_device(machine(), "gpu").index == 2);
  CHECK(choose_device(machine(), "GPU").index == 2);
  CHECK(choose_device(machine(), "cpu").index == 0);
  CHECK(choose_device(machine(), "Accelerator").index == 1);
  CHECK(choose_device(machine(), "gpu").reason == "FUSECL_DEVICE=gpu: first GPU");

  const std::vector<DeviceInfo> cpu_only = {fake(0, 0, "CPU", "PoCL", "cpu")};
  const std::string msg = choice_error(cpu_only, "gpu");
  CHECK_THAT(msg, Contains("no GPU device"));
  CHECK_THAT(msg, Contains("  0:0  [CPU] PoCL / cpu"));
}

TEST_CASE("choose_device by P:D", "[device]") {
  const auto c = choose_device(machine(), "2:1");
  CHECK(c.index == 3);
  CHECK(c.reason == "FUSECL_DEVICE=2:1: platform 2, device 1");
  CHECK(choose_device(machine(), "0:0").index == 0);

  for (const char* spec : {"2:2", "3:0", "9:9"}) {
    const std::string msg = choice_error(machine(), spec);
    CHECK_THAT(msg, Contains(std::string("no device ") + spec));
    CHECK_THAT(msg, Contains("  2:1  [GPU] NVIDIA CUDA / NVIDIA GeForce GTX 1050"));
  }
}

TEST_CASE("choose_device by a case-insensitive part of the platform or device name", "[device]") {
  const auto by_platform = choose_device(machine(), "cuda");
  CHECK(by_platform.index == 2);
  CHECK_THAT(by_platform.reason, Contains("platform name \"NVIDIA CUDA\""));

  const auto by_device = choose_device(machine(), "gtx 1050");
  CHECK(by_device.index == 3);
  CHECK_THAT(by_device.reason, Contains("device name \"NVIDIA GeForce GTX 1050\""));

  CHECK(choose_device(machine(), "PORTABLE").index == 0);
  CHECK(choose_device(machine(), "i7").index == 0);
  CHECK(choose_device(machine(), "fpga").index == 1);
}

TEST_CASE("choose_device with an unknown spec lists every device and the accepted spellings", "[device]") {
  const std::string msg = choice_error(machine(), "radeon");
  CHECK_THAT(msg, Contains("FUSECL_DEVICE=radeon"));
  CHECK_THAT(msg, Contains("  0:0  [CPU] Portable Computing Language / pthread-haswell-Intel Core i7"));
  CHECK_THAT(msg, Contains("  1:0  [accelerator] Intel(R) FPGA Emulation Platform / Intel FPGA Emulation Device"));
  CHECK_THAT(msg, Contains("  2:0  [GPU] NVIDIA CUDA / NVIDIA GeForce RTX 3080"));
  CHECK_THAT(msg, Contains("  2:1  [GPU] NVIDIA CUDA / NVIDIA GeForce GTX 1050"));
  CHECK_THAT(msg, Contains("cpu, gpu or accelerator"));
  CHECK_THAT(msg, Contains("P:D"));

  // Not a valid P:D, so it is taken as a name, which matches nothing.
  CHECK_THAT(choice_error(machine(), "1:x"), Contains("no device matches"));
  CHECK_THAT(choice_error(machine(), "-1:0"), Contains("no device matches"));
}

TEST_CASE("discovery finds the PoCL CPU device", "[device][opencl]") {
  const std::vector<DeviceInfo> all = fusecl::devices();
  REQUIRE(!all.empty());
  const auto pocl = std::find_if(all.begin(), all.end(), [](const DeviceInfo& d) {
    return d.platform_name == "Portable Computing Language" && d.type == "CPU";
  });
  REQUIRE(pocl != all.end());
  CHECK(pocl->fp64);  // PoCL's CPU device supports cl_khr_fp64
  CHECK(pocl->preferred.double_ > 0);
}

TEST_CASE("discovery fills sane values for every device", "[device][opencl]") {
  const std::vector<DeviceInfo> all = fusecl::devices();
  REQUIRE(!all.empty());
  for (const DeviceInfo& d : all) {
    INFO(d.id() << " " << d.platform_name << " / " << d.name);
    CHECK(!d.name.empty());
    CHECK(d.name.front() != ' ');
    CHECK(d.name.back() != '\0');
    CHECK(!d.vendor.empty());
    CHECK(d.version.rfind("OpenCL ", 0) == 0);
    CHECK(d.opencl_c_version.rfind("OpenCL C ", 0) == 0);
    CHECK(d.platform_version.rfind("OpenCL ", 0) == 0);
    CHECK(!d.driver_version.empty());
    CHECK((d.type == "GPU" || d.type == "CPU" || d.type == "accelerator" || d.type == "other"));
    CHECK(d.compute_units >= 1);
    CHECK(d.global_mem_bytes > 0);
    CHECK(d.max_alloc_bytes > 0);
    CHECK(d.max_alloc_bytes <= d.global_mem_bytes);
    CHECK(d.local_mem_bytes > 0);
    CHECK(d.max_work_group_size >= 1);
    CHECK(d.max_parameter_size >= 256);  // the spec's minimum for full-profile devices
    CHECK(d.preferred.float_ >= 1);
    CHECK(d.native.int_ >= 1);
    CHECK(d.id() == std::to_string(d.platform_index) + ":" + std::to_string(d.device_index));
  }
  // Ids are unique and the list is in platform, then device, order.
  for (std::size_t i = 1; i < all.size(); ++i)
    CHECK(std::pair(all[i - 1].platform_index, all[i - 1].device_index) <
          std::pair(all[i].platform_index, all[i].device_index));
}

TEST_CASE("the runtime's device is the one choose_device picks", "[device][opencl]") {
  const char* spec = std::getenv("FUSECL_DEVICE");
  const std::vector<DeviceInfo> all = fusecl::devices();
  const auto expected = choose_device(all, spec ? spec : "");
  CHECK(fusecl::device().id() == all[expected.index].id());
  CHECK(fusecl::device_choice_reason() == expected.reason);
}

namespace {

DeviceInfo real_looking(int platform, std::string type, std::string platform_name, std::string platform_vendor,
                        std::string platform_version, std::string name, std::string vendor) {
  DeviceInfo d = fake(platform, 0, std::move(type), std::move(platform_name), std::move(name));
  d.platform_vendor = std::move(platform_vendor);
  d.platform_version = std::move(platform_version);
  d.vendor = std::move(vendor);
  return d;
}

// The strings real drivers report (PoCL 3.1 on Debian 12, NVIDIA 580, ROCm,
// Intel's compute runtime, Apple).
std::vector<DeviceInfo> real_machine() {
  return {real_looking(0, "CPU", "Portable Computing Language", "The pocl project",
                       "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR, LLVM 15.0.6",
                       "pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "GenuineIntel"),
          real_looking(1, "GPU", "NVIDIA CUDA", "NVIDIA Corporation", "OpenCL 3.0 CUDA 13.0.94", "NVIDIA H200",
                       "NVIDIA Corporation"),
          real_looking(2, "GPU", "AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.",
                       "OpenCL 2.1 AMD-APP (3614.0)", "gfx1030", "Advanced Micro Devices, Inc."),
          real_looking(3, "GPU", "Intel(R) OpenCL Graphics", "Intel(R) Corporation", "OpenCL 3.0 ",
                       "Intel(R) UHD Graphics 620", "Intel(R) Corporation"),
          real_looking(4, "GPU", "Apple", "Apple", "OpenCL 1.2 (Feb 10 2024 00:41:11)", "Apple M2", "Apple")};
}

}  // namespace

TEST_CASE("choose_device matches the short names people type against names, vendors and versions", "[device]") {
  const auto devices = real_machine();
  const auto pocl = choose_device(devices, "pocl");
  CHECK(pocl.index == 0);
  CHECK_THAT(pocl.reason, Contains("Portable Computing Language"));
  CHECK(choose_device(devices, "PoCL").index == 0);
  CHECK(choose_device(devices, "nvidia").index == 1);
  CHECK(choose_device(devices, "amd").index == 2);
  CHECK(choose_device(devices, "radeon").index == 2);  // AMD's own driver names the chip, not the brand
  // Intel's GPU platform wins over the CPU whose vendor is "GenuineIntel".
  CHECK(choose_device(devices, "intel").index == 3);
  CHECK(choose_device(devices, "apple").index == 4);
  CHECK(choose_device(devices, "h200").index == 1);

  // Only PoCL on an Intel CPU: "intel" still finds a device, by its vendor.
  const std::vector<DeviceInfo> cpu_only = {devices[0]};
  const auto intel_cpu = choose_device(cpu_only, "intel");
  CHECK(intel_cpu.index == 0);
  CHECK_THAT(intel_cpu.reason, Contains("Intel"));
  CHECK_THAT(choice_error(cpu_only, "nvidia"), Contains("no device matches") && Contains("pocl, nvidia, amd"));
}

TEST_CASE("every FUSECL_DEVICE example of the README picks a device here", "[device][opencl]") {
  // The README's examples that must match on any machine with PoCL.
  const std::vector<DeviceInfo> all = fusecl::devices();
  CHECK(choose_device(all, "0:0").index == 0);
  const bool have_pocl = std::any_of(all.begin(), all.end(), [](const DeviceInfo& d) {
    return d.platform_name == "Portable Computing Language";
  });
  if (!have_pocl) {
    WARN("no PoCL platform on this machine: FUSECL_DEVICE=pocl and =cpu not checked");
    return;
  }
  CHECK(all[choose_device(all, "cpu").index].type == "CPU");
  const auto pocl = choose_device(all, "pocl");
  CHECK(all[pocl.index].platform_name == "Portable Computing Language");
  CHECK_THAT(pocl.reason, Contains("FUSECL_DEVICE=pocl"));
}
