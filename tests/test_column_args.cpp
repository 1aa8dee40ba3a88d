// argmin / argmax down columns in vectors of outputs (scheduler.cpp's
// column_vectors, render_reduce.cpp's column_block): each lane of a
// work-item's vector is one output, keeping its best value and that value's
// row; a group's rows then meet lane by lane in local memory, and a split
// range's parts in a second kernel. The answer must be NumPy's: the first
// row of the extreme value, or of the first NaN. Every column plants its
// own NaN (one, two, or only in the last row), infinities, ties and
// all-infinite runs at its own rows, so that neighbouring lanes disagree;
// widths that leave a last vector past the outputs, a view whose rows are
// apart and offset, the reduced axis in the middle, every dtype. The
// layouts are a CPU's and a GPU's (32 x 8 work-items a group, 16-byte
// vectors), set on any device's tuning; the results are checked against the
// host's.
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
#include <random>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceTuning layout(bool gpu) {
  auto& dev = *from_host(std::vector<float>{0.f}, {1}).node()->device;
  if (gpu) return gpu_column_tuning(dev);
  auto t = detail::tuning_of(dev);
  cpu_row_layout(t, true);
  t.column_items = 1;  // launch.cpp: every CPU
  t.column_rows = 1;
  t.column_one_wave = false;
  return t;
}

struct Expect {
  bool vectors = true;  // the plan must be column blocks in vectors of outputs (else must not be)
  int kernels = 0;      // the kernels y launches (0: not checked)
};

// argmax and argmin of x (values h in C order of shape (A, M, B), M the
// reduced axis `axis` of x) under t, against the host's.
template <class T>
void check(const Array<T>& x, const std::vector<T>& h, std::int64_t A, std::int64_t M, std::int64_t B, int axis,
           const detail::DeviceTuning& t, Expect want) {
  for (const bool is_max : {true, false}) {
    INFO((is_max ? "argmax" : "argmin") << " over " << M << " rows of " << A << " x " << B << " outputs, axis " << axis);
    const auto y = is_max ? argmax(x, axis) : argmin(x, axis);
    reset_stats();
    const detail::Schedule s = run_with(y, t);
    const auto launched = stats().kernels_launched;
    REQUIRE(s.kernel_count() >= 1);
    const auto& plan = s.steps[0].kernel.plan;
    CHECK((plan.reduce.strategy == codegen::ReduceStrategy::ColumnBlock && plan.reduce.kept_inner) == want.vectors);
    if (want.vectors) CHECK(plan.width > 1);
    // A GPU's 4-byte values: twice the rows a group (scheduler.cpp).
    if (want.vectors && t.column_rows > 1 && std::size_t(t.column_items) * std::size_t(t.column_rows) * 2 <= t.max_work_group_size)
      CHECK(int(plan.reduce.column_rows) == t.column_rows * (sizeof(T) == 4 ? 2 : 1));
    // A split range's second kernel is added at launch (launch.cpp's combine_kernel).
    if (want.kernels > 0) CHECK(launched == std::uint64_t(want.kernels));
    if (want.kernels == 2) CHECK(plan.reduce.two_stage);
    const auto got = y.to_host();
    const auto ref = first_extreme(h, A, M, B, is_max);
    REQUIRE(got.size() == ref.size());
    for (std::size_t o = 0; o < got.size(); ++o) REQUIRE_EACH(got[o] == ref[o], "output " << o);
  }
}

// M x B floats of few distinct values (ties everywhere); column c plants
// its own: +inf or -inf at a row of its own, one NaN, two NaN (the first
// wins), NaN only in the last row, a run of -inf from the first row (all
// of the column where c % 13 == 12), ±0.
std::vector<float> planted_columns(std::int64_t M, std::int64_t B, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> h(std::size_t(M * B));
  for (auto& v : h) v = float(std::int64_t(rng() % 7) - 3);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto at = [&](std::int64_t k, std::int64_t c) -> float& { return h[std::size_t((k % M) * B + c)]; };
  for (std::int64_t c = 0; c < B; ++c) {
    if (c % 5 == 1) at(c * 7 + 3, c) = inf;
    if (c % 5 == 2) at(c * 11 + 1, c) = -inf;
    if (c % 7 == 3) at(c * 13, c) = nan;
    if (c % 7 == 4) at(c * 3 + 5, c) = nan, at(c * 5 + 2, c) = nan;
    if (c % 9 == 6) at(M - 1, c) = nan;
    if (c % 4 == 0) at(c, c) = -0.0f, at(c + 9, c) = 0.0f;
    if (c % 13 == 12)
      for (std::int64_t k = 0; k < M; ++k) at(k, c) = -inf;
    if (c % 11 == 10) at(M - 1, c) = 100.0f;  // the maximum only in the last row
  }
  return h;
}

}  // namespace

TEST_CASE("argmin and argmax down columns in vectors: NaN, infinities and ties in every lane, tails of outputs", "[reduce][arg][columns]") {
  for (const bool gpu : {false, true}) {
    const auto t = layout(gpu);
    INFO((gpu ? "a GPU's layout" : "a CPU's layout"));
    for (const std::int64_t M : {17, 100, 1001})
      for (const std::int64_t B : {1, 3, 16, 37, 130, 257}) {
        const auto h = planted_columns(M, B, 0x5c + std::uint64_t(M * 1009 + B));
        // One output is no vector (the width would be all tail).
        check(from_host(h, {M, B}), h, 1, M, B, 0, t, {B > 1, 0});
      }
  }
}

TEST_CASE("argmin and argmax down columns: ranges split over groups, met in a second kernel", "[reduce][arg][columns]") {
  // Few blocks of outputs over long columns: each block's rows split into
  // parts (scheduler.cpp's split_column_blocks), the parts' best values and
  // rows met by a work-item per output. Ties and NaN across the parts'
  // boundaries: the first row still wins.
  for (const bool gpu : {false, true}) {
    const auto t = layout(gpu);
    const std::int64_t M = 4096, B = gpu ? 200 : 40;
    auto h = planted_columns(M, B, 0x77 + std::uint64_t(B));
    for (std::int64_t c = 0; c < B; c += 3) h[std::size_t((M - 1 - c) * B + c)] = 50.0f, h[std::size_t((M / 2 + c) * B + c)] = 50.0f;
    INFO((gpu ? "a GPU's layout" : "a CPU's layout"));
    check(from_host(h, {M, B}), h, 1, M, B, 0, t, {true, 2});
  }
}

TEST_CASE("argmin and argmax down columns: a view with rows apart, the reduced axis in the middle, a transposed input", "[reduce][arg][columns]") {
  for (const bool gpu : {false, true}) {
    const auto t = layout(gpu);
    INFO((gpu ? "a GPU's layout" : "a CPU's layout"));
    {  // columns 2 .. B + 1 of a wider array: rows B + 5 apart, offset 2
      const std::int64_t M = 300, B = 64, wide = B + 5;
      const auto base = planted_columns(M, wide, 0x91);
      std::vector<float> h;
      for (std::int64_t k = 0; k < M; ++k)
        for (std::int64_t c = 2; c < B + 2; ++c) h.push_back(base[std::size_t(k * wide + c)]);
      const auto x = slice(from_host(base, {M, wide}), 1, 2, B + 2);
      check(x, h, 1, M, B, 0, t, {true, 0});
    }
    {  // (A, M, B) along M, and (M, A, B) along the first axis
      const std::int64_t A = 3, M = 300, B = 40;
      const auto h = planted_columns(A * M, B, 0x93);
      check(from_host(h, {A, M, B}), h, A, M, B, 1, t, {true, 0});
      check(from_host(h, {A * M, 5, 8}), h, 1, A * M, B, 0, t, {true, 0});
    }
    {  // a transposed input: its loads are neighbours along the reduced axis, not the outputs'
      const std::int64_t M = 200, B = 48;
      const auto h = planted_columns(M, B, 0x95);
      std::vector<float> ht(h.size());
      for (std::int64_t k = 0; k < M; ++k)
        for (std::int64_t c = 0; c < B; ++c) ht[std::size_t(c * M + k)] = h[std::size_t(k * B + c)];
      check(transpose(from_host(ht, {B, M})), h, 1, M, B, 0, t, {false, 1});
    }
  }
}

namespace {
// Every dtype down M x B columns under t: integers of every size with ties
// and each type's extremes at column-dependent rows (twice in some columns:
// the first wins; only in the last row in others), float64 with NaN and
// both infinities in different lanes, bool with columns of no true and a
// column of all true.
void check_every_dtype(std::int64_t M, std::int64_t B, std::uint64_t seed, const detail::DeviceTuning& t) {
  const std::size_t N = std::size_t(M * B);
  auto [i32, i64, u32, u64, i8, u8, i16, u16, f64] = arg_values(N, seed);
  for (std::int64_t c = 0; c < B; ++c) {
    const std::size_t a = std::size_t(((c * 7 + 2) % M) * B + c), b = std::size_t(((c * 5 + 11) % M) * B + c);
    const std::size_t last = std::size_t((M - 1) * B + c);
    if (c % 3 == 0) {
      i8[a] = 127, i8[b] = -128, u8[a] = 255, u8[b] = 0, i16[a] = 32767, i16[b] = -32768, u16[a] = 65535, u16[b] = 0;
      i32[a] = std::numeric_limits<std::int32_t>::max(), i32[b] = std::numeric_limits<std::int32_t>::min();
      u64[a] = std::numeric_limits<std::uint64_t>::max(), u64[b] = 0;
    } else if (c % 3 == 1) {
      i8[a] = i8[b] = -128, u8[a] = u8[b] = 255, i16[a] = i16[b] = 32767, u16[a] = u16[b] = 0;
      i64[a] = i64[b] = std::numeric_limits<std::int64_t>::min();
    } else {
      i8[last] = 127, u8[last] = 0, i16[last] = -32768, u16[last] = 65535, u32[last] = 0xffffffffu;
    }
    if (c % 4 == 1) f64[a] = std::numeric_limits<double>::quiet_NaN();
    if (c % 4 == 2) f64[b] = std::numeric_limits<double>::infinity();
    if (c % 4 == 3) f64[last] = -std::numeric_limits<double>::infinity(), f64[a] = std::numeric_limits<double>::quiet_NaN();
  }
  check(from_host(i32, {M, B}), i32, 1, M, B, 0, t, {true, 0});
  check(from_host(i64, {M, B}), i64, 1, M, B, 0, t, {true, 0});
  check(from_host(u32, {M, B}), u32, 1, M, B, 0, t, {true, 0});
  check(from_host(u64, {M, B}), u64, 1, M, B, 0, t, {true, 0});
  check(from_host(i8, {M, B}), i8, 1, M, B, 0, t, {true, 0});
  check(from_host(u8, {M, B}), u8, 1, M, B, 0, t, {true, 0});
  check(from_host(i16, {M, B}), i16, 1, M, B, 0, t, {true, 0});
  check(from_host(u16, {M, B}), u16, 1, M, B, 0, t, {true, 0});
  if (default_device().info().fp64) check(from_host(f64, {M, B}), f64, 1, M, B, 0, t, {true, 0});
  // bool: the first true (argmax) or false (argmin); column 1 all true.
  std::vector<std::uint8_t> bits(N, 0);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t c = 0; c < B; ++c)
      if (c == 1 || (c % 4 != 0 && (k * 31 + c * 17) % 23 == 0)) bits[std::size_t(k * B + c)] = 1;
  const auto x = from_host(bits, {M, B}) != std::uint8_t(0);
  for (const bool is_max : {true, false}) {
    INFO("bool, " << (is_max ? "argmax" : "argmin"));
    const auto y = is_max ? argmax(x, 0) : argmin(x, 0);
    (void)run_with(y, t);
    CHECK(y.to_host() == first_extreme(bits, 1, M, B, is_max));
  }
}
}  // namespace

TEST_CASE("argmin and argmax down columns in vectors: integers of every size, float64, bool", "[reduce][arg][columns]") {
  for (const bool gpu : {false, true}) {
    INFO((gpu ? "a GPU's layout" : "a CPU's layout"));
    check_every_dtype(101, 45, 0xd3, layout(gpu));
  }
}
