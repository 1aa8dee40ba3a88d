// Operands read through a transpose or another permutation that changes the
// innermost axis: the elementwise kernel stages them through local-memory
// tiles (src/tiling.cpp, codegen/render_tiled.cpp) where both tile axes are
// long enough, and reads them in place otherwise. On a CPU, where every
// other load reads vectors in place, it turns blocks of them in registers
// instead (codegen/render_tiled_registers.cpp): both forms are "tiled" here,
// and the cases below run whichever the device takes. Either way the answer is the
// host reference's, exactly (additions and multiplications of the same
// values, in the same order), in ONE kernel.
//
// Shapes are odd on purpose: 1, 3, 17, 1000, 4099 leave partial tiles at
// every edge (and 1 and 3 are below the tiles' minimum length). Inputs hold a
// different value in every element, with ±0, ±inf and NaN among them.
#include "support/cache_test_support.hpp"
#include "support/device_compare.hpp"
#include "support/host_array.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// Distinct values (index-derived, so a misplaced element shows), with edge
// values at a few seeded places for floating types.
template <class T>
HostArray<T> distinct(const Dims& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::int64_t k = 0;
  auto h = h_generate<T>(shape, [&](const Dims&) {
    const std::int64_t i = k++;
    if constexpr (std::is_floating_point_v<T>) return T(double(i) * 0.5 + double(seed % 7));
    else if constexpr (std::is_same_v<T, bool>) return bool((i * 7 + std::int64_t(seed)) % 3 == 0);
    else return T((i * 13 + std::int64_t(seed)) % 101 - 50);  // small: sums cannot overflow
  });
  if constexpr (std::is_floating_point_v<T>) {
    const T edges[] = {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN()};
    if (!h.data.empty())
      for (const T e : edges) h.data[std::size_t(rand_int(rng, 0, std::int64_t(h.data.size()) - 1))] = e;
  }
  return h;
}

// Through local memory (a barrier) or a CPU's blocks in registers (a row of
// a block declared from the columns' vectors: `tt<k> = (...)`).
bool in_registers(const std::string& src) { return src.find(" tt") != std::string::npos && src.find("_0.s0, ") != std::string::npos; }
bool is_tiled(const std::string& src) { return src.find("barrier(CLK_LOCAL_MEM_FENCE)") != std::string::npos || in_registers(src); }
bool on_cpu() { return default_device().info().type == "CPU"; }

// x + transpose(y) on (r, c): tiled exactly when both axes reach the minimum.
template <class T>
void check_transpose_add(std::int64_t r, std::int64_t c) {
  const auto hx = distinct<T>({r, c}, 1), hy = distinct<T>({c, r}, 2);
  const auto z = to_device(hx) + transpose(to_device(hy));
  INFO("shape (" << r << ", " << c << ")");
  CHECK(is_tiled(kernel_source(z)) == (r >= 16 && c >= 16));
  reset_stats();
  require_matches(z, h_map2<T>(hx, h_transpose(hy), [](T a, T b) { return T(a + b); }));
  CHECK(stats().kernels_launched == 1);
}

}  // namespace

TEST_CASE("x + transpose(y) of odd shapes is one kernel and exact", "[tiles]") {
  const std::int64_t sizes[] = {1, 3, 17, 1000};
  for (const auto r : sizes)
    for (const auto c : sizes) check_transpose_add<float>(r, c);
  check_transpose_add<float>(4099, 33);
  check_transpose_add<float>(33, 4099);
  check_transpose_add<float>(16, 16);  // one full tile of the minimum
  check_transpose_add<float>(15, 1000);  // just below it: read in place
}

TEST_CASE("transposed operands of every element size", "[tiles]") {
  check_transpose_add<double>(17, 1000);  // 8-byte elements: 16 x 16 tiles
  check_transpose_add<std::int64_t>(1000, 17);
  check_transpose_add<std::uint64_t>(33, 35);
  check_transpose_add<std::int32_t>(17, 1000);
  check_transpose_add<std::int16_t>(100, 47);
  check_transpose_add<std::int8_t>(47, 100);
  check_transpose_add<std::uint8_t>(31, 64);
  // 8-byte tiles are 16 x 16, 4-byte ones 32 x 32; a CPU's blocks 4 x 4 and 8 x 8.
  const auto a = to_device(distinct<double>({40, 40}, 3));
  const auto f = to_device(distinct<float>({40, 40}, 3));
  if (on_cpu()) {
    CHECK(kernel_source(a + transpose(a)).find("const double4 tt") != std::string::npos);
    CHECK(kernel_source(f + transpose(f)).find("const float8 tt") != std::string::npos);
  } else {
    CHECK(kernel_source(a + transpose(a)).find("reqd_work_group_size(16, 16, 1)") != std::string::npos);
    CHECK(kernel_source(f + transpose(f)).find("reqd_work_group_size(32, 8, 1)") != std::string::npos);
  }
  // A bool operand through a transpose, in a mixed expression.
  const auto hb = distinct<bool>({50, 20}, 4);
  const auto hv = distinct<float>({20, 50}, 5);
  const auto w = where(transpose(to_device(hb)), to_device(hv), 2.0f * to_device(hv));
  CHECK(is_tiled(kernel_source(w)));
  HostArray<float> want{hv.shape, {}};
  const auto hbt = h_transpose(hb);
  for (std::size_t i = 0; i < hv.data.size(); ++i) want.data.push_back(hbt.data[i] ? hv.data[i] : 2.0f * hv.data[i]);
  require_matches(w, want);
}

TEST_CASE("3-d permutations that move the innermost axis", "[tiles]") {
  const std::vector<std::vector<int>> perms = {{0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}};
  const Dims shapes[] = {{3, 17, 40}, {5, 33, 18}, {1, 20, 1000}, {17, 1, 19}, {2, 3, 4}};
  for (const auto& p : perms)
    for (const auto& s : shapes) {
      // y has the shape that permute(y, p) turns into s.
      Dims ys(3);
      for (int k = 0; k < 3; ++k) ys[std::size_t(p[std::size_t(k)])] = s[std::size_t(k)];
      const auto hx = distinct<float>(s, 6), hy = distinct<float>(ys, 7);
      INFO("permutation (" << p[0] << ", " << p[1] << ", " << p[2] << ") to " << dims_str(s));
      const auto z = to_device(hx) * 3.0f + permute(to_device(hy), p);
      reset_stats();
      require_matches(z, h_map2<float>(hx, h_permute(hy, p), [](float a, float b) { return a * 3.0f + b; }));
      CHECK(stats().kernels_launched == 1);
      // (1, 0, 2) keeps the innermost axis: nothing to tile.
      if (p == std::vector<int>{1, 0, 2}) CHECK_FALSE(is_tiled(kernel_source(z)));
    }
  // Batched: (0, 2, 1) of (5, 40, 33) is tiled over the last two axes, batch 5.
  const auto hb = distinct<float>({5, 40, 33}, 8);
  CHECK(is_tiled(kernel_source(permute(to_device(hb), {0, 2, 1}) + 1.0f)));
}

TEST_CASE("transposes of slices and flips", "[tiles]") {
  const auto hy = distinct<float>({70, 90}, 9);
  const auto y = to_device(hy);
  auto add1 = [](float v) { return v + 1.0f; };
  SECTION("a slice with unit inner step") {
    const std::vector<Slice> spec{Slice{1, std::nullopt, 2}, Slice{3, 80, 1}};
    const auto z = transpose(slice(y, {range(1, std::nullopt, 2), range(3, 80)})) + 1.0f;
    CHECK(is_tiled(kernel_source(z)));
    require_matches(z, h_map<float>(h_transpose(h_slice(hy, spec)), add1));
  }
  SECTION("a flipped inner axis (stride -1)") {
    const auto z = transpose(flip(y, 1)) + 1.0f;
    CHECK(is_tiled(kernel_source(z)));
    require_matches(z, h_map<float>(h_transpose(h_flip(hy, 1)), add1));
  }
  SECTION("an inner step of 2: no unit stride, read in place") {
    const std::vector<Slice> spec{Slice{std::nullopt, std::nullopt, 1}, Slice{std::nullopt, std::nullopt, 2}};
    const auto z = transpose(slice(y, {all(), range(std::nullopt, std::nullopt, 2)})) + 1.0f;
    CHECK_FALSE(is_tiled(kernel_source(z)));
    require_matches(z, h_map<float>(h_transpose(h_slice(hy, spec)), add1));
  }
}

TEST_CASE("several transposed operands share the tiles when their axes agree", "[tiles]") {
  const auto ha = distinct<float>({45, 38}, 10), hb = distinct<float>({45, 38}, 11), hc = distinct<float>({38, 45}, 12);
  const auto a = to_device(ha), b = to_device(hb), c = to_device(hc);
  const auto z = transpose(a) + transpose(b) * c;
  const std::string src = kernel_source(z);
  CHECK(is_tiled(src));
  CHECK((src.find("__local float t0[") != std::string::npos || src.find(" tt0 = ") != std::string::npos));
  reset_stats();
  const auto ta = h_transpose(ha), tb = h_transpose(hb);
  HostArray<float> want{hc.shape, {}};
  for (std::size_t i = 0; i < hc.data.size(); ++i) want.data.push_back(ta.data[i] + tb.data[i] * hc.data[i]);
  require_matches(z, want);
  CHECK(stats().kernels_launched == 1);

  // Two outputs of one shape, one kernel.
  const auto p = transpose(a) + c, q = transpose(a) * c;
  reset_stats();
  eval(p, q);
  CHECK(stats().kernels_launched == 1);
  require_matches(p, h_map2<float>(ta, hc, [](float u, float v) { return u + v; }));
  require_matches(q, h_map2<float>(ta, hc, [](float u, float v) { return u * v; }));
}

TEST_CASE("transposed operands whose innermost axes disagree are read in place", "[tiles]") {
  const auto hx = distinct<float>({20, 30, 40}, 13);
  const auto hy = distinct<float>({40, 30, 20}, 14);  // (2, 1, 0): innermost along axis 0
  const auto hz = distinct<float>({20, 40, 30}, 15);  // (0, 2, 1): innermost along axis 1
  const auto r = to_device(hx) + permute(to_device(hy), {2, 1, 0}) - permute(to_device(hz), {0, 2, 1});
  CHECK_FALSE(is_tiled(kernel_source(r)));
  reset_stats();
  const auto py = h_permute(hy, {2, 1, 0}), pz = h_permute(hz, {0, 2, 1});
  HostArray<float> want{hx.shape, {}};
  for (std::size_t i = 0; i < hx.data.size(); ++i) want.data.push_back(hx.data[i] + py.data[i] - pz.data[i]);
  require_matches(r, want);
  CHECK(stats().kernels_launched == 1);
}

TEST_CASE("empty transposed operands launch nothing", "[tiles]") {
  const auto y = from_host(std::vector<float>{}, Shape({0, 40}));
  const auto x = from_host(std::vector<float>{}, Shape({40, 0}));
  reset_stats();
  CHECK((x + transpose(y)).to_host().empty());
  CHECK(stats().kernels_launched == 0);
}

TEST_CASE("FUSECL_TILES=0 reads transposed operands in place", "[tiles]") {
  const auto r = fusecl::test::run_this_test_binary("FUSECL_TILES=0", "[.tiles_off_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("tiles off child", "[.tiles_off_child]") {
  const auto hx = distinct<float>({40, 50}, 16), hy = distinct<float>({50, 40}, 17);
  const auto z = to_device(hx) + transpose(to_device(hy));
  REQUIRE_FALSE(is_tiled(kernel_source(z)));
  require_matches(z, h_map2<float>(hx, h_transpose(hy), [](float a, float b) { return a + b; }));
}

TEST_CASE("tiles log child", "[.tiles_log_child]") {
  const auto x = to_device(distinct<float>({40, 50}, 18)), y = to_device(distinct<float>({50, 40}, 19));
  CHECK((x + transpose(y)).to_host().size() == 2000);
  const auto s = to_device(distinct<float>({3, 50}, 20));
  CHECK((s + transpose(to_device(distinct<float>({50, 3}, 21)))).to_host().size() == 150);
}

TEST_CASE("FUSECL_LOG=schedule says whether transposed reads are tiled", "[tiles]") {
  const auto r = fusecl::test::run_this_test_binary("FUSECL_LOG=schedule", "[.tiles_log_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find(std::string("elementwise (40, 50): computes add (40, 50) [root]; reads nothing; cut: evaluation root; ") +
                   (on_cpu() ? "tiled 8x8 in registers" : "tiled 32x32 through local memory")) != std::string::npos);
  CHECK(r.err.find("elementwise (3, 50): computes add (3, 50) [root]; reads nothing; cut: evaluation root; transposed reads "
                   "untiled: a tile axis shorter than 16") != std::string::npos);
}

TEST_CASE("a tiled kernel's other operands: generated, broadcast, scalar, strided", "[tiles]") {
  const std::int64_t r = 37, c = 50;
  const auto hy = distinct<float>({c, r}, 22);
  const auto hrow = distinct<float>({c}, 23), hcol = distinct<float>({r, 1}, 24);
  const auto hs = distinct<float>({r, 2 * c}, 25);
  const auto y = to_device(hy);
  const auto z = reshape(arange<float>(r * c), {r, c}) + transpose(y) * to_device(hrow) - to_device(hcol) * 0.5f +
                 slice(to_device(hs), {all(), range(std::nullopt, std::nullopt, 2)});
  CHECK(is_tiled(kernel_source(z)));
  const auto ty = h_transpose(hy);
  const auto hs2 = h_slice(hs, {Slice{std::nullopt, std::nullopt, 1}, Slice{std::nullopt, std::nullopt, 2}});
  HostArray<float> want{{r, c}, {}};
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) {
      const std::size_t k = std::size_t(i * c + j);
      want.data.push_back(float(k) + ty.data[k] * hrow.data[std::size_t(j)] - hcol.data[std::size_t(i)] * 0.5f + hs2.data[k]);
    }
  reset_stats();
  require_matches(z, want);
  CHECK(stats().kernels_launched == 1);
  // Random numbers are a function of the flat position: the same with and without tiles.
  const auto u = random::uniform<float>({r, c}, 7);
  CHECK(is_tiled(kernel_source(u + transpose(y))));
  const auto ut = (u + transpose(y)).to_host();
  const auto uh = u.to_host();
  for (std::size_t k = 0; k < ut.size(); ++k) REQUIRE((ut[k] == uh[k] + ty.data[k] || std::isnan(ty.data[k])));
}

// A CPU's blocks in registers (render_tiled_registers.cpp): whole blocks in
// vectors, the edges and loads that do not step by one along the tile axis
// element by element. Run on every device (a GPU takes local memory); on a
// CPU each case says which form it took.
TEST_CASE("blocks in registers: whole blocks, edges, flips and mixed element sizes", "[tiles]") {
  const bool cpu = on_cpu();
  // Shapes whose axes are whole blocks of 8, and ones leaving every kind of edge.
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{16, 16}, {64, 40}, {67, 41}, {17, 1000}, {1000, 23}, {130, 129}};
  for (const auto& [r, c] : shapes) {
    INFO("shape (" << r << ", " << c << ")");
    const auto hx = distinct<float>({r, c}, 30), hy = distinct<float>({c, r}, 31);
    const auto z = to_device(hx) * 2.0f - transpose(to_device(hy));
    if (cpu) CHECK(in_registers(kernel_source(z)));
    reset_stats();
    require_matches(z, h_map2<float>(hx, h_transpose(hy), [](float a, float b) { return a * 2.0f - b; }));
    CHECK(stats().kernels_launched == 1);
    // A flip along the tile axis: stride -1, element by element everywhere.
    const auto f = to_device(hx) + transpose(flip(to_device(hy), 1));
    require_matches(f, h_map2<float>(hx, h_transpose(h_flip(hy, 1)), [](float a, float b) { return a + b; }));
  }
  // A float operand and a transposed double: computed in double, 4 x 4 blocks.
  const auto hf = distinct<float>({37, 52}, 32);
  const auto hd = distinct<double>({52, 37}, 33);
  const auto m = to_device(hf) + transpose(to_device(hd));
  if (cpu) CHECK(kernel_source(m).find("const double4 tt") != std::string::npos);
  HostArray<double> want{hf.shape, {}};
  const auto td = h_transpose(hd);
  for (std::size_t i = 0; i < hf.data.size(); ++i) want.data.push_back(double(hf.data[i]) + td.data[i]);
  require_matches(m, want);
  // A transposed int8 operand beside an int32 one: int32, 8 x 8 blocks of char8 columns.
  const auto h8 = distinct<std::int8_t>({45, 60}, 34);
  const auto h32 = distinct<std::int32_t>({60, 45}, 35);
  const auto s = to_device(h32) * 3 + transpose(to_device(h8));
  if (cpu) CHECK(kernel_source(s).find("const char8 a") != std::string::npos);
  HostArray<std::int32_t> want32{h32.shape, {}};
  const auto t8 = h_transpose(h8);
  for (std::size_t i = 0; i < h32.data.size(); ++i) want32.data.push_back(h32.data[i] * 3 + std::int32_t(t8.data[i]));
  require_matches(s, want32);
  // A bool result: comparisons in vectors stored as bools.
  const auto hg = distinct<float>({52, 37}, 36);
  const auto g = to_device(hf) > transpose(to_device(hg));
  if (cpu) CHECK(in_registers(kernel_source(g)));
  HostArray<bool> wantg{hf.shape, {}};
  const auto tg = h_transpose(hg);
  for (std::size_t i = 0; i < hf.data.size(); ++i) wantg.data.push_back(hf.data[i] > tg.data[i]);
  require_matches(g, wantg);
}

TEST_CASE("blocks in registers: the other operands' vectors in place", "[tiles]") {
  const bool cpu = on_cpu();
  const std::int64_t r = 43, c = 56;
  const auto hy = distinct<float>({c, r}, 40);
  const auto hrow = distinct<float>({c}, 41), hcol = distinct<float>({r, 1}, 42), hone = distinct<float>({1, 1}, 43);
  const auto y = to_device(hy);
  // A generated operand, a row broadcast down the columns (a row read in
  // place), a column broadcast along the rows, a 1 x 1 array and a scalar.
  const auto z = reshape(arange<float>(r * c), {r, c}) + transpose(y) * to_device(hrow) - to_device(hcol) * 0.5f +
                 to_device(hone);
  if (cpu) CHECK(in_registers(kernel_source(z)));
  const auto ty = h_transpose(hy);
  HostArray<float> want{{r, c}, {}};
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) {
      const std::size_t k = std::size_t(i * c + j);
      want.data.push_back(float(k) + ty.data[k] * hrow.data[std::size_t(j)] - hcol.data[std::size_t(i)] * 0.5f + hone.data[0]);
    }
  reset_stats();
  require_matches(z, want);
  CHECK(stats().kernels_launched == 1);
  // Random draws keep local memory (their vector helpers follow the plan's
  // width); each is that of its flat position either way.
  const auto u = random::uniform<float>({r, c}, 9);
  CHECK_FALSE(in_registers(kernel_source(u + transpose(y))));
  const auto ut = (u + transpose(y)).to_host();
  const auto uh = u.to_host();
  for (std::size_t k = 0; k < ut.size(); ++k) REQUIRE((ut[k] == uh[k] + ty.data[k] || std::isnan(ty.data[k])));
  // An operand read with a step along the rows cannot be read in vectors:
  // local memory then, on a CPU too.
  const auto hs = distinct<float>({r, 2 * c}, 44);
  const auto w = transpose(y) + slice(to_device(hs), {all(), range(std::nullopt, std::nullopt, 2)});
  const std::string src = kernel_source(w);
  CHECK(is_tiled(src));
  CHECK_FALSE(in_registers(src));
  const auto hs2 = h_slice(hs, {Slice{std::nullopt, std::nullopt, 1}, Slice{std::nullopt, std::nullopt, 2}});
  require_matches(w, h_map2<float>(ty, hs2, [](float a, float b) { return a + b; }));
}

TEST_CASE("FUSECL_TILE_REGISTERS=0 stages a CPU's tiles in local memory", "[tiles]") {
  const auto r = fusecl::test::run_this_test_binary("FUSECL_TILE_REGISTERS=0", "[.tile_registers_off_child]");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("tile registers off child", "[.tile_registers_off_child]") {
  const auto hx = distinct<float>({40, 50}, 45), hy = distinct<float>({50, 40}, 46);
  const auto z = to_device(hx) + transpose(to_device(hy));
  const std::string src = kernel_source(z);
  REQUIRE(is_tiled(src));
  REQUIRE_FALSE(in_registers(src));
  require_matches(z, h_map2<float>(hx, h_transpose(hy), [](float a, float b) { return a + b; }));
}
