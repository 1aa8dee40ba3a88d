#include "runtime/context.hpp"

#include "fusecl/error.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/kernel_cache.hpp"
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

}  // namespace

Runtime::~Runtime() {
  // Release results are ignored: nothing can be done about them here.
  reduce_partials.reset();
  reduce_counters.reset();
  for (auto& [signature, built] : kernels) static_cast<void>(clReleaseKernel(built.kernel));
  if (queue) static_cast<void>(clFinish(queue));
  streams.reset();
  staging.reset();
  pool.reset();
  if (queue) static_cast<void>(clReleaseCommandQueue(queue));
  if (ctx) static_cast<void>(clReleaseContext(ctx));
}

std::shared_ptr<Runtime> open_runtime(std::string_view spec, std::string_view origin) {
  const std::vector<DeviceHandle> handles = discover_devices();
  const DeviceChoice choice = choose_device(infos_of(handles), std::string(spec), origin);

  auto rt = std::make_shared<Runtime>();
  rt->dev = handles[choice.index];
  rt->choice_reason = choice.reason;
  // Read before any OpenCL object exists, so that a typo in the variable is
  // reported as such rather than as a device failure.
  const std::uint64_t cache_cap = pool_cache_cap(rt->dev.info.global_mem_bytes, std::getenv("FUSECL_POOL_MAX_BYTES"));
  const std::uint64_t limit =
      device_memory_limit(rt->dev.info.global_mem_bytes, std::getenv("FUSECL_DEVICE_MEMORY_LIMIT"));

  try {
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(rt->dev.platform), 0};
    rt->ctx = clCreateContext(props, 1, &rt->dev.device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    // In order, no profiling: fusecl orders its work by enqueue order alone.
    rt->queue = clCreateCommandQueue(rt->ctx, rt->dev.device, 0, &err);
    check(err, "clCreateCommandQueue");
    rt->pool = std::make_unique<BufferPool>(rt->ctx, cache_cap, rt->dev.info.max_alloc_bytes, limit);
  } catch (const Error& e) {
    setup_failed(rt->dev, rt->choice_reason, e);  // rt's destructor releases what was made
  }
  return rt;
}

const std::shared_ptr<Runtime>& default_runtime() {
  // A function-local static: created on first use, thread-safely; if creation
  // throws, the next call tries again (and reports the problem again).
  static const auto* const instance = [] {
    const char* spec = std::getenv("FUSECL_DEVICE");
    return new std::shared_ptr<Runtime>(open_runtime(spec ? spec : "", "FUSECL_DEVICE"));
  }();
  return *instance;
}

Runtime& runtime() { return *default_runtime(); }

const DeviceInfo& info(const Runtime& rt) { return rt.dev.info; }
const std::string& choice_reason(const Runtime& rt) { return rt.choice_reason; }
const std::string& c11_atomics_std(const Runtime& rt) { return rt.dev.c11_atomics_std; }

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

std::uint64_t device_memory_limit(std::uint64_t global_mem_bytes, const char* env_value, const DiagnosticSink& sink) {
  const std::string_view v = trim(env_value ? std::string_view(env_value) : std::string_view());
  if (v.empty()) return global_mem_bytes;
  const auto limit = parse_byte_size(v);
  if (!limit || *limit == 0) {
    sink("fusecl: warning: FUSECL_DEVICE_MEMORY_LIMIT='" + std::string(env_value) +
         "' is not a size above zero like 4G, 512M or 268435456; using the device's memory, " +
         human_bytes(global_mem_bytes));
    return global_mem_bytes;
  }
  return std::min(*limit, global_mem_bytes);
}

std::shared_ptr<DeviceBuffer> allocate(Runtime& rt, std::size_t bytes) { return rt.pool->allocate(bytes); }

std::shared_ptr<DeviceBuffer> allocate_output(Runtime& rt, std::size_t bytes) {
  static const bool poison = switch_setting("FUSECL_POISON_OUTPUTS", false);
  std::shared_ptr<DeviceBuffer> buf = rt.pool->allocate(bytes);
  if (poison && bytes > 0) {
    const cl_uchar ones = 0xFF;
    check(clEnqueueFillBuffer(rt.queue, buf->mem, &ones, 1, 0, buf->capacity, 0, nullptr, nullptr), "clEnqueueFillBuffer");
  }
  return buf;
}

std::size_t bytes_of(const DeviceBuffer& buf) { return buf.bytes; }

MemoryBudget memory_budget(const Runtime& rt) { return {rt.pool->limit_bytes(), rt.pool->bytes_in_use()}; }

std::shared_ptr<DeviceBuffer> upload(Runtime& rt, const void* data, std::size_t bytes) {
  if (bytes == 0) return std::make_shared<DeviceBuffer>();
  if (!data) throw Error("upload: null source pointer for " + std::to_string(bytes) + " bytes");
  std::shared_ptr<DeviceBuffer> buf = rt.pool->allocate(bytes);
  write_buffer(rt, buf->mem, data, bytes);
  counters().uploads += 1;
  counters().bytes_uploaded += bytes;
  return buf;
}

void download(Runtime& rt, const DeviceBuffer& buf, std::size_t offset, std::size_t bytes, void* dst) {
  if (offset > buf.bytes || bytes > buf.bytes - offset)
    throw Error("download: bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                std::to_string(bytes) + ") lie outside a buffer of " + std::to_string(buf.bytes) + " bytes");
  if (bytes == 0) return;
  if (!dst) throw Error("download: null destination pointer for " + std::to_string(bytes) + " bytes");
  read_buffer(rt, buf.mem, offset, bytes, dst);
  counters().downloads += 1;
  counters().bytes_downloaded += bytes;
}

void finish(Runtime& rt) {
  check(clFinish(rt.queue), "clFinish");
  finish_streams(rt);
}

std::shared_ptr<DeviceBuffer> reduce_partials(Runtime& rt, std::size_t bytes) {
  if (!rt.reduce_partials || rt.reduce_partials->bytes < bytes) {
    rt.reduce_partials.reset();
    rt.reduce_partials = rt.pool->allocate(std::max<std::size_t>(bytes, 1 << 16));
  }
  return rt.reduce_partials;
}

std::shared_ptr<DeviceBuffer> reduce_counters(Runtime& rt, std::int64_t outputs) {
  const std::size_t bytes = std::size_t(outputs) * 4;
  if (!rt.reduce_counters || rt.reduce_counters->bytes < bytes) {
    rt.reduce_counters.reset();
    auto buf = rt.pool->allocate(std::max<std::size_t>(bytes, 1 << 12));
    const cl_uchar zero = 0;
    check(clEnqueueFillBuffer(rt.queue, buf->mem, &zero, 1, 0, buf->capacity, 0, nullptr, nullptr), "clEnqueueFillBuffer");
    rt.reduce_counters = std::move(buf);
  }
  return rt.reduce_counters;
}

void launch_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render,
                   std::span<const KernelArg> args, std::size_t global, std::size_t local) {
  launch_kernel(rt, signature, render, args, NDRange{1, {global, 1, 1}, {local, 1, 1}});
}

void launch_kernel(Runtime& rt, const std::string& signature, const std::function<KernelSource()>& render,
                   std::span<const KernelArg> args, const NDRange& range) {
  BuiltKernel& built = built_kernel(rt, signature, render);
  const cl_kernel k = built.kernel;
  // Scalars set by the last launch with the same values are left as they are
  // (a Black-Scholes kernel has 30 of them, and a replayed plan sends the
  // same ones every call). What was set is recorded only once the call
  // succeeded.
  if (built.set.size() != args.size()) built.set.assign(args.size(), KernelArg{});
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    KernelArg& was = built.set[i];
    if (a.size != 0 && was.size == a.size && was.bits == a.bits) continue;
    was = KernelArg{};
    cl_int err;
    if (a.size == 0) {
      cl_mem m = a.buffer ? a.buffer->mem : nullptr;
      err = clSetKernelArg(k, cl_uint(i), sizeof(cl_mem), &m);
    } else {
      err = clSetKernelArg(k, cl_uint(i), a.size, &a.bits);  // little-endian: the low bytes are the value
    }
    check(err, "clSetKernelArg");
    if (a.size != 0) was = a;
  }
  check(clEnqueueNDRangeKernel(rt.queue, k, cl_uint(range.dims), nullptr, range.global, range.local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  counters().kernels_launched++;
}

}  // namespace fusecl::rt
