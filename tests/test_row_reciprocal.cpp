// Division by a row's value through its reciprocal (codegen/reciprocal.hpp,
// ReduceSpec::row_reciprocal): the quotient must be IEEE's, bit for bit, in
// every layout a row kernel takes, for dividends and divisors of every kind:
// in the reciprocal's range and out of it (tiny, huge, subnormal), zeros of
// both signs, infinities and NaN, a different kind in every lane of a
// vector. Softmax and layer norm must give the same bits with and without
// it. The layouts are a GPU's, set here, so the test runs on any device
// whose float division is correctly rounded and whose fma is in hardware.
#include "codegen/reciprocal.hpp"
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();

// The layouts a row kernel takes, as the tuning that gives each.
struct Layout {
  const char* name;
  std::function<void(detail::DeviceTuning&)> set;
};

std::vector<Layout> layouts() {
  auto gpu = [](detail::DeviceTuning& t) {  // an H200's, not split
    h200_row_layout(t, 0, 1024);
    t.row_split = 0;
  };
  return {
      {"this device's own", [](detail::DeviceTuning&) {}},
      {"a GPU's, rows in registers", gpu},
      {"a GPU's, long rows deep in registers", [gpu](detail::DeviceTuning& t) { gpu(t), t.row_held_bytes = 256; }},
      {"a GPU's, looping over rows", [gpu](detail::DeviceTuning& t) { gpu(t), t.row_register_elements = 2, t.row_group_cap = 16; }},
      {"a GPU's, rows split over segments",
       [gpu](detail::DeviceTuning& t) { gpu(t), t.row_split = 2, t.row_segment = 64, t.row_column_segment = 16, t.target_groups = 4; }},
  };
}

// Runs y's schedule with `layout` and the reciprocal on or off; whether some
// row kernel divided through it.
bool run(const Array<float>& y, const Layout& layout, bool reciprocal) {
  const auto node = y.node();
  const detail::GraphLock lock{node.get()};
  auto t = detail::tuning_of(*node->device);
  layout.set(t);
  t.row_reciprocal = reciprocal;
  detail::Schedule s = detail::make_schedule({node}, t);
  bool used = false;
  for (const auto& st : s.steps)
    if (st.kind == detail::ScheduleStep::Kind::Kernel && st.kernel.plan.reduce.row_reciprocal) {
      const std::string src = codegen::render(st.kernel.plan, codegen::kernel_name(st.kernel.plan));
      CHECK(src.find("fcl_rdiv_") != std::string::npos);
      CHECK(src.find(codegen::reciprocal_redo("rq_")) != std::string::npos);
      used = true;
    }
  detail::run_schedule(*node->device, s);
  return used;
}

bool same_bits(float a, float b) { return std::isnan(a) ? std::isnan(b) : std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

// A float of every kind, picked by `kind`: random significands at random
// exponents over the whole range (in the reciprocal's range and out of it),
// and the edges.
float dividend(std::mt19937_64& rng, unsigned kind) {
  auto bits = [&](int lo_exp, int hi_exp) {
    const std::uint32_t e = std::uint32_t(std::uniform_int_distribution<int>(lo_exp, hi_exp)(rng) + 127);
    return std::bit_cast<float>((std::uint32_t(rng() & 1) << 31) | (e << 23) | std::uint32_t(rng() & 0x7fffff));
  };
  switch (kind % 16) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return inf;
    case 3: return -inf;
    case 4: return std::numeric_limits<float>::quiet_NaN();
    case 5: return std::bit_cast<float>(std::uint32_t(rng() & 0x807fffff) | 1u);  // subnormal
    case 6: return (rng() & 1 ? -1.0f : 1.0f) * FLT_MAX;
    case 7: return (rng() & 1 ? -1.0f : 1.0f) * FLT_MIN;
    case 8: case 13: return bits(-126, -80);  // about where quotients leave the range at its low end
    case 9: return bits(80, 127);   // and at its high end
    case 10: case 11: return bits(-126, 127);
    default: return bits(-3, 3);    // what most data looks like
  }
}

}  // namespace

TEST_CASE("row reciprocal: x / max(w) is IEEE's quotient in every layout, for every kind of dividend and divisor",
          "[row][reciprocal]") {
  if (!device().correctly_rounded_sqrt || !device().fma) {
    WARN(device().name << ": float division not correctly rounded or no fma in hardware; the reciprocal form is not used");
    return;
  }
  // One divisor a row (every element of w's row is it, so max(w) is it):
  // inside the range, at its edges, past them, and the special values.
  // Near the low edge, divisors that are not powers of two (those divide
  // exactly) meet the lowest normal dividends: quotients just under the
  // range's low end, where r would not be exact.
  const std::vector<float> divisors{1.0f,        3.0f,       -7.25f,          0.1f,         1e4f,
                                    0x1p-16f,    0x1.8p-16f, -0x1.4p-16f,     0x1.fffffep-17f, 0x1p125f,
                                    0x1.8p124f,  0x1.000002p125f, 1e-30f,     1e30f,        1e-40f,
                                    0.0f,        -0.0f,      inf,             -inf,         std::numeric_limits<float>::quiet_NaN(),
                                    FLT_MAX,     -FLT_MIN,   1234.5678f};
  const std::int64_t n = std::int64_t(divisors.size());
  std::mt19937_64 rng(test_seed(0x7ec1));
  for (const Layout& layout : layouts())
    for (const std::int64_t m : {1, 3, 17, 1000, 4099})
      for (int axis = 0; axis < 2; ++axis) {
        INFO(layout.name << " layout, rows of " << m << " along axis " << axis);
        const Dims d = axis == 1 ? Dims{n, m} : Dims{m, n};
        std::vector<float> x(std::size_t(n * m)), w(x.size());
        for (std::int64_t r = 0; r < n; ++r)
          for (std::int64_t j = 0; j < m; ++j) {
            const std::size_t at = std::size_t(axis == 1 ? r * m + j : j * n + r);
            // Kinds change from lane to lane, and from row to row.
            x[at] = dividend(rng, unsigned(rng() % 4 == 0 ? rng() : std::uint64_t(j * 7 + r)));
            w[at] = divisors[std::size_t(r)];
          }
        const auto xa = from_host(x, Shape(d)), wa = from_host(w, Shape(d));
        const auto y = xa / max(wa, axis, true);
        CHECK(run(y, layout, true));
        const auto got = y.to_host();
        for (std::int64_t r = 0; r < n; ++r)
          for (std::int64_t j = 0; j < m; ++j) {
            const std::size_t at = std::size_t(axis == 1 ? r * m + j : j * n + r);
            const float want = x[at] / divisors[std::size_t(r)];
            INFO("x " << x[at] << " (" << std::hexfloat << x[at] << "), divisor " << divisors[std::size_t(r)] << ", got " << got[at]
                      << ", want " << want << std::defaultfloat);
            REQUIRE(same_bits(got[at], want));
          }
      }
}

TEST_CASE("row reciprocal: softmax and layer norm give the same bits with and without it", "[row][reciprocal]") {
  if (!device().correctly_rounded_sqrt || !device().fma) {
    WARN(device().name << ": float division not correctly rounded or no fma in hardware; the reciprocal form is not used");
    return;
  }
  const std::vector<std::function<Array<float>(const Array<float>&, int)>> exprs{
      [](const Array<float>& x, int a) {
        const auto e = exp(x - max(x, a, true));
        return e / sum(e, a, true);
      },
      [](const Array<float>& x, int a) { return (x - mean(x, a, true)) / sqrt(var(x, a, true) + 1e-5f); },
      [](const Array<float>& x, int a) { return x / sum(abs(x), a, true); }};
  std::mt19937_64 rng(test_seed(0x7ec2));
  for (const Layout& layout : layouts())
    for (const std::int64_t m : {3, 1000, 4099})
      for (int axis = 0; axis < 2; ++axis) {
        const std::int64_t n = 9;
        const Dims d = axis == 1 ? Dims{n, m} : Dims{m, n};
        std::vector<float> x(std::size_t(n * m));
        for (std::int64_t r = 0; r < n; ++r)
          for (std::int64_t j = 0; j < m; ++j) {
            const std::size_t at = std::size_t(axis == 1 ? r * m + j : j * n + r);
            // Row r's spread: softmax's exp underflows to subnormals and to
            // zero where it is wide (quotients out of the range: the IEEE
            // pass); a masked row (-inf), and a row of tiny values (the
            // layer norm's deviation below 2^-12).
            const double spread = r < 3 ? 4.0 : r < 6 ? 60.0 : 200.0;
            x[at] = float(std::uniform_real_distribution<double>(-spread, spread)(rng));
            if (r == 4 && j % 5 == 2) x[at] = -inf;
            if (r == 7) x[at] *= 1e-9f;
          }
        const auto xa = from_host(x, Shape(d));
        for (std::size_t e = 0; e < exprs.size(); ++e) {
          INFO(layout.name << " layout, expression " << e << ", rows of " << m << " along axis " << axis);
          const auto on = exprs[e](xa, axis), off = exprs[e](xa, axis);
          CHECK(run(on, layout, true));
          CHECK_FALSE(run(off, layout, false));
          const auto a = on.to_host(), b = off.to_host();
          for (std::size_t i = 0; i < a.size(); ++i) {
            REQUIRE_EACH(same_bits(a[i], b[i]), "element " << i << ": x " << x[i] << ", with " << a[i] << ", without " << b[i]);
          }
        }
      }
}

TEST_CASE("row reciprocal: only divisions by a row's value, only float32, only where the plan sets it", "[row][reciprocal]") {
  const auto x = from_host(std::vector<float>(4 * 64, 1.0f), {4, 64});
  const auto xd = from_host(std::vector<double>(4 * 64, 1.0), {4, 64});
  auto marked = [](const auto& y) {
    const auto node = y.node();
    const detail::GraphLock lock{node.get()};
    auto t = detail::tuning_of(*node->device);
    t.row_reciprocal = true;
    const detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() == 1);
    return s.steps[0].kernel.plan.reduce.row_reciprocal;
  };
  CHECK(marked(x / sum(x, 1, true)));
  CHECK(marked(x / (sum(x, 1, true) * 2.0f + 1.0f)));  // any value of the row's reductions and scalars
  CHECK_FALSE(marked(x - max(x, 1, true)));            // no division
  CHECK_FALSE(marked(sum(x, 1, true) / x));            // the divisor differs along the row
  CHECK_FALSE(marked(x / x * sum(x, 1, true)));
  if (device().fp64) CHECK_FALSE(marked(xd / sum(xd, 1, true)));  // float64 divides as IEEE does
}

TEST_CASE("row reciprocal: every quotient its range test accepts is IEEE's (the kernel's steps, on the host)", "[reciprocal]") {
  // The helper's steps in host float arithmetic (one rounding each, fma
  // exact before its one): wherever the range test passes, the quotient
  // must be the IEEE one. Devices may differ in what they do past the
  // range (a device that flushes subnormals to zero may still be right
  // there), so the range itself is checked here, where IEEE subnormals are
  // certain: near the low end, quotients just under the range are wrong
  // this way one time in a few hundred, and must fail the test.
  std::mt19937_64 rng(test_seed(0x7ec3));
  auto divide = [](float a, float b, bool* accepted) {
    const float lo = std::ldexp(1.0f, codegen::kReciprocalDivisorLow), hi = std::ldexp(1.0f, codegen::kReciprocalDivisorHigh);
    const float z = std::fabs(b) >= lo && std::fabs(b) <= hi ? 1.0f / b : std::numeric_limits<float>::quiet_NaN();
    const float q = a * z, q1 = std::fma(std::fma(-q, b, a), z, q);
    *accepted = (std::bit_cast<std::uint32_t>(q1) << 1) - codegen::kReciprocalLow <= codegen::kReciprocalSpan;
    return q1;
  };
  std::uint64_t accepted_count = 0, refused_count = 0;
  for (int i = 0; i < 4000000; ++i) {
    // Divisors across the whole range and past it; dividends from the
    // lowest normals up, and every other kind now and then.
    const float b = std::bit_cast<float>((std::uint32_t(rng() & 1) << 31) |
                                         (std::uint32_t(std::uniform_int_distribution<int>(-40, 127)(rng) + 127) << 23) |
                                         std::uint32_t(rng() & 0x7fffff));
    const float a = i % 8 == 0 ? dividend(rng, unsigned(rng()))
                               : std::bit_cast<float>((std::uint32_t(std::uniform_int_distribution<int>(-126, 127)(rng) + 127) << 23) |
                                                      std::uint32_t(rng() & 0x7fffff));
    bool accepted = false;
    const float q1 = divide(a, b, &accepted);
    (accepted ? accepted_count : refused_count) += 1;
    if (!accepted) continue;
    const float want = a / b;
    INFO(std::hexfloat << a << " / " << b << ": " << q1 << ", want " << want);
    REQUIRE(same_bits(q1, want));
  }
  CHECK(accepted_count > (accepted_count + refused_count) / 4);  // the range is much of what comes
  // The low end's hard cases: the lowest normal dividends by divisors just
  // inside the range and just under it, which are not powers of two.
  for (const float b : {0x1.8p-16f, 0x1.555556p-16f, 0x1.fffffep-16f, 0x1.99999ap-4f, 0x1.555556p-20f, 0x1.99999ap-24f, 0x1.555556p-28f})
    for (int i = 0; i < 400000; ++i) {
      // Quotients about the range's low end, 2^-85 (and the lowest normal
      // dividends, where they come lower).
      const float target = std::bit_cast<float>((std::uint32_t(std::uniform_int_distribution<int>(-88, -80)(rng) + 127) << 23) |
                                                 std::uint32_t(rng() & 0x7fffff));
      const float a = std::max(target * b, FLT_MIN) * (i % 2 ? 1.0f : 1.0f + 0x1p-23f * float(rng() % 64));
      bool accepted = false;
      const float q1 = divide(a, b, &accepted);
      if (!accepted) continue;
      INFO(std::hexfloat << a << " / " << b << ": " << q1 << ", want " << a / b);
      REQUIRE(same_bits(q1, a / b));
    }
}
