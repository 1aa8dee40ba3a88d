#include "runtime/context.hpp"

#include "fusecl/error.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/stats_counters.hpp"

#include <algorithm>
#include <cstdlib>

namespace fusecl::rt {

namespace {

// A failure once the device is chosen usually means that device's driver is
// broken, so the message names the device and how to pick another.
[[noreturn]] void setup_failed(const DeviceHandle& dev, const std::string& reason, const Error& e) {
  throw Error("Setting up OpenCL device " + dev.info.id() + " (" + dev.info.platform_name + " / " + dev.info.name +
              ", chosen by " + reason + ") failed: " + e.what() +
              "\nChoose another device with FUSECL_DEVICE; fusecl-info lists them.");
}

Runtime* create_runtime() {
  const std::vector<DeviceHandle> handles = discover_devices();
  const char* spec = std::getenv("FUSECL_DEVICE");
  const DeviceChoice choice = choose_device(infos_of(handles), spec ? spec : "");

  auto rt = std::make_unique<Runtime>();
  rt->dev = handles[choice.index];
  rt->choice_reason = choice.reason;
  // Read before any OpenCL object exists, so that a typo in the variable is
  // reported as such rather than as a device failure.
  const std::uint64_t cache_cap = pool_cache_cap(rt->dev.info.global_mem_bytes, std::getenv("FUSECL_POOL_MAX_BYTES"));

  try {
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(rt->dev.platform), 0};
    rt->ctx = clCreateContext(props, 1, &rt->dev.device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    // In order, no profiling: fusecl orders its work by enqueue order alone.
    rt->queue = clCreateCommandQueue(rt->ctx, rt->dev.device, 0, &err);
    check(err, "clCreateCommandQueue");
    rt->pool = std::make_unique<BufferPool>(rt->ctx, cache_cap, rt->dev.info.max_alloc_bytes);
  } catch (const Error& e) {
    // Release results are ignored: we are already reporting the real failure.
    if (rt->queue) static_cast<void>(clReleaseCommandQueue(rt->queue));
    if (rt->ctx) static_cast<void>(clReleaseContext(rt->ctx));
    setup_failed(rt->dev, rt->choice_reason, e);
  }
  return rt.release();
}

}  // namespace

std::uint64_t pool_cache_cap(std::uint64_t global_mem_bytes, const char* env_value, const DiagnosticSink& sink) {
  const std::uint64_t quarter = global_mem_bytes / 4;
  const std::string_view v = trim(env_value ? std::string_view(env_value) : std::string_view());
  if (v.empty()) return quarter;  // unset, or set to nothing
  const auto limit = parse_byte_size(v);
  if (!limit) {
    sink("fusecl: warning: FUSECL_POOL_MAX_BYTES='" + std::string(env_value) +
         "' is not a size like 268435456, 512M or 2G (0 disables buffer caching); using " + human_bytes(quarter) +
         ", a quarter of the device's memory");
    return quarter;
  }
  return std::min(quarter, *limit);
}

Runtime& runtime() {
  // A function-local static: created on first use, thread-safely; if creation
  // throws, the next call tries again (and reports the problem again).
  static Runtime* const instance = create_runtime();
  return *instance;
}

std::shared_ptr<DeviceBuffer> upload(const void* data, std::size_t bytes) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>();
  if (!data) throw Error("upload: null source pointer for " + std::to_string(bytes) + " bytes");
  Runtime& r = runtime();
  std::shared_ptr<DeviceBuffer> buf = r.pool->allocate(bytes);
  const std::string call = "clEnqueueWriteBuffer of " + std::to_string(bytes) + " bytes";
  check(clEnqueueWriteBuffer(r.queue, buf->mem, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr), call.c_str());
  counters().uploads += 1;
  counters().bytes_uploaded += bytes;
  return buf;
}

void download(const DeviceBuffer& buf, std::size_t offset, std::size_t bytes, void* dst) {
  if (offset > buf.bytes || bytes > buf.bytes - offset)
    throw Error("download: bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                std::to_string(bytes) + ") lie outside a buffer of " + std::to_string(buf.bytes) + " bytes");
  if (bytes == 0) return;
  if (!dst) throw Error("download: null destination pointer for " + std::to_string(bytes) + " bytes");
  Runtime& r = runtime();
  const std::string call = "clEnqueueReadBuffer of " + std::to_string(bytes) + " bytes";
  check(clEnqueueReadBuffer(r.queue, buf.mem, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr), call.c_str());
  counters().downloads += 1;
  counters().bytes_downloaded += bytes;
}

void finish() { check(clFinish(runtime().queue), "clFinish"); }

}  // namespace fusecl::rt

namespace fusecl {

const DeviceInfo& device() { return rt::runtime().dev.info; }

const std::string& device_choice_reason() { return rt::runtime().choice_reason; }

}  // namespace fusecl
