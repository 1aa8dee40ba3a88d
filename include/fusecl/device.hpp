// The OpenCL devices fusecl can run on, and devices as values: a Device is
// one opened device with its own context, queue, buffer pool and kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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
  bool fma = false;                     // CL_FP_FMA for float: fma in hardware
  bool denormals = false;               // CL_FP_DENORM for float
  bool host_unified_memory = false;     // CL_DEVICE_HOST_UNIFIED_MEMORY: a CPU or an integrated GPU
  unsigned warp_size = 0;               // CL_DEVICE_WARP_SIZE_NV (cl_nv_device_attribute_query): NVIDIA's; 0 elsewhere
  unsigned nv_compute_capability = 0;   // the same extension's compute capability, major * 10 + minor (90: Hopper); 0 elsewhere
  VectorWidths preferred, native;

  /// "P:D" — the spelling FUSECL_DEVICE accepts for this device.
  std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};

/// Every OpenCL device on this machine, in platform then device order.
/// Throws fusecl::Error (with install instructions) if there is no platform.
std::vector<DeviceInfo> devices();

namespace detail {
struct DeviceState;  // src/device_state.hpp
}

/// An opened device: a cheap, copyable handle (copies share one context,
/// queue, buffer pool and in-memory kernel cache; the disk cache is shared by
/// all devices). Arrays live on one device; an operation on arrays of two
/// devices throws fusecl::Error naming both (copy one with Array::to).
/// Thread-safe: any number of threads may use one Device at once.
///
/// A Device (and arrays on it) should not be held by a static whose
/// destructor runs at exit: releasing OpenCL objects then races the driver's
/// own teardown on several drivers. The default device is never released.
class Device {
 public:
  /// The default device (default_device()).
  Device();

  const DeviceInfo& info() const;
  /// Why this device was picked ("FUSECL_DEVICE=gpu: first GPU", "open_device(\"pocl\"): ...").
  const std::string& choice_reason() const;
  /// "0:0 Portable Computing Language / cpu-haswell" plus, for devices from
  /// open_device, "(open_device #N)": two handles on one physical device are
  /// two contexts, and messages must tell them apart.
  std::string str() const;

  /// Blocks until every operation enqueued on this device has finished.
  void finish() const;

  /// Same opened device (copies of one handle), not merely the same hardware.
  friend bool operator==(const Device& a, const Device& b) { return a.state_ == b.state_; }

  /// Library use.
  explicit Device(std::shared_ptr<detail::DeviceState> state) : state_(std::move(state)) {}
  const std::shared_ptr<detail::DeviceState>& state() const { return state_; }

 private:
  std::shared_ptr<detail::DeviceState> state_;
};

/// Opens a new context on the device `spec` picks, in FUSECL_DEVICE's syntax:
/// "gpu", "cpu", "accelerator", "P:D" (fusecl-info lists them), or part of a
/// platform or device name, vendor or version ("pocl", "nvidia", "amd").
/// Each call opens a new, independent context (its kernels are built, or
/// loaded from the disk cache, on first use): open once and copy the handle.
/// An unknown spec throws fusecl::Error listing every device.
Device open_device(std::string_view spec);

/// This thread's default device: the innermost DeviceScope's, else the
/// process default (FUSECL_DEVICE, else the first GPU, else the first CPU),
/// opened once on first use and never released. Arrays made without a
/// device (from_host, generators) live here.
Device default_device();

/// Makes `dev` this thread's default device until the scope ends (scopes nest).
class DeviceScope {
 public:
  explicit DeviceScope(Device dev);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device dev_;
  const Device* previous_;
};

/// default_device().info(); the reference stays valid while that device is open.
const DeviceInfo& device();

/// default_device().choice_reason().
const std::string& device_choice_reason();

}  // namespace fusecl
