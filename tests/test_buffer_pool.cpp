#include "fusecl/device.hpp"
#include "fusecl/error.hpp"
#include "fusecl/stats.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/context.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using fusecl::rt::BufferPool;
using fusecl::rt::DeviceBuffer;
using Catch::Matchers::Contains;

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// A pool of its own on the runtime's context, so counts start from zero.
BufferPool make_pool(std::uint64_t max_cached, std::uint64_t max_alloc = GiB) {
  return BufferPool(fusecl::rt::runtime().ctx, max_cached, max_alloc);
}

std::vector<std::size_t> sample_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t b = 0; b <= 4096; ++b) sizes.push_back(b);
  for (std::size_t p = 4096; p <= (std::size_t(1) << 40); p *= 2)
    for (std::size_t off : {p / 16, p / 8, p / 8 + 1, p / 3, p / 2, p - 1})
      for (std::size_t base : {p - 1, p, p + 1, p + off}) sizes.push_back(base);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

TEST_CASE("size_class is monotone, covers the request and bounds waste", "[pool]") {
  CHECK(BufferPool::size_class(0) == 0);
  CHECK(BufferPool::size_class(1) == 256);
  CHECK(BufferPool::size_class(256) == 256);
  CHECK(BufferPool::size_class(257) == 512);
  CHECK(BufferPool::size_class(MiB) == MiB);
  CHECK(BufferPool::size_class(MiB + 1) == MiB + MiB / 8);
  CHECK(BufferPool::size_class(3 * MiB) == 3 * MiB);
  CHECK(BufferPool::size_class(3 * MiB + 1) == 3 * MiB + MiB / 4);

  std::size_t previous = 0;
  for (std::size_t bytes : sample_sizes()) {
    const std::size_t c = BufferPool::size_class(bytes);
    INFO("bytes = " << bytes << ", class = " << c);
    REQUIRE(c >= bytes);
    REQUIRE(c >= previous);
    previous = c;
    if (bytes == 0) continue;
    if (bytes <= MiB) {
      REQUIRE(c >= 256);
      REQUIRE((c & (c - 1)) == 0);  // a power of two
    } else {
      REQUIRE(c - bytes < bytes / 8);  // under 12.5% waste
    }
  }

  // No wrap-around for absurd requests.
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  CHECK(BufferPool::size_class(max) == max);
  CHECK(BufferPool::size_class(max - 5) >= max - 5);
}

TEST_CASE("the pool reuses a dropped buffer of the same size class", "[pool][opencl]") {
  BufferPool pool = make_pool(64 * MiB);
  auto a = pool.allocate(1000);
  REQUIRE(a->mem != nullptr);
  CHECK(a->bytes == 1000);
  CHECK(a->capacity == 1024);
  CHECK(pool.allocations() == 1);
  CHECK(pool.bytes_in_use() == 1024);
  const cl_mem first = a->mem;
  a.reset();
  CHECK(pool.bytes_in_use() == 0);
  CHECK(pool.bytes_cached() == 1024);

  auto b = pool.allocate(900);  // same class, 1024
  CHECK(pool.allocations() == 1);
  CHECK(b->mem == first);
  CHECK(b->bytes == 900);
  CHECK(pool.bytes_cached() == 0);

  auto c = pool.allocate(1000);  // b is still alive: a new buffer is needed
  CHECK(pool.allocations() == 2);
  auto d = pool.allocate(3000);  // another class
  CHECK(pool.allocations() == 3);

  b.reset();
  c.reset();
  d.reset();
  CHECK(pool.bytes_cached() == 1024 + 1024 + 4096);
  pool.trim();
  CHECK(pool.bytes_cached() == 0);
  auto e = pool.allocate(1000);
  CHECK(pool.allocations() == 4);
}

TEST_CASE("the pool caches no more than its cap", "[pool][opencl]") {
  BufferPool pool = make_pool(MiB);
  std::vector<std::shared_ptr<DeviceBuffer>> held;
  for (int i = 0; i < 8; ++i) held.push_back(pool.allocate(256 * KiB));
  CHECK(pool.bytes_in_use() == 8 * 256 * KiB);
  held.clear();
  CHECK(pool.bytes_in_use() == 0);
  CHECK(pool.bytes_cached() == MiB);  // four kept, four released

  for (int i = 0; i < 4; ++i) held.push_back(pool.allocate(256 * KiB));
  CHECK(pool.allocations() == 8);  // all four came from the cache
  held.clear();

  BufferPool uncached = make_pool(0);
  uncached.allocate(100).reset();
  CHECK(uncached.bytes_cached() == 0);
  uncached.allocate(100).reset();
  CHECK(uncached.allocations() == 2);
}

TEST_CASE("zero-byte buffers allocate nothing", "[pool][opencl]") {
  BufferPool pool = make_pool(MiB);
  auto z = pool.allocate(0);
  REQUIRE(z);
  CHECK(z->mem == nullptr);
  CHECK(z->bytes == 0);
  CHECK(z->capacity == 0);
  CHECK(pool.allocations() == 0);
  z.reset();
  CHECK(pool.bytes_cached() == 0);

  fusecl::reset_stats();
  auto u = fusecl::rt::upload(fusecl::rt::runtime(), nullptr, 0);
  REQUIRE(u);
  CHECK(u->mem == nullptr);
  fusecl::rt::download(fusecl::rt::runtime(), *u, 0, 0, nullptr);
  CHECK(fusecl::stats().uploads == 0);
  CHECK(fusecl::stats().downloads == 0);
}

TEST_CASE("requests over the device's largest allocation fail clearly", "[pool][opencl]") {
  BufferPool pool = make_pool(MiB, MiB);
  CHECK_THROWS_MATCHES(pool.allocate(2 * MiB), fusecl::Error,
                       Catch::Matchers::Message(
                           "Cannot allocate 2 MiB (2097152 bytes) on the OpenCL device: its largest single "
                           "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is 1 MiB (1048576 bytes). Use smaller arrays, "
                           "or choose a device that allows larger buffers with FUSECL_DEVICE (fusecl-info lists "
                           "them)."));
  CHECK(pool.allocations() == 0);

  // A request under the maximum whose size class is over it gets the maximum.
  BufferPool odd = make_pool(0, 3 * MiB + 100);
  auto b = odd.allocate(3 * MiB + 50);
  CHECK(b->capacity == 3 * MiB + 100);

  const std::uint64_t max_alloc = fusecl::device().max_alloc_bytes;
  CHECK_THROWS_WITH(fusecl::rt::runtime().pool->allocate(max_alloc + 1),
                    Contains(std::to_string(max_alloc + 1) + " bytes") && Contains(std::to_string(max_alloc)));
}

TEST_CASE("buffers may outlive their pool", "[pool][opencl]") {
  std::shared_ptr<DeviceBuffer> survivor;
  {
    BufferPool pool = make_pool(MiB);
    survivor = pool.allocate(4096);
    pool.allocate(4096).reset();  // one cached buffer, released with the pool
  }
  REQUIRE(survivor->mem != nullptr);
  cl_uint refs = 0;
  REQUIRE(clGetMemObjectInfo(survivor->mem, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, nullptr) == CL_SUCCESS);
  CHECK(refs == 1);
  survivor.reset();  // releases the cl_mem directly (AddressSanitizer builds check this)
}

TEST_CASE("upload and download round-trip and are counted", "[pool][opencl]") {
  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), 0.5f);
  const std::size_t bytes = host.size() * sizeof(float);

  fusecl::reset_stats();
  auto buf = fusecl::rt::upload(fusecl::rt::runtime(), host.data(), bytes);
  CHECK(buf->bytes == bytes);

  std::vector<float> back(host.size(), -1.0f);
  fusecl::rt::download(fusecl::rt::runtime(), *buf, 0, bytes, back.data());
  CHECK(back == host);

  std::vector<float> part(10, -1.0f);
  fusecl::rt::download(fusecl::rt::runtime(), *buf, 990 * sizeof(float), 10 * sizeof(float), part.data());
  CHECK(part == std::vector<float>(host.end() - 10, host.end()));
  fusecl::rt::finish(fusecl::rt::runtime());

  const fusecl::Stats s = fusecl::stats();
  CHECK(s.uploads == 1);
  CHECK(s.bytes_uploaded == bytes);
  CHECK(s.downloads == 2);
  CHECK(s.bytes_downloaded == bytes + 10 * sizeof(float));

  fusecl::reset_stats();
  CHECK(fusecl::stats().uploads == 0);
  CHECK(fusecl::stats().bytes_downloaded == 0);
}

TEST_CASE("download refuses ranges outside the buffer", "[pool][opencl]") {
  const std::vector<std::uint8_t> host(100, 7);
  auto buf = fusecl::rt::upload(fusecl::rt::runtime(), host.data(), host.size());
  std::vector<std::uint8_t> dst(200);
  fusecl::reset_stats();
  // The capacity is 256; reading past the requested 100 bytes is still an error.
  CHECK_THROWS_WITH(fusecl::rt::download(fusecl::rt::runtime(), *buf, 0, 101, dst.data()), Contains("outside a buffer of 100 bytes"));
  CHECK_THROWS_AS(fusecl::rt::download(fusecl::rt::runtime(), *buf, 101, 0, dst.data()), fusecl::Error);
  CHECK_THROWS_AS(fusecl::rt::download(fusecl::rt::runtime(), *buf, 50, std::numeric_limits<std::size_t>::max(), dst.data()), fusecl::Error);
  CHECK(fusecl::stats().downloads == 0);
}

TEST_CASE("the pool's cache cap comes from the device's memory and FUSECL_POOL_MAX_BYTES", "[pool]") {
  using fusecl::rt::pool_cache_cap;
  CHECK(pool_cache_cap(8 * GiB, nullptr) == 2 * GiB);
  CHECK(pool_cache_cap(8 * GiB, "1048576") == MiB);
  CHECK(pool_cache_cap(8 * GiB, "0") == 0);
  CHECK(pool_cache_cap(8 * GiB, "99999999999999") == 2 * GiB);  // never above a quarter
  // The size syntax of FUSECL_CACHE_MAX_BYTES; an empty value is unset.
  std::vector<std::string> warnings;
  const auto sink = [&](const std::string& line) { warnings.push_back(line); };
  CHECK(pool_cache_cap(8 * GiB, "512M", sink) == 512 * MiB);
  CHECK(pool_cache_cap(8 * GiB, "1G", sink) == GiB);
  CHECK(pool_cache_cap(8 * GiB, "64KiB", sink) == 64 * 1024);
  CHECK(pool_cache_cap(8 * GiB, "", sink) == 2 * GiB);
  CHECK(pool_cache_cap(8 * GiB, "  ", sink) == 2 * GiB);
  CHECK(warnings.empty());
  // A malformed value: one warning naming the variable, the value and what is used.
  for (const char* bad : {"-1", "1e6", "12 MiB", "abc", "123abc", "99999999999999999999999", "2X"}) {
    warnings.clear();
    CHECK(pool_cache_cap(8 * GiB, bad, sink) == 2 * GiB);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("FUSECL_POOL_MAX_BYTES='" + std::string(bad) + "'") && Contains("using 2 GiB"));
  }

  const auto& pool = *fusecl::rt::runtime().pool;
  CHECK(pool.max_cached_bytes() <= fusecl::device().global_mem_bytes / 4);
  CHECK(pool.max_alloc_bytes() == fusecl::device().max_alloc_bytes);
}

TEST_CASE("the device memory limit comes from FUSECL_DEVICE_MEMORY_LIMIT, at most the device's memory", "[pool]") {
  using fusecl::rt::device_memory_limit;
  std::vector<std::string> warnings;
  const auto sink = [&](const std::string& line) { warnings.push_back(line); };
  CHECK(device_memory_limit(8 * GiB, nullptr, sink) == 8 * GiB);
  CHECK(device_memory_limit(8 * GiB, "", sink) == 8 * GiB);
  CHECK(device_memory_limit(8 * GiB, "4G", sink) == 4 * GiB);
  CHECK(device_memory_limit(8 * GiB, "64M", sink) == 64 * MiB);
  CHECK(device_memory_limit(8 * GiB, "67108864", sink) == 64 * MiB);
  CHECK(device_memory_limit(8 * GiB, "16G", sink) == 8 * GiB);  // the device has no more
  CHECK(warnings.empty());
  for (const char* bad : {"0", "-1", "4 GB", "lots", "1e9"}) {
    warnings.clear();
    CHECK(device_memory_limit(8 * GiB, bad, sink) == 8 * GiB);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("FUSECL_DEVICE_MEMORY_LIMIT='" + std::string(bad) + "'"));
    CHECK_THAT(warnings[0], Contains("8 GiB"));
  }
}

TEST_CASE("the pool holds no more than its limit: cached buffers go first, then a clear error", "[pool][opencl]") {
  BufferPool pool(fusecl::rt::runtime().ctx, 4 * MiB, GiB, MiB);
  CHECK(pool.limit_bytes() == MiB);
  auto a = pool.allocate(512 * KiB);
  auto b = pool.allocate(256 * KiB);
  b.reset();  // cached: the pool still holds 768 KiB
  CHECK(pool.bytes_cached() == 256 * KiB);
  auto c = pool.allocate(512 * KiB);  // 512 + 256 + 512 > 1 MiB: the cached one is released first
  CHECK(pool.bytes_cached() == 0);
  CHECK(pool.bytes_in_use() == MiB);
  try {
    auto d = pool.allocate(1);
    FAIL("an allocation past the limit succeeded");
  } catch (const fusecl::Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("FUSECL_DEVICE_MEMORY_LIMIT"));
    CHECK_THAT(what, Contains("1 MiB"));         // the limit
    CHECK_THAT(what, Contains("1048576 bytes"));  // what is in use
  }
  c.reset();
  CHECK_NOTHROW(pool.allocate(512 * KiB));  // from the cache
  CHECK_THROWS_AS(pool.allocate(2 * MiB), fusecl::Error);  // one buffer larger than the limit
  CHECK(pool.bytes_in_use() + pool.bytes_cached() <= MiB);
}

TEST_CASE("peak_device_bytes is the most held at once, restarted by reset_stats", "[pool][opencl]") {
  BufferPool pool = make_pool(0);  // nothing cached: what is released is gone
  fusecl::reset_stats();
  const std::uint64_t base = fusecl::stats().peak_device_bytes;  // what other pools hold now
  {
    auto a = pool.allocate(3 * MiB);
    auto b = pool.allocate(MiB);
    CHECK(fusecl::stats().peak_device_bytes == base + 4 * MiB);
  }
  CHECK(fusecl::stats().peak_device_bytes == base + 4 * MiB);  // a peak stays
  auto c = pool.allocate(2 * MiB);
  CHECK(fusecl::stats().peak_device_bytes == base + 4 * MiB);
  fusecl::reset_stats();
  CHECK(fusecl::stats().peak_device_bytes == base + 2 * MiB);  // what is held at the reset
}
