#include "runtime/program_build.hpp"

#include "fusecl/error.hpp"
#include "runtime/context.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/stats_counters.hpp"

#include <algorithm>
#include <vector>

namespace fusecl::rt {

namespace {

// Releases the program on every path that does not hand it to the caller.
class ProgramRef {
 public:
  explicit ProgramRef(cl_program p) : p_(p) {}
  ~ProgramRef() {
    if (p_) clReleaseProgram(p_);
  }
  ProgramRef(const ProgramRef&) = delete;
  ProgramRef& operator=(const ProgramRef&) = delete;
  cl_program get() const { return p_; }
  cl_program release() {
    cl_program p = p_;
    p_ = nullptr;
    return p;
  }

 private:
  cl_program p_;
};

std::string cl_failure(const char* call, cl_int code) {
  return std::string(call) + " failed: " + cl_error_name(code) + " (" + std::to_string(code) + ")";
}

std::string build_log(cl_program p, cl_device_id dev) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return log;
}

// Whether the built program defines the kernel. A binary the driver accepts may still
// be the wrong program (a damaged entry whose checksum was recomputed, a driver quirk);
// checking here turns that into a fallback instead of a failed clCreateKernel later.
bool defines_kernel(cl_program p, const std::string& name) {
  std::size_t size = 0;
  // A driver that cannot list kernel names gives no evidence against the binary.
  if (clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS || size == 0) return true;
  std::string names(size, '\0');
  if (clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) != CL_SUCCESS) return true;
  names.resize(names.find('\0') == std::string::npos ? names.size() : names.find('\0'));
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t end = std::min(names.find(';', start), names.size());
    if (names.compare(start, end - start, name) == 0) return true;
    start = end + 1;
  }
  return false;
}

// The program made from a cached binary, or nullptr with `why` when the driver rejects it.
cl_program program_from_binary(const Runtime& rt, const KernelSource& ks, const std::vector<unsigned char>& binary,
                               std::string& why) {
  const unsigned char* data = binary.data();
  const std::size_t size = binary.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  ProgramRef p(clCreateProgramWithBinary(rt.ctx, 1, &rt.dev.device, &size, &data, &status, &err));
  if (err != CL_SUCCESS || !p.get()) {
    why = cl_failure("clCreateProgramWithBinary", err != CL_SUCCESS ? err : status);
    return nullptr;
  }
  if (status != CL_SUCCESS) {
    why = cl_failure("clCreateProgramWithBinary (binary status)", status);
    return nullptr;
  }
  err = clBuildProgram(p.get(), 1, &rt.dev.device, ks.options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    why = cl_failure("clBuildProgram", err);
    if (const std::string log = build_log(p.get(), rt.dev.device); !log.empty()) why += ": " + log;
    return nullptr;
  }
  if (!defines_kernel(p.get(), ks.name)) {
    why = "the program it holds has no kernel named " + ks.name;
    return nullptr;
  }
  return p.release();
}

cl_program program_from_source(const Runtime& rt, const KernelSource& ks) {
  const char* text = ks.source.c_str();
  const std::size_t length = ks.source.size();
  cl_int err = CL_SUCCESS;
  ProgramRef p(clCreateProgramWithSource(rt.ctx, 1, &text, &length, &err));
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(p.get(), 1, &rt.dev.device, ks.options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(p.get(), rt.dev.device);
    const DeviceInfo& d = rt.dev.info;
    throw BuildError("building the OpenCL kernel " + ks.name + " failed: " + cl_error_name(err) + " (" +
                std::to_string(err) + ")\n" + "device: " + d.name + " (" + d.platform_name + ", driver " +
                d.driver_version + ")\n" + "build options: " + (ks.options.empty() ? "(none)" : ks.options) +
                "\n" + "build log:\n" + (log.empty() ? "(the driver gave no log)" : log) + "\n" +
                "generated source:\n" + numbered_source(ks.source));
  }
  ++counters().programs_built;
  return p.release();
}

// The program's binary for its one device; empty when the driver offers none.
std::vector<unsigned char> program_binary(cl_program p) {
  std::size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return {};
  std::vector<unsigned char> binary(size);
  unsigned char* slots[1] = {binary.data()};
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof slots, slots, nullptr) != CL_SUCCESS) return {};
  return binary;
}

}  // namespace

std::string numbered_source(std::string_view source) {
  std::size_t lines = 1;
  for (char c : source) lines += c == '\n';
  const int width = static_cast<int>(std::to_string(lines).size());
  std::string out;
  out.reserve(source.size() + lines * (width + 4));
  std::size_t number = 1, start = 0;
  while (start <= source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    if (start == source.size() && number > 1) break;  // no empty "line" after a final newline
    std::string n = std::to_string(number++);
    out.append(std::size_t(width) - n.size(), ' ').append(n).append(" | ");
    out.append(source.substr(start, end - start)).push_back('\n');
    start = end + 1;
  }
  return out;
}

CacheKey program_cache_key(const KernelSource& ks, const DeviceInfo& dev) {
  KeyInputs in;
  in.source = ks.source;
  in.options = ks.options;
  in.platform_name = dev.platform_name;
  in.platform_version = dev.platform_version;
  in.device_name = dev.name;
  in.device_version = dev.version;
  in.driver_version = dev.driver_version;
  return cache_key(in);
}

cl_program build_program(const Runtime& rt, const KernelSource& ks) {
  // The cache is used under its mutex; compiling (the slow part) is not, so
  // two devices build at once.
  std::unique_lock<std::mutex> lock(disk_cache_mutex());
  DiskCache& cache = disk_cache();
  if (!cache.readable()) {
    lock.unlock();
    return program_from_source(rt, ks);
  }
  const CacheKey key = program_cache_key(ks, rt.dev.info);
  if (auto binary = cache.load(key)) {
    std::string why;
    lock.unlock();
    cl_program p = program_from_binary(rt, ks, *binary, why);
    lock.lock();
    if (p) {
      ++counters().disk_cache_hits;
      ++counters().programs_loaded;
      cache.log("hit " + key.hex() + " (kernel " + ks.name + ")");
      return p;
    }
    cache.warn("the OpenCL driver rejected the cached binary " + cache.entry_path(key).string() + " of kernel " +
               ks.name + " (" + why + "); building from source" +
               (cache.writable() ? " and replacing the entry" : ""));
  }
  ++counters().disk_cache_misses;
  cache.log("miss " + key.hex() + " (kernel " + ks.name + ")");
  lock.unlock();

  ProgramRef p(program_from_source(rt, ks));
  lock.lock();
  if (cache.writable()) {
    const std::vector<unsigned char> binary = program_binary(p.get());
    if (binary.empty())
      cache.log("the driver gave no binary for kernel " + ks.name + "; nothing stored");
    else
      cache.store(key, {rt.dev.info.name, ks.name, rt.dev.info.driver_version}, binary, ks.source);
  }
  return p.release();
}

}  // namespace fusecl::rt
