// Finding OpenCL devices and choosing one from FUSECL_DEVICE.
#pragma once

#include "fusecl/device.hpp"
#include "runtime/cl.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace fusecl::rt {

struct DeviceHandle {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  DeviceInfo info;
  // The -cl-std option ("-cl-std=CL2.0" or "-cl-std=CL3.0") under which the
  // device's OpenCL C has atomics with memory_order_acq_rel at
  // memory_scope_device; empty when it has none (OpenCL C 1.x only).
  std::string c11_atomics_std;
};

/// All devices of all platforms. Throws fusecl::Error saying how to install
/// PoCL when there is no OpenCL platform (or no device) at all. A platform
/// whose queries fail is left out; if `skipped` is given, it receives one line
/// per platform that contributed no device, saying why (for fusecl-info).
std::vector<DeviceHandle> discover_devices(std::vector<std::string>* skipped = nullptr);

/// The DeviceInfo of each handle, in order (what choose_device takes).
std::vector<DeviceInfo> infos_of(const std::vector<DeviceHandle>& handles);

struct DeviceChoice {
  std::size_t index = 0;  // into the discovered list
  std::string reason;     // human-readable: why this one
};

/// spec is FUSECL_DEVICE's value (or open_device's argument; `origin` names
/// which, for messages) or empty. Accepts "cpu", "gpu", "accelerator",
/// "P:D", or a case-insensitive substring of the platform or device name.
/// Empty: the first GPU, else the first CPU, else the first device.
/// An unknown spec throws fusecl::Error listing every device (id, platform, name).
DeviceChoice choose_device(const std::vector<DeviceInfo>& devices, const std::string& spec,
                           std::string_view origin = "FUSECL_DEVICE");

}  // namespace fusecl::rt
