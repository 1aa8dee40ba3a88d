#include "runtime/device_discovery.hpp"

#include "fusecl/error.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <string_view>

namespace fusecl::rt {

namespace {

constexpr std::string_view kInstallHint =
    "On Debian/Ubuntu, install the portable CPU driver (PoCL) with\n"
    "  sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1\n"
    "GPU vendors' drivers register themselves with a .icd file in /etc/OpenCL/vendors;\n"
    "check that the file exists and names a library that loads.";

// Drivers pad names with spaces (Intel CPU names start with several) and
// include the terminating NUL in the reported size; neither should leak into
// matching or into what we print.
std::string trimmed(std::string s) {
  const auto not_space = [](unsigned char c) { return c != '\0' && !std::isspace(c); };
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string call_name(const char* fn, const char* param) { return std::string(fn) + "(" + param + ")"; }

std::string platform_string(cl_platform_id p, cl_platform_info what, const char* what_name) {
  std::size_t size = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &size), call_name("clGetPlatformInfo", what_name).c_str());
  std::string s(size, '\0');
  if (size) check(clGetPlatformInfo(p, what, size, s.data(), nullptr), call_name("clGetPlatformInfo", what_name).c_str());
  return trimmed(std::move(s));
}

std::string device_string(cl_device_id d, cl_device_info what, const char* what_name) {
  std::size_t size = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &size), call_name("clGetDeviceInfo", what_name).c_str());
  std::string s(size, '\0');
  if (size) check(clGetDeviceInfo(d, what, size, s.data(), nullptr), call_name("clGetDeviceInfo", what_name).c_str());
  return trimmed(std::move(s));
}

template <class T>
T device_value(cl_device_id d, cl_device_info what, const char* what_name) {
  T value{};
  check(clGetDeviceInfo(d, what, sizeof value, &value, nullptr), call_name("clGetDeviceInfo", what_name).c_str());
  return value;
}

#define FUSECL_STRING(d, param) device_string(d, param, #param)
#define FUSECL_VALUE(T, d, param) device_value<T>(d, param, #param)

bool has_extension(const std::string& extensions, std::string_view name) {
  std::istringstream words(extensions);
  std::string word;
  while (words >> word)
    if (word == name) return true;
  return false;
}

std::string type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// CL_DEVICE_WARP_SIZE_NV and CL_DEVICE_COMPUTE_CAPABILITY_MAJOR/MINOR_NV of
// cl_nv_device_attribute_query, spelled out as kPlatformNotFound below is
// (cl_ext.h stays out).
constexpr cl_device_info kWarpSizeNV = 0x4003, kComputeMajorNV = 0x4000, kComputeMinorNV = 0x4001;

DeviceInfo query_device(cl_device_id d) {
  DeviceInfo info;
  info.name = FUSECL_STRING(d, CL_DEVICE_NAME);
  info.vendor = FUSECL_STRING(d, CL_DEVICE_VENDOR);
  info.version = FUSECL_STRING(d, CL_DEVICE_VERSION);
  info.driver_version = FUSECL_STRING(d, CL_DRIVER_VERSION);
  info.opencl_c_version = FUSECL_STRING(d, CL_DEVICE_OPENCL_C_VERSION);
  info.type = type_name(FUSECL_VALUE(cl_device_type, d, CL_DEVICE_TYPE));
  info.compute_units = FUSECL_VALUE(cl_uint, d, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.global_mem_bytes = FUSECL_VALUE(cl_ulong, d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc_bytes = FUSECL_VALUE(cl_ulong, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.local_mem_bytes = FUSECL_VALUE(cl_ulong, d, CL_DEVICE_LOCAL_MEM_SIZE);
  info.max_work_group_size = FUSECL_VALUE(std::size_t, d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.max_parameter_size = FUSECL_VALUE(std::size_t, d, CL_DEVICE_MAX_PARAMETER_SIZE);

  // Before OpenCL 1.2 a device without doubles may reject the
  // CL_DEVICE_DOUBLE_FP_CONFIG query outright; that means "no fp64", not a
  // broken device, so the code is deliberately not checked.
  const std::string extensions = FUSECL_STRING(d, CL_DEVICE_EXTENSIONS);
  cl_device_fp_config double_config = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof double_config, &double_config, nullptr) != CL_SUCCESS)
    double_config = 0;
  info.fp64 = double_config != 0 || has_extension(extensions, "cl_khr_fp64");

  const auto single_config = FUSECL_VALUE(cl_device_fp_config, d, CL_DEVICE_SINGLE_FP_CONFIG);
  info.correctly_rounded_sqrt = (single_config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  info.denormals = (single_config & CL_FP_DENORM) != 0;
  info.fma = (single_config & CL_FP_FMA) != 0;
  // Deprecated by OpenCL 2.0 but still answered; a device that refuses the
  // query is taken to have memory of its own (the safe assumption: staged copies).
  cl_bool unified = CL_FALSE;
  if (clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr) != CL_SUCCESS) unified = CL_FALSE;
  info.host_unified_memory = unified == CL_TRUE;
  // NVIDIA's warp and compute capability: its row kernels combine partials
  // through shfl.sync (PTX), which only NVIDIA's compiler takes, and only
  // for GPUs of compute capability 3.0 or later; no other device answers.
  if (has_extension(extensions, "cl_nv_device_attribute_query")) {
    cl_uint warp = 0, major = 0, minor = 0;
    if (clGetDeviceInfo(d, kWarpSizeNV, sizeof warp, &warp, nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(d, kComputeMajorNV, sizeof major, &major, nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(d, kComputeMinorNV, sizeof minor, &minor, nullptr) == CL_SUCCESS) {
      info.warp_size = warp;
      info.nv_compute_capability = major * 10 + minor;
    }
  }

  info.preferred = {FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR),
                    FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT),
                    FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT),
                    FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG),
                    FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT),
                    FUSECL_VALUE(cl_uint, d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE)};
  info.native = {FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR),
                 FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT),
                 FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT),
                 FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG),
                 FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT),
                 FUSECL_VALUE(cl_uint, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE)};
  return info;
}

#undef FUSECL_STRING
#undef FUSECL_VALUE

// OpenCL 3.0 queries; cl.hpp fixes the API at 1.2, so they are spelled out.
constexpr cl_device_info kOpenclCAllVersions = 0x1066;  // CL_DEVICE_OPENCL_C_ALL_VERSIONS
constexpr cl_device_info kOpenclCFeatures = 0x106F;     // CL_DEVICE_OPENCL_C_FEATURES
struct NameVersion {                                    // cl_name_version
  cl_uint version;
  char name[64];
};

// Drivers of OpenCL 1.x / 2.x reject these queries (CL_INVALID_VALUE): that
// means "not reported", so the codes are deliberately not checked.
std::vector<NameVersion> name_versions(cl_device_id d, cl_device_info what) {
  std::size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size % sizeof(NameVersion) != 0) return {};
  std::vector<NameVersion> v(size / sizeof(NameVersion));
  if (!v.empty() && clGetDeviceInfo(d, what, size, v.data(), nullptr) != CL_SUCCESS) return {};
  return v;
}

// OpenCL C 2.x has every atomic order and scope; 3.0 has acq_rel and device
// scope only with the two optional features. Split reductions need both.
std::string c11_atomics_std(cl_device_id d, const std::string& opencl_c_version) {
  int major = 0, minor = 0;
  if (std::sscanf(opencl_c_version.c_str(), "OpenCL C %d.%d", &major, &minor) == 2 && major == 2) return "-cl-std=CL2.0";
  bool c2 = false, c3 = major == 3;
  for (const NameVersion& v : name_versions(d, kOpenclCAllVersions)) {
    c2 = c2 || (v.version >> 22) == 2;  // CL_VERSION_MAJOR
    c3 = c3 || (v.version >> 22) == 3;
  }
  if (c2) return "-cl-std=CL2.0";
  if (!c3) return "";
  bool acq_rel = false, device_scope = false;
  for (const NameVersion& f : name_versions(d, kOpenclCFeatures)) {
    const std::string name(f.name, strnlen(f.name, sizeof f.name));
    acq_rel = acq_rel || name == "__opencl_c_atomic_order_acq_rel";
    device_scope = device_scope || name == "__opencl_c_atomic_scope_device";
  }
  return acq_rel && device_scope ? "-cl-std=CL3.0" : "";
}

// CL_PLATFORM_NOT_FOUND_KHR of cl_khr_icd; spelled out so that cl_ext.h, with
// all its vendor extensions, stays out of fusecl (cl.hpp owns the includes).
constexpr cl_int kPlatformNotFound = -1001;

std::vector<cl_platform_id> platform_ids() {
  cl_uint count = 0;
  const cl_int err = clGetPlatformIDs(0, nullptr, &count);
  // The Khronos loader reports "no driver installed" as CL_PLATFORM_NOT_FOUND_KHR,
  // ocl-icd as success with zero platforms; both mean the same to a user.
  if (err == kPlatformNotFound || (err == CL_SUCCESS && count == 0))
    throw Error("No OpenCL platform was found: the OpenCL ICD loader knows no installed driver.\n" +
                std::string(kInstallHint));
  check(err, "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(count);
  check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
  return ids;
}

// The devices of one platform; throws fusecl::Error if any query fails, so
// that the caller can skip the platform as a whole.
std::vector<DeviceHandle> platform_devices(cl_platform_id p, int platform_index) {
  const std::string platform_name = platform_string(p, CL_PLATFORM_NAME, "CL_PLATFORM_NAME");
  const std::string platform_version = platform_string(p, CL_PLATFORM_VERSION, "CL_PLATFORM_VERSION");
  const std::string platform_vendor = platform_string(p, CL_PLATFORM_VENDOR, "CL_PLATFORM_VENDOR");

  cl_uint count = 0;
  const cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (err == CL_DEVICE_NOT_FOUND) return {};
  check(err, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");

  std::vector<DeviceHandle> out;
  for (cl_uint i = 0; i < count; ++i) {
    DeviceHandle h{p, ids[i], query_device(ids[i]), ""};
    h.info.platform_index = platform_index;
    h.info.device_index = int(i);
    h.info.platform_name = platform_name;
    h.info.platform_version = platform_version;
    h.info.platform_vendor = platform_vendor;
    h.c11_atomics_std = c11_atomics_std(ids[i], h.info.opencl_c_version);
    out.push_back(std::move(h));
  }
  return out;
}

std::string describe_platform(cl_platform_id p, int index) {
  std::string s = "platform " + std::to_string(index);
  try {
    s += " (" + platform_string(p, CL_PLATFORM_NAME, "CL_PLATFORM_NAME") + ")";
  } catch (const Error&) {
    // The name is only decoration for a message about this platform failing.
  }
  return s;
}

}  // namespace

std::vector<DeviceHandle> discover_devices(std::vector<std::string>* skipped) {
  const std::vector<cl_platform_id> platforms = platform_ids();
  std::vector<DeviceHandle> all;
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < platforms.size(); ++i) {
    const int index = int(i);
    try {
      std::vector<DeviceHandle> found = platform_devices(platforms[i], index);
      if (found.empty()) problems.push_back(describe_platform(platforms[i], index) + ": no devices");
      for (DeviceHandle& h : found) all.push_back(std::move(h));
    } catch (const Error& e) {
      // One broken driver (a stale .icd, a GPU driver without its kernel
      // module) must not stop fusecl from using the others.
      problems.push_back(describe_platform(platforms[i], index) + " skipped: " + e.what());
    }
  }
  if (all.empty()) {
    std::string msg = "No usable OpenCL device was found. Platforms:\n";
    for (const std::string& p : problems) msg += "  " + p + "\n";
    throw Error(msg + std::string(kInstallHint));
  }
  if (skipped) *skipped = std::move(problems);
  return all;
}

std::vector<DeviceInfo> infos_of(const std::vector<DeviceHandle>& handles) {
  std::vector<DeviceInfo> out;
  out.reserve(handles.size());
  for (const DeviceHandle& h : handles) out.push_back(h.info);
  return out;
}

// ---- choosing ---------------------------------------------------------------------------

namespace {

std::string device_list(const std::vector<DeviceInfo>& devices) {
  std::string s;
  for (const DeviceInfo& d : devices)
    s += "  " + d.id() + "  [" + d.type + "] " + d.platform_name + " / " + d.name + "\n";
  if (devices.empty()) s = "  (none)\n";
  return s;
}

// How a spec is named in messages: FUSECL_DEVICE=gpu, open_device("gpu").
std::string spec_label(std::string_view origin, const std::string& spec) {
  if (origin == "FUSECL_DEVICE") return "FUSECL_DEVICE=" + spec;
  return std::string(origin) + "(\"" + spec + "\")";
}

[[noreturn]] void no_match(const std::vector<DeviceInfo>& devices, const std::string& label, const std::string& why) {
  throw Error(label + ": " + why + ".\nOpenCL devices on this machine:\n" + device_list(devices) +
              "FUSECL_DEVICE and open_device accept: cpu, gpu or accelerator (the first device of that type); P:D "
              "(device D of platform P, as listed above); or part of a platform or device name, "
              "vendor or version (case-insensitive), e.g. pocl, nvidia, amd, intel, apple.");
}

bool parse_index(std::string_view s, int& out) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return !s.empty() && r.ec == std::errc() && r.ptr == end && out >= 0;
}

std::optional<std::size_t> first_of_type(const std::vector<DeviceInfo>& devices, std::string_view type) {
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].type == type) return i;
  return std::nullopt;
}

}  // namespace

DeviceChoice choose_device(const std::vector<DeviceInfo>& devices, const std::string& raw_spec,
                           std::string_view origin) {
  const std::string spec = trimmed(raw_spec);
  const std::string label = spec_label(origin, spec);
  if (spec.empty()) {
    if (devices.empty()) throw Error("No OpenCL device to choose from.\n" + std::string(kInstallHint));
    const std::string why = origin == "FUSECL_DEVICE" ? " (no FUSECL_DEVICE set)" : " (" + label + ")";
    if (auto i = first_of_type(devices, "GPU")) return {*i, "default: first GPU" + why};
    if (auto i = first_of_type(devices, "CPU")) return {*i, "default: first CPU, there is no GPU" + why};
    return {0, "default: first device, there is no GPU or CPU" + why};
  }

  const std::string lower = lowercase(spec);
  for (std::string_view type : {"GPU", "CPU", "accelerator"}) {
    if (lower != lowercase(type)) continue;
    if (auto i = first_of_type(devices, type)) return {*i, label + ": first " + std::string(type)};
    no_match(devices, label, "there is no " + std::string(type) + " device");
  }

  if (const auto colon = spec.find(':'); colon != std::string::npos) {
    int p = 0, d = 0;
    if (parse_index(std::string_view(spec).substr(0, colon), p) &&
        parse_index(std::string_view(spec).substr(colon + 1), d)) {
      for (std::size_t i = 0; i < devices.size(); ++i)
        if (devices[i].platform_index == p && devices[i].device_index == d)
          return {i, label + ": platform " + std::to_string(p) + ", device " + std::to_string(d)};
      no_match(devices, label, "there is no device " + spec);
    }
  }

  // Part of a name. The fields are tried in order over all devices, so that a
  // platform called "Intel(R) OpenCL Graphics" wins over a CPU whose vendor
  // string is "GenuineIntel". The short names people type are also matched
  // against what the drivers spell out: PoCL's platform is "Portable Computing
  // Language" (only its version string says "PoCL"), AMD's vendor "Advanced
  // Micro Devices, Inc.".
  struct Field {
    const char* what;
    std::string DeviceInfo::*member;
  };
  static const Field fields[] = {{"platform name", &DeviceInfo::platform_name},
                                 {"device name", &DeviceInfo::name},
                                 {"platform vendor", &DeviceInfo::platform_vendor},
                                 {"platform version", &DeviceInfo::platform_version},
                                 {"device vendor", &DeviceInfo::vendor}};
  std::vector<std::string> needles{lower};
  if (lower == "pocl") needles.push_back("portable computing language");
  if (lower == "amd" || lower == "radeon") needles.push_back("advanced micro devices");
  for (const Field& f : fields)
    for (const std::string& needle : needles)
      for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string& text = devices[i].*f.member;
        if (lowercase(text).find(needle) != std::string::npos)
          return {i, label + ": " + f.what + " \"" + text + "\" " +
                         (needle == lower ? "contains it" : "contains \"" + needle + "\"")};
      }
  no_match(devices, label, "no device matches");
}

}  // namespace fusecl::rt

namespace fusecl {

std::vector<DeviceInfo> devices() { return rt::infos_of(rt::discover_devices()); }

}  // namespace fusecl
