// FUSECL_DEVICE_MEMORY_LIMIT as a user meets it: a device opened with a
// small limit (a laptop card's memory, scaled down) computes what fits, and
// what does not fit fails with a message naming the sizes, never an OpenCL
// out-of-resources failure; the device is still usable afterwards.
#include <fusecl/fusecl.hpp>

#include "support/memory_limit.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using Catch::Matchers::Contains;

namespace {

constexpr std::uint64_t MiB = 1024 * 1024;

}  // namespace

TEST_CASE("a device with a 64M limit computes what fits and refuses the rest clearly", "[memory_limit][devices]") {
  const fusecl::Device dev = fusecl_test::open_with_limit("64M");
  fusecl::reset_stats();
  const std::uint64_t held_elsewhere = fusecl::stats().peak_device_bytes;

  const std::size_t n = 6 * MiB / 4;  // 6 MiB of floats
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = float(i % 1000) * 0.5f;
  auto x = fusecl::from_host(h, dev);
  auto y = fusecl::sqrt(x * x + 1.0f) - x;  // one kernel, one 6 MiB result
  const auto out = y.to_host();
  for (std::size_t i = 0; i < n; i += 4099) REQUIRE(out[i] == Approx(std::sqrt(h[i] * h[i] + 1.0f) - h[i]));
  CHECK(fusecl::stats().peak_device_bytes - held_elsewhere <= 64 * MiB);

  // Ten arrays of 6 MiB held at once pass the limit: the eleventh fails.
  std::vector<fusecl::Array<float>> held;
  try {
    for (int i = 0; i < 11; ++i) {
      held.push_back(x + float(i));
      fusecl::eval(held.back());
    }
    FAIL("eleven 6 MiB arrays fit under a 64 MiB limit");
  } catch (const fusecl::Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("FUSECL_DEVICE_MEMORY_LIMIT"));
    CHECK_THAT(what, Contains("64 MiB"));
    CHECK_THAT(what, Contains("in use"));
  }
  CHECK(fusecl::stats().peak_device_bytes - held_elsewhere <= 64 * MiB);

  // An array larger than the limit: refused before the driver is asked.
  const std::vector<float> big(80 * MiB / 4, 1.0f);
  CHECK_THROWS_WITH(fusecl::from_host(big, dev), Contains("80 MiB") && Contains("FUSECL_DEVICE_MEMORY_LIMIT"));

  // Released arrays give their memory back: the device works as before.
  held.clear();
  double expected = 0;
  for (float v : h) expected += v;
  CHECK(fusecl::sum(x).to_host()[0] == Approx(expected).epsilon(1e-5));
  CHECK(fusecl::stats().peak_device_bytes - held_elsewhere <= 64 * MiB);
}

TEST_CASE("a malformed FUSECL_DEVICE_MEMORY_LIMIT warns and leaves the device's memory as the limit", "[memory_limit][devices]") {
  // Only that it opens and works: the warning's text is checked in [pool].
  const fusecl::Device dev = fusecl_test::open_with_limit("lots");
  CHECK((fusecl::ones<float>({1000}, dev) * 2.0f).to_host()[999] == 2.0f);
}
