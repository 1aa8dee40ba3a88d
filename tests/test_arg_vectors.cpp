// argmin / argmax in vectors (render_reduce_vectors.cpp's arg_vectors;
// scheduler.cpp): on a CPU a work-item a row (or a part of a long one), each
// lane of its vector keeping its best value and that value's index, the
// lanes then met in halves, the elements past the last whole vector as one
// more vector; on a GPU's layout a row's work-items (several rows a group
// where they are short), met in local memory (in scalars for now). The
// answer must be NumPy's: the first index of the extreme value, or of the
// first NaN. Ties (few distinct values), NaN and both infinities sit in
// different lanes from row to row, some only in the tail; rows are long
// enough for vectors (a CPU's rows of up to two vectors take lanes,
// test_reduce_lanes), whole arrays split over groups, every dtype (1- and
// 2-byte integers and bool compared as int32: result_type.hpp's
// Accumulate::Int32Up). The layouts are a CPU's and an H200's
// (device_rows.hpp), set on any device's tuning; the results are checked
// against the host's.
#include "src/device_state.hpp"
#include "src/schedule.hpp"
#include "support/arg_values.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/random_inputs.hpp"
#include "support/schedule_run.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning cpu_tuning() {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  auto t = detail::tuning_of(dev);
  cpu_row_layout(t, true);
  return t;
}

// A GPU's (an H200's row layout, groups of 256 sharing short rows).
detail::DeviceTuning gpu_tuning() {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  auto t = h200_tuning(dev, 0, 1024);
  t.target_groups = 8;
  t.lane_rows = false;
  return t;
}

// argmax and argmin of x (rows of m of h) under a CPU's layout (or `t`),
// each in one kernel, against the host's; `vectors`: whether the plan must
// be in vectors.
template <class T>
void check_rows(const std::vector<T>& h, std::int64_t rows, std::int64_t m, bool vectors,
                const detail::DeviceTuning& t = cpu_tuning()) {
  const auto x = from_host(h, {rows, m});
  for (const bool is_max : {true, false}) {
    INFO((is_max ? "argmax" : "argmin") << " over " << rows << " rows of " << m);
    const auto y = is_max ? argmax(x, 1) : argmin(x, 1);
    const detail::Schedule s = run_with(y, t);
    REQUIRE(s.kernel_count() >= 1);
    const auto& plan = s.steps[0].kernel.plan;
    CHECK((plan.width > 1) == vectors);
    CHECK_FALSE(plan.reduce.row_lanes);
    const auto got = y.to_host();
    const auto want = first_extreme(h, m, is_max);
    REQUIRE(got.size() == want.size());
    for (std::size_t r = 0; r < got.size(); ++r) {
      REQUIRE_EACH(got[r] == want[r], "row " << r);
    }
  }
}

}  // namespace

TEST_CASE("argmin and argmax in vectors on a CPU: the first extreme or NaN, ties, tails", "[reduce][arg]") {
  const bool cpu = default_device().info().type == "CPU";
  std::vector<std::int64_t> lengths = {33, 100};
  if (cpu) lengths = {33, 47, 48, 64, 100, 255, 1000, 4099};
  for (const std::int64_t m : lengths)
    for (const std::int64_t rows : {1, 5, 37}) check_rows(planted_floats(rows, m, 0xa7 + std::uint64_t(m * 97 + rows)), rows, m, true);
}

// A GPU's layout takes arg-reductions in vectors too, over rows of 8
// vectors or more (scheduler.cpp says why); kGpuVectors is what its plans
// over such rows must take.
constexpr bool kGpuVectors = true;

// Every dtype over `rows` rows of m (m > 17) under `t`: integers of every
// size with ties, each type's extremes at row-dependent places (so in
// different lanes), twice in some rows (the first wins), once only in the
// tail; float64 with NaN (one in row 3's tail) and both infinities; bool
// with rows of no true and a row of all true. `vectors`: whether the plans
// must be in vectors.
namespace {
void check_every_dtype(std::int64_t rows, std::int64_t m, std::uint64_t seed, bool vectors, const detail::DeviceTuning& t) {
  const std::size_t N = std::size_t(rows * m);
  auto [i32, i64, u32, u64, i8, u8, i16, u16, f64] = arg_values(N, seed);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::size_t a = std::size_t(r * m + (r * 7 + 2) % m), b = std::size_t(r * m + (r * 5 + 11) % m);
    const std::size_t tail = std::size_t(r * m + m - 1);
    if (r % 3 == 0) {
      i8[a] = 127, i8[b] = -128, u8[a] = 255, u8[b] = 0, i16[a] = 32767, i16[b] = -32768, u16[a] = 65535, u16[b] = 0;
    } else if (r % 3 == 1) {
      i8[a] = i8[b] = -128, u8[a] = u8[b] = 255, i16[a] = i16[b] = 32767, u16[a] = u16[b] = 0;
    } else {
      i8[tail] = 127, u8[tail] = 0, i16[tail] = -32768, u16[tail] = 65535;
    }
  }
  f64[5] = std::numeric_limits<double>::quiet_NaN();  // row 0, lane 5
  f64[std::size_t(m) + 17] = std::numeric_limits<double>::infinity();
  f64[std::size_t(2 * m) + 3] = -std::numeric_limits<double>::infinity();
  f64[std::size_t(3 * m + m - 2)] = std::numeric_limits<double>::quiet_NaN();  // in row 3's tail
  check_rows(i32, rows, m, vectors, t);
  check_rows(i64, rows, m, vectors, t);
  check_rows(u32, rows, m, vectors, t);
  check_rows(u64, rows, m, vectors, t);
  check_rows(i8, rows, m, vectors, t);
  check_rows(u8, rows, m, vectors, t);
  check_rows(i16, rows, m, vectors, t);
  check_rows(u16, rows, m, vectors, t);
  if (default_device().info().fp64) check_rows(f64, rows, m, vectors, t);
  // bool: the first true (argmax) or false (argmin).
  std::vector<std::uint8_t> bits(N, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < m; ++k)
      if (r % 4 != 0 && (k * 31 + r * 17) % 23 == 0) bits[std::size_t(r * m + k)] = 1;
  for (std::int64_t k = 0; k < m; ++k) bits[std::size_t(1 * m + k)] = 1;  // row 1: all true
  const auto x = from_host(bits, {rows, m}) != std::uint8_t(0);
  for (const bool is_max : {true, false}) {
    INFO("bool, " << (is_max ? "argmax" : "argmin") << " over rows of " << m);
    const auto y = is_max ? argmax(x, 1) : argmin(x, 1);
    CHECK((run_with(y, t).steps.back().kernel.plan.width > 1) == vectors);
    CHECK(y.to_host() == first_extreme(bits, m, is_max));
  }
}
}  // namespace

TEST_CASE("argmin and argmax on a GPU's layout: several rows a group, tails, NaN, every dtype", "[reduce][arg]") {
  const auto t = gpu_tuning();
  for (const std::int64_t m : {17, 47, 257, 4099})
    for (const std::int64_t rows : {1, 37})
      check_rows(planted_floats(rows, m, 0xe1 + std::uint64_t(m * 31 + rows)), rows, m, kGpuVectors && m >= 8 * 4, t);
  check_every_dtype(45, 101, 0xe7, kGpuVectors, t);
  // A whole array over several groups (parts met by a second step).
  auto h = planted_floats(1, 300001, 0xe9);
  for (auto& v : h)
    if (std::isnan(v) || std::isinf(v)) v = 1.0f;
  h[77777] = 9.0f, h[200000] = 9.0f, h[299999] = -9.0f;
  const auto x = from_host(h, {300001});
  const auto a = argmax(x), b = argmin(x);
  CHECK((run_with(a, t).steps[0].kernel.plan.width > 1) == kGpuVectors);
  (void)run_with(b, t);
  CHECK(a.to_host()[0] == 77777);
  CHECK(b.to_host()[0] == 299999);
}

TEST_CASE("argmin and argmax in vectors on a CPU: float64, integers of every size, bool", "[reduce][arg]") {
  const bool cpu = default_device().info().type == "CPU";
  for (const std::int64_t m : {33, 200}) {
    if (!cpu && m != 33) continue;
    check_every_dtype(21, m, 0xb0 + std::uint64_t(m), true, cpu_tuning());
  }
}

TEST_CASE("argmin and argmax in vectors on a CPU: whole arrays over several groups, 3-D", "[reduce][arg]") {
  const auto t = cpu_tuning();
  for (const std::int64_t n : {std::int64_t(70001), std::int64_t(1) << 18}) {
    auto h = planted_floats(1, n, 0xc1 + std::uint64_t(n));
    for (auto& v : h)
      if (std::isnan(v) || std::isinf(v)) v = 1.0f;
    h[std::size_t(n / 3)] = 9.0f, h[std::size_t(n / 2)] = 9.0f;  // two maxima apart: the first
    h[std::size_t(n - 2)] = -9.0f;                              // the minimum near the end
    for (const bool nan : {false, true}) {
      if (nan) h[std::size_t(n / 2 + 17)] = std::numeric_limits<float>::quiet_NaN(), h[std::size_t(n - 1)] = std::numeric_limits<float>::quiet_NaN();
      INFO(n << " elements" << (nan ? ", NaN at n / 2 + 17 and n - 1" : ""));
      const auto x = from_host(h, {n});
      const auto a = argmax(x), b = argmin(x);
      const detail::Schedule s = run_with(a, t);
      CHECK(s.steps[0].kernel.plan.width > 1);
      (void)run_with(b, t);
      CHECK(a.to_host()[0] == (nan ? n / 2 + 17 : n / 3));
      CHECK(b.to_host()[0] == (nan ? n / 2 + 17 : n - 2));
    }
  }
  // 3-D, the last axis: rows of 40.
  const auto h = planted_floats(6 * 7, 40, 0xd3);
  const auto x = from_host(h, {6, 7, 40});
  const auto y = argmax(x, 2);
  (void)run_with(y, t);
  const auto got = y.to_host();
  CHECK(got == first_extreme(h, 40, true));
}
