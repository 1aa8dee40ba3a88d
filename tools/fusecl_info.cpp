// fusecl-info: lists the OpenCL devices fusecl can see and which one it would
// use, and that device's launch settings (tuning) and where they come from.
// It only discovers and chooses; it creates no context (unless --tune asks
// for measuring), so a driver that fails to set up a device cannot hide the
// others from the listing.
#include "fusecl/error.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/device_discovery.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/tuning.hpp"

#include <fusecl/device.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "Usage: fusecl-info [--tune] [--help]\n"
    "\n"
    "Lists every OpenCL device on this machine with what fusecl knows about it,\n"
    "marks with '*' the one fusecl would use, and prints that device's launch\n"
    "settings (tuning) and where each comes from: stored by an earlier run,\n"
    "the defaults (not measured yet), or an environment variable.\n"
    "\n"
    "  --tune   open that device and measure every kernel class not measured yet\n"
    "           (as fusecl does when a class first runs), then print the settings.\n"
    "\n"
    "Environment:\n"
    "  FUSECL_DEVICE          which device fusecl uses: cpu, gpu or accelerator (the\n"
    "                         first device of that type), P:D (device D of platform P,\n"
    "                         as listed here), or part of a platform or device name\n"
    "                         (case-insensitive). Unset: the first GPU, else the first CPU.\n"
    "  FUSECL_POOL_MAX_BYTES  most bytes of unused device buffers fusecl keeps for\n"
    "                         reuse (never more than a quarter of the device's memory).\n"
    "  FUSECL_TUNE            1 (default): measure each kernel class's launch settings\n"
    "                         once per device and store them beside the kernel cache;\n"
    "                         0: the defaults; again: measure anew and replace them.\n"
    "  FUSECL_CACHE, FUSECL_CACHE_DIR  the kernel cache folder, where tuning is stored.\n";

using fusecl::DeviceInfo;
using fusecl::VectorWidths;
using fusecl::rt::exact_bytes;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

void field(const char* label, const std::string& value) { std::printf("      %-24s%s\n", label, value.c_str()); }

void widths_row(const char* label, const VectorWidths& w) {
  std::printf("        %-22s%6u%6u%6u%6u%6u%7u\n", label, w.char_, w.short_, w.int_, w.long_, w.float_, w.double_);
}

void print_device(const DeviceInfo& d, bool chosen) {
  std::printf("%s %s  [%s] %s / %s\n", chosen ? "*" : " ", d.id().c_str(), d.type.c_str(), d.platform_name.c_str(),
              d.name.c_str());
  field("platform version", d.platform_version);
  field("vendor", d.vendor);
  field("device version", d.version);
  field("driver version", d.driver_version);
  field("OpenCL C version", d.opencl_c_version);
  field("compute units", std::to_string(d.compute_units));
  field("global memory", exact_bytes(d.global_mem_bytes));
  field("max allocation", exact_bytes(d.max_alloc_bytes));
  field("local memory", exact_bytes(d.local_mem_bytes));
  field("max work-group size", std::to_string(d.max_work_group_size));
  field("max parameter size", exact_bytes(d.max_parameter_size));
  field("fp64", yes_no(d.fp64));
  field("correctly rounded sqrt", std::string(yes_no(d.correctly_rounded_sqrt)) + " (float divide and sqrt)");
  field("fma", std::string(yes_no(d.fma)) + " (float fma in hardware)");
  field("denormals", std::string(yes_no(d.denormals)) + " (float)");
  field("host unified memory", std::string(yes_no(d.host_unified_memory)) +
                                   (d.host_unified_memory ? " (transfers copy directly)" : " (transfers go through pinned staging)"));
  // NVIDIA's (cl_nv_device_attribute_query): whether row kernels' partials meet through warp shuffles.
  if (d.warp_size > 0)
    field("warp", std::to_string(d.warp_size) + " lanes, compute capability " + std::to_string(d.nv_compute_capability / 10) + "." +
                      std::to_string(d.nv_compute_capability % 10));
  std::printf("      %-24s%6s%6s%6s%6s%6s%7s\n", "vector widths", "char", "short", "int", "long", "float", "double");
  widths_row("preferred", d.preferred);
  widths_row("native", d.native);
  std::printf("\n");
}

void print_tuning(const DeviceInfo& d, const fusecl::detail::TuningState& st, const fusecl::detail::DeviceTuning& t) {
  const char* mode = st.auto_off                                   ? "unset: not measured on CPU devices"
                     : st.mode == fusecl::detail::TuneMode::Off     ? "0, off"
                     : st.mode == fusecl::detail::TuneMode::Again ? "again"
                                                                  : "1";
  std::printf("Tuning of %s (FUSECL_TUNE=%s):\n", d.id().c_str(), mode);
  for (const auto& r : fusecl::detail::tuning_report(d, st, t))
    std::printf("  %-26s%6d  %s\n", r.name.c_str(), r.value, r.source.c_str());
}

// The chosen device's tuning without opening it: what its first use would
// start from. With --tune, the device is opened and every class measured.
int report_tuning(const DeviceInfo& d, bool tune) {
  using namespace fusecl::detail;
  try {
    if (!tune) {
      DeviceTuning t = default_tuning(d);
      TuningState st;
      start_tuning(d, st, t);
      print_tuning(d, st, t);
      return 0;
    }
    // The default device is the one listed as chosen: both follow FUSECL_DEVICE.
    const fusecl::Device dev = fusecl::default_device();
    DeviceState& state = *dev.state();
    const GraphLock lock(state);
    settle_all(state);
    print_tuning(dev.info(), state.tune, *state.tuning);
    return 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "fusecl-info: tuning: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool tune = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tune") == 0) {
      tune = true;
      continue;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "fusecl-info: unknown argument '%s'\n\n%s", argv[i], kUsage);
    return 2;
  }

  std::vector<std::string> skipped;
  std::vector<DeviceInfo> devices;
  try {
    devices = fusecl::rt::infos_of(fusecl::rt::discover_devices(&skipped));
  } catch (const fusecl::Error& e) {
    std::fprintf(stderr, "fusecl-info: %s\n", e.what());
    return 1;
  }

  const char* spec = std::getenv("FUSECL_DEVICE");
  std::optional<fusecl::rt::DeviceChoice> choice;
  std::string choice_error;
  try {
    choice = fusecl::rt::choose_device(devices, spec ? spec : "");
  } catch (const fusecl::Error& e) {
    // Still list the devices: they are what the user needs to fix the spec.
    choice_error = e.what();
  }

  if (spec)
    std::printf("OpenCL devices (FUSECL_DEVICE=%s):\n\n", spec);
  else
    std::printf("OpenCL devices (FUSECL_DEVICE is not set):\n\n");
  for (std::size_t i = 0; i < devices.size(); ++i) print_device(devices[i], choice && choice->index == i);

  if (!skipped.empty()) {
    std::printf("Platforms without a usable device:\n");
    for (const std::string& s : skipped) std::printf("  %s\n", s.c_str());
    std::printf("\n");
  }

  if (!choice) {
    std::fflush(stdout);
    std::fprintf(stderr, "fusecl-info: %s\n", choice_error.c_str());
    return 1;
  }
  std::printf("fusecl uses %s: %s\n\n", devices[choice->index].id().c_str(), choice->reason.c_str());
  std::fflush(stdout);
  return report_tuning(devices[choice->index], tune);
}
