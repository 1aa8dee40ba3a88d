// Elementwise vectors that cross from one row into the next
// (codegen KernelPlan::cross_rows): an array of rows that are no multiple of
// the vector width, combined with values broadcast along its rows (a
// softmax's or a layer norm's statistics, keepdims). A vector that runs past
// its row's end must take the next row's value in the lanes past it, and
// only there. Every row's value differs and every element differs, so a lane
// given its neighbour's row shows. Compared bit for bit with the host: each
// result is one correctly rounded operation of the same operands.
#include "src/body_builder.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
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

using Dims = std::vector<std::int64_t>;

bool device_has_fp64() { return default_device().info().fp64; }

template <class T>
std::vector<T> values(std::size_t n, std::uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& e : v) e = T(u(rng) * scale);
  return v;
}

// x (rows of `inner`, given by `dims`) minus m times d, m and d one value a
// row (dims with the last set to 1), against the host; the plan's width and
// whether its vectors cross rows are returned through `plan`.
template <class T>
void check_broadcast(const Dims& dims, bool cross, std::uint64_t seed, codegen::KernelPlan* plan = nullptr) {
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  const std::int64_t inner = dims.back(), rows = n / inner;
  Dims row_dims = dims;
  row_dims.back() = 1;
  auto hx = values<T>(std::size_t(n), seed, 1000);
  auto hm = values<T>(std::size_t(rows), seed + 1, 100);
  auto hd = values<T>(std::size_t(rows), seed + 2, 4);
  if constexpr (std::is_floating_point_v<T>) {
    // Edge values, in some rows and some lanes.
    const T inf = std::numeric_limits<T>::infinity();
    const T edge[] = {T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
                      std::numeric_limits<T>::max()};
    for (std::size_t k = 0; k < std::size(edge); ++k) {
      if (std::int64_t(3 * k) < rows) hm[3 * k] = edge[k];
      if (std::int64_t(5 * k + 1) < rows) hd[5 * k + 1] = edge[k];
      if (std::int64_t(7 * k + 2) < n) hx[7 * k + 2] = edge[k];
    }
  } else {
    for (auto& v : hd)
      if (v == 0) v = 1;
  }
  const auto x = from_host(hx, Shape(dims));
  const auto m = from_host(hm, Shape(row_dims));
  const auto d = from_host(hd, Shape(row_dims));
  const auto y = (x - m) * d;
  auto t = detail::tuning_of(*y.node()->device);
  t.cross_rows = cross;
  const detail::Schedule s = run_with(y, t);
  REQUIRE(s.kernel_count() == 1);
  if (plan) *plan = s.steps[0].kernel.plan;
  const auto got = y.to_host();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = i / inner;
    const T want = T(T(hx[std::size_t(i)] - hm[std::size_t(r)]) * hd[std::size_t(r)]);
    const T g = got[std::size_t(i)];
    const bool same = g == want || (g != g && want != want);
    if (!same) {
      CHECK_EACH(same, "element " << i << " (row " << r << ", column " << i % inner << "): got " << double(g) << ", want " << double(want));
      return;
    }
  }
}

}  // namespace

TEST_CASE("vectors across rows: values broadcast along rows, each lane its own row's", "[fusion][cross_rows]") {
  // Rows shorter than, as long as, and longer than a vector, whole vectors
  // and not; 1 to 64 rows; 2-D, 3-D and 4-D.
  const std::vector<Dims> shapes{{1, 37},   {2, 17},    {3, 31},  {7, 33},     {64, 65},    {5, 1001}, {3, 50257},
                                 {4, 16},   {6, 5},     {2, 3, 19}, {3, 4, 37}, {2, 2, 3, 23}, {9, 100},  {11, 3}};
  std::uint64_t seed = test_seed(0xc7055);
  for (const bool cross : {true, false}) {
    for (const auto& dims : shapes) {
      INFO("shape " << Shape(dims).str() << ", vectors across rows allowed: " << cross);
      codegen::KernelPlan plan;
      check_broadcast<float>(dims, cross, ++seed, &plan);
      const int widest = detail::widest_width(plan, detail::tuning_of(*detail::current_state()).vector_bytes);
      const bool whole = dims.back() % widest == 0;
      // Taken exactly where rows are no multiple of the width but at least a
      // vector long, and there are several (one row's values are uniform).
      const bool several = dims.size() > 1 && Shape(dims).size() > dims.back();
      CHECK(plan.cross_rows == (cross && several && !whole && dims.back() >= widest && widest > 1));
      if (plan.cross_rows) CHECK(int(plan.width) == widest);
      check_broadcast<std::int32_t>(dims, cross, ++seed);
      if (device_has_fp64()) check_broadcast<double>(dims, cross, ++seed);
    }
  }
}

TEST_CASE("vectors across rows: not where a load reads its rows in place", "[fusion][cross_rows]") {
  // x read through a slice of every other column: its rows are read in place
  // (StridedRow), so a vector must stay within one row.
  const std::int64_t rows = 6, cols = 74;  // 37 columns taken
  std::vector<float> hx(std::size_t(rows * cols));
  std::vector<float> hm(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = float(i % 251) * 0.25f;
  for (std::size_t i = 0; i < hm.size(); ++i) hm[i] = float(i) * 1000.0f;
  const auto x = from_host(hx, Shape{rows, cols});
  const auto sliced = slice(x, 1, 0, cols, 2);
  const auto y = sliced - from_host(hm, Shape{rows, 1});
  const detail::Schedule s = run_with(y, detail::tuning_of(*y.node()->device));
  REQUIRE(s.kernel_count() == 1);
  CHECK_FALSE(s.steps[0].kernel.plan.cross_rows);
  const auto got = y.to_host();
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols / 2; ++c)
      REQUIRE(got[std::size_t(r * (cols / 2) + c)] == hx[std::size_t(r * cols + 2 * c)] - hm[std::size_t(r)]);
}
