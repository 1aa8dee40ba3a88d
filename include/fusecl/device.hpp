// The OpenCL devices fusecl can run on, and the one it chose.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusecl {

/// Per-type vector widths as the device reports them
/// (CL_DEVICE_PREFERRED_VECTOR_WIDTH_* / CL_DEVICE_NATIVE_VECTOR_WIDTH_*).
struct VectorWidths {
  unsigned char_ = 1, short_ = 1, int_ = 1, long_ = 1, float_ = 1, double_ = 1;
};

/// What fusecl cares about in a device.
struct DeviceInfo {
  int platform_index = 0;  // position in clGetPlatformIDs
  int device_index = 0;    // position within its platform
  std::string platform_name, platform_version, platform_vendor;
  std::string name, vendor, version, driver_version, opencl_c_version;
  std::string type;  // "GPU", "CPU", "accelerator" or "other"
  unsigned compute_units = 0;
  std::uint64_t global_mem_bytes = 0, max_alloc_bytes = 0, local_mem_bytes = 0;
  std::size_t max_work_group_size = 0, max_parameter_size = 0;
  bool fp64 = false;                    // cl_khr_fp64 (or double in CL_DEVICE_DOUBLE_FP_CONFIG)
  bool correctly_rounded_sqrt = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for float
  bool denormals = false;               // CL_FP_DENORM for float
  VectorWidths preferred, native;

  /// "P:D" — the spelling FUSECL_DEVICE accepts for this device.
  std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

/// Every OpenCL device on this machine, in platform then device order.
/// Throws fusecl::Error (with install instructions) if there is no platform.
std::vector<DeviceInfo> devices();

/// The device fusecl evaluates on (chosen once, on first use, from FUSECL_DEVICE).
const DeviceInfo& device();

/// Why that device was chosen ("FUSECL_DEVICE=gpu matched ...", "first GPU", ...).
const std::string& device_choice_reason();

}  // namespace fusecl
