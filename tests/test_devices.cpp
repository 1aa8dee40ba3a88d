// Devices as values: open_device, default_device, DeviceScope, arrays that
// know their device, lazy copies between devices, and the errors for mixing
// them. Two open_device handles on the same hardware are two contexts, so all
// of this runs on a machine with one device (PoCL); on a machine with more,
// "every device" below also pairs different hardware.
#include <fusecl/fusecl.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

using Catch::Matchers::Contains;

namespace {

std::vector<float> ramp(std::size_t n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = float(int(i % 97) - 48) * scale + offset;
  return v;
}

// The spec that picks the default device's hardware again (its "P:D").
std::string default_spec() { return fusecl::default_device().info().id(); }

}  // namespace

TEST_CASE("open_device gives independent handles, and copies are the same device", "[devices]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  const fusecl::Device copy = d1;
  CHECK(copy == d1);
  CHECK_FALSE(d1 == d2);
  CHECK_FALSE(d1 == fusecl::default_device());
  CHECK(fusecl::default_device() == fusecl::default_device());
  CHECK(d1.info().id() == fusecl::default_device().info().id());
  CHECK(d1.info().name == fusecl::device().name);
  // Messages must tell two contexts on one device apart.
  CHECK(d1.str() != d2.str());
  CHECK_THAT(d1.str(), Contains("open_device #"));
  CHECK_THAT(d1.str(), Contains(d1.info().name));
  CHECK_THAT(fusecl::default_device().str(), !Contains("open_device"));
  CHECK_THAT(d1.choice_reason(), Contains("open_device(\"" + default_spec() + "\")"));
}

TEST_CASE("open_device with a spec no device matches names the spec and lists the devices", "[devices]") {
  try {
    fusecl::open_device("no-such-device-anywhere");
    FAIL("open_device did not throw");
  } catch (const fusecl::Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("open_device(\"no-such-device-anywhere\")"));
    CHECK_THAT(what, Contains(fusecl::default_device().info().id()));  // the list of devices
  }
  CHECK_THROWS_WITH(fusecl::open_device("9:9"), Contains("there is no device 9:9"));
}

TEST_CASE("arrays live where they are made and operations stay there", "[devices]") {
  const fusecl::Device dev = fusecl::open_device(default_spec());
  const auto h = ramp(1000, 0.5f);
  auto x = fusecl::from_host(h, dev);
  auto y = fusecl::from_host(h, {10, 100}, dev);
  CHECK(x.device() == dev);
  CHECK(y.device() == dev);
  CHECK(fusecl::from_host(h).device() == fusecl::default_device());
  // Every generator takes the device last.
  CHECK(fusecl::zeros<float>({3}, dev).device() == dev);
  CHECK(fusecl::full<double>({3}, 2.5, dev).device() == dev);
  CHECK(fusecl::full<double>({}, 2.5, dev).device() == dev);  // 0-d
  CHECK(fusecl::arange<int>(0, 5, 1, dev).device() == dev);
  CHECK(fusecl::arange<int>(5, dev).device() == dev);
  CHECK(fusecl::linspace<float>(0, 1, 5, true, dev).device() == dev);
  CHECK(fusecl::eye<float>(3, std::nullopt, 0, dev).device() == dev);
  CHECK(fusecl::random::uniform<float>({4}, 1, dev).device() == dev);
  CHECK(fusecl::random::normal<double>({4}, 1, dev).device() == dev);

  auto z = fusecl::sqrt(fusecl::abs(x)) * 2.0f + fusecl::arange<float>(0, 1000, 1, dev);
  CHECK(z.device() == dev);
  CHECK(fusecl::transpose(y).device() == dev);
  CHECK(fusecl::sum(y, 1).device() == dev);
  CHECK(fusecl::concatenate({x, x}).device() == dev);
  const auto out = z.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(out[i] == std::sqrt(std::fabs(h[i])) * 2.0f + float(i));
  const auto rows = fusecl::sum(y.astype<double>(), 1).to_host();
  for (std::size_t r = 0; r < 10; ++r) {
    double e = 0;
    for (std::size_t c = 0; c < 100; ++c) e += double(h[r * 100 + c]);
    REQUIRE(rows[r] == e);
  }
  // The same random numbers on every device.
  CHECK(fusecl::random::uniform<float>({100}, 42, dev).to_host() == fusecl::random::uniform<float>({100}, 42).to_host());
}

TEST_CASE("an operation on arrays of two devices throws, naming both", "[devices]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  auto a = fusecl::from_host(ramp(16), d1);
  auto b = fusecl::from_host(ramp(16), d2);
  auto check_names_both = [&](auto&& f, const std::string& op, const fusecl::Device& other) {
    try {
      f();
      FAIL(op << " on two devices did not throw");
    } catch (const fusecl::Error& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Contains(op));
      CHECK_THAT(what, Contains(d1.str()));
      CHECK_THAT(what, Contains(other.str()));
      CHECK_THAT(what, Contains(".to("));
    }
  };
  check_names_both([&] { return a + b; }, "add", d2);
  check_names_both([&] { return fusecl::where(a > 0.0f, a, b); }, "where", d2);
  check_names_both([&] { return fusecl::fma(a, a, b); }, "fma", d2);
  check_names_both([&] { return fusecl::concatenate({a, b}); }, "concatenate", d2);
  check_names_both([&] { return a + fusecl::zeros<float>({16}); }, "add", fusecl::default_device());
  // Scalars belong to no device; the failed attempts changed nothing.
  CHECK((a + 1.0f).device() == d1);
  CHECK((a + 1.0f).to_host() == (fusecl::from_host(ramp(16)) + 1.0f).to_host());
}

TEST_CASE("to() copies lazily, once, through the host", "[devices]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  const auto h = ramp(4099, 0.25f);  // a vector tail
  auto x = fusecl::from_host(h, d1);
  CHECK(x.to(d1).node() == x.node());  // on its own device: itself

  const auto before = fusecl::stats();
  auto y = (x * 3.0f + 1.0f).to(d2);  // nothing runs yet
  CHECK(y.device() == d2);
  CHECK(fusecl::stats().kernels_launched == before.kernels_launched);
  CHECK(fusecl::stats().downloads == before.downloads);
  auto z = y - fusecl::arange<float>(0, 4099, 1, d2);
  const auto out = z.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(out[i] == h[i] * 3.0f + 1.0f - float(i));
  const auto after = fusecl::stats();
  // x * 3 + 1 on d1, the copy (one download, one upload), z on d2, z's download.
  CHECK(after.kernels_launched - before.kernels_launched == 2);
  CHECK(after.downloads - before.downloads == 2);
  CHECK(after.uploads - before.uploads == 1);
  // y holds its value now: using it again copies nothing.
  CHECK((y * 2.0f).to_host()[1] == (h[1] * 3.0f + 1.0f) * 2.0f);
  CHECK(fusecl::stats().uploads - after.uploads == 0);

  // A round trip, a reduction on one device used on the other, and empty arrays.
  auto back = fusecl::sum(y.astype<double>()).to(d1) + fusecl::zeros<double>({}, d1);
  double e = 0;
  for (float v : h) e += double(v * 3.0f + 1.0f);
  CHECK(back.to_host()[0] == Approx(e).epsilon(1e-12));
  CHECK(fusecl::Array<float>().to(d2).to_host().empty());
  CHECK(fusecl::from_host(std::vector<float>{}, d1).to(d2).size() == 0);
  CHECK(fusecl::kernel_source(fusecl::from_host(h, d1).to(d2)).find("no kernel") != std::string::npos);
}

TEST_CASE("DeviceScope sets this thread's default device, nested, and no other thread's", "[devices]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  const fusecl::Device process_default = fusecl::default_device();
  {
    const fusecl::DeviceScope outer(d1);
    CHECK(fusecl::default_device() == d1);
    CHECK(fusecl::from_host(ramp(4)).device() == d1);
    CHECK(fusecl::zeros<float>({4}).device() == d1);
    CHECK(fusecl::Array<float>().device() == d1);
    {
      const fusecl::DeviceScope inner(d2);
      CHECK(fusecl::default_device() == d2);
      CHECK(fusecl::arange<float>(4).device() == d2);
    }
    CHECK(fusecl::default_device() == d1);
    fusecl::Device seen_elsewhere;
    std::thread([&] { seen_elsewhere = fusecl::default_device(); }).join();
    CHECK(seen_elsewhere == process_default);
  }
  CHECK(fusecl::default_device() == process_default);
}

TEST_CASE("two devices used from two threads at once work independently", "[devices][threads]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  const auto before = fusecl::stats();
  std::atomic<int> wrong{0};
  auto work = [&](const fusecl::Device& dev, float k) {
    const fusecl::DeviceScope scope(dev);
    for (int i = 0; i < 100; ++i) {
      const auto h = ramp(std::size_t(100 + i), 1.0f, k);
      auto x = fusecl::from_host(h);
      const auto out = (fusecl::abs(x) * k + float(i)).to_host();
      for (std::size_t j = 0; j < h.size(); ++j)
        if (out[j] != std::fabs(h[j]) * k + float(i)) ++wrong;
      if (fusecl::max(x).to_host()[0] != *std::max_element(h.begin(), h.end())) ++wrong;
    }
  };
  std::thread t1(work, d1, 2.0f), t2(work, d2, 3.0f);
  t1.join();
  t2.join();
  CHECK(wrong == 0);
  // Each context builds (or loads from the disk cache) its own kernels: the
  // elementwise kernel and the max, once per device.
  const auto after = fusecl::stats();
  CHECK(after.programs_built + after.programs_loaded - before.programs_built - before.programs_loaded >= 2 * 2);
}

TEST_CASE("copies between two devices in both directions from two threads at once do not deadlock", "[devices][threads]") {
  const fusecl::Device d1 = fusecl::open_device(default_spec());
  const fusecl::Device d2 = fusecl::open_device(default_spec());
  const auto ha = ramp(300, 1.0f), hb = ramp(300, 2.0f);
  auto a = fusecl::from_host(ha, d1);
  auto b = fusecl::from_host(hb, d2);
  std::atomic<int> wrong{0};
  // Each thread's graph needs both devices' locks, taken in opposite orders
  // if taken naively.
  std::thread t1([&] {
    for (int i = 0; i < 100; ++i) {
      const auto out = ((a + float(i)).to(d2) * b).to_host();
      for (std::size_t j = 0; j < ha.size(); ++j)
        if (out[j] != (ha[j] + float(i)) * hb[j]) ++wrong;
    }
  });
  std::thread t2([&] {
    for (int i = 0; i < 100; ++i) {
      const auto out = ((b - float(i)).to(d1) + a).to_host();
      for (std::size_t j = 0; j < ha.size(); ++j)
        if (out[j] != (hb[j] - float(i)) + ha[j]) ++wrong;
    }
  });
  t1.join();
  t2.join();
  CHECK(wrong == 0);
}

TEST_CASE("every device on this machine in one process, with copies between each pair", "[devices]") {
  // On the GPU machine this pairs PoCL with the GPU; here it pairs two
  // contexts on PoCL with the default device.
  std::vector<fusecl::Device> devs{fusecl::default_device(), fusecl::open_device(default_spec())};
  for (const auto& info : fusecl::devices())
    if (info.id() != default_spec()) devs.push_back(fusecl::open_device(info.id()));
  const auto h = ramp(1000, 0.5f);
  for (const auto& from : devs)
    for (const auto& to : devs) {
      INFO(from.str() << " -> " << to.str());
      auto x = fusecl::from_host(h, from);
      auto y = (fusecl::exp2(x * 0.0f) + x).to(to) * 2.0f;  // exp2(0) = 1 exactly on any device
      CHECK(y.device() == to);
      const auto out = y.to_host();
      for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(out[i] == (1.0f + h[i]) * 2.0f);
    }
}

TEST_CASE("a graph reaching twelve devices takes every lock it needs and computes", "[devices]") {
  // More devices than a thread keeps its held locks for in place (eight):
  // the rest go to the overflow list, and all are released in order.
  std::vector<fusecl::Device> devs;
  for (int i = 0; i < 12; ++i) devs.push_back(fusecl::open_device(default_spec()));
  const auto h = ramp(257, 0.5f);
  fusecl::Array<float> acc = fusecl::from_host(h, devs[0]);
  for (std::size_t i = 1; i < devs.size(); ++i)  // one hop per device: a chain of copies through all twelve
    acc = (acc + fusecl::full<float>({257}, 1.0f, devs[i - 1])).to(devs[i]);
  const auto out = (acc * 2.0f).to_host();
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(out[i] == (h[i] + 11.0f) * 2.0f);
  // The locks are free again: another thread can use the first and last devices.
  std::thread t([&] { CHECK((fusecl::from_host(h, devs[11]) + fusecl::from_host(h, devs[11])).to_host()[3] == h[3] * 2); });
  t.join();
  CHECK(fusecl::from_host(h, devs[0]).to(devs[11]).to_host()[5] == h[5]);
}
