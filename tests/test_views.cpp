// Views (reshape, transpose/permute, slice, flip, expand_dims, squeeze,
// broadcast_to) and broadcasting, against a dense host reference that maps
// indices from NumPy's definitions (support/host_array.hpp), on random shapes
// of up to 8 dimensions with size-0 and size-1 ones.
//
// Inputs hold numpy.arange-like values (every element distinct and exact in
// float32), so any misplaced element shows and comparisons are exact: a view
// moves values, it never computes them.
//
// Kernel structures: a view read by to_host is a copy kernel whose structure
// depends only on the collapsed number of index dimensions, so the random
// tests below build about a dozen kernels however many cases they draw.
#include "support/device_compare.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

std::string opt_str(std::optional<std::int64_t> v) { return v ? std::to_string(*v) : ""; }

std::string slice_str(const Slice& s) { return opt_str(s.start) + ":" + opt_str(s.stop) + ":" + std::to_string(s.step); }

Slice random_slice(std::mt19937_64& rng, std::int64_t dim) {
  static const std::int64_t steps[] = {1, 1, 1, 2, 3, -1, -1, -2, -3, 5};
  Slice s;
  s.step = steps[rand_int(rng, 0, 9)];
  // Bounds beyond either end are clamped like Python's; include them.
  if (rand_unit(rng) < 0.6) s.start = rand_int(rng, -dim - 3, dim + 3);
  if (rand_unit(rng) < 0.6) s.stop = rand_int(rng, -dim - 3, dim + 3);
  return s;
}

std::vector<int> random_permutation(std::mt19937_64& rng, int n, bool negative_spelling) {
  std::vector<int> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  for (int i = n; i > 1; --i) std::swap(p[std::size_t(i - 1)], p[std::size_t(rand_int(rng, 0, i - 1))]);
  if (negative_spelling)
    for (auto& a : p)
      if (rand_unit(rng) < 0.5) a -= n;
  return p;
}

// A random shape with the same number of elements as `from` (reshape targets),
// sometimes with a -1 for one dimension.
Dims random_reshape_target(std::mt19937_64& rng, const Dims& from, bool allow_infer) {
  const std::int64_t n = numel(from);
  Dims out;
  if (n == 0) {
    // Any shape with a zero (NumPy refuses -1 next to a zero dimension; so does fusecl).
    const int nd = int(rand_int(rng, 1, 4));
    for (int k = 0; k < nd; ++k) out.push_back(rand_int(rng, 1, 3));
    out[std::size_t(rand_int(rng, 0, nd - 1))] = 0;
    return out;
  }
  std::vector<std::int64_t> primes;
  std::int64_t r = n;
  for (std::int64_t p = 2; p * p <= r; ++p)
    while (r % p == 0) {
      primes.push_back(p);
      r /= p;
    }
  if (r > 1) primes.push_back(r);
  const int nd = int(rand_int(rng, 1, std::min<std::int64_t>(6, std::int64_t(primes.size()) + 2)));
  out.assign(std::size_t(nd), 1);
  for (auto p : primes) out[std::size_t(rand_int(rng, 0, nd - 1))] *= p;
  if (allow_infer && rand_unit(rng) < 0.3) out[std::size_t(rand_int(rng, 0, nd - 1))] = -1;
  return out;
}

struct Pair {
  Array<float> dev;
  HostArray<float> host;
};

// Applies one random view to both sides; returns what it did.
std::string random_view(std::mt19937_64& rng, Pair& p, std::int64_t max_elements) {
  const int nd = p.host.ndim();
  switch (rand_int(rng, 0, 8)) {
    case 0: {
      const auto axes = random_permutation(rng, nd, true);
      p.dev = permute(p.dev, axes);
      p.host = h_permute(p.host, axes);
      std::string s = "permute(";
      for (int a : axes) s += std::to_string(a) + ",";
      return s + ")";
    }
    case 1:
      p.dev = transpose(p.dev);
      p.host = h_transpose(p.host);
      return "transpose";
    case 2: {
      if (nd == 0) return "slice skipped (0-d)";
      // Sometimes the one-axis form, sometimes several axes (missing trailing axes are whole).
      if (rand_unit(rng) < 0.3) {
        const int axis = int(rand_int(rng, -nd, nd - 1));
        const Slice s = random_slice(rng, p.host.shape[std::size_t(norm_axis(axis, nd))]);
        p.dev = slice(p.dev, axis, s.start, s.stop, s.step);
        std::vector<Slice> spec(std::size_t(norm_axis(axis, nd) + 1));
        spec.back() = s;
        p.host = h_slice(p.host, spec);
        return "slice(axis " + std::to_string(axis) + ", " + slice_str(s) + ")";
      }
      std::vector<Slice> spec;
      const int k = int(rand_int(rng, 1, nd));
      std::string d = "slice[";
      for (int i = 0; i < k; ++i) {
        spec.push_back(random_slice(rng, p.host.shape[std::size_t(i)]));
        d += slice_str(spec.back()) + ",";
      }
      p.dev = slice(p.dev, spec);
      p.host = h_slice(p.host, spec);
      return d + "]";
    }
    case 3: {
      if (nd == 0 || rand_unit(rng) < 0.3) {
        p.dev = flip(p.dev);
        p.host = h_flip(p.host);
        return "flip";
      }
      const int axis = int(rand_int(rng, -nd, nd - 1));
      p.dev = flip(p.dev, axis);
      p.host = h_flip(p.host, axis);
      return "flip(" + std::to_string(axis) + ")";
    }
    case 4: {
      if (nd >= max_ndim) return "expand_dims skipped (8-d)";
      const int axis = int(rand_int(rng, -nd - 1, nd));
      p.dev = expand_dims(p.dev, axis);
      p.host = h_expand_dims(p.host, axis);
      return "expand_dims(" + std::to_string(axis) + ")";
    }
    case 5: {
      std::vector<int> ones;
      for (int i = 0; i < nd; ++i)
        if (p.host.shape[std::size_t(i)] == 1) ones.push_back(i);
      if (ones.empty() || rand_unit(rng) < 0.4) {
        p.dev = squeeze(p.dev);
        p.host = h_squeeze(p.host);
        return "squeeze";
      }
      int axis = ones[std::size_t(rand_int(rng, 0, std::int64_t(ones.size()) - 1))];
      if (rand_unit(rng) < 0.5) axis -= nd;
      p.dev = squeeze(p.dev, axis);
      p.host = h_squeeze(p.host, axis);
      return "squeeze(" + std::to_string(axis) + ")";
    }
    case 6: {
      // New leading dimensions, and size-1 dimensions stretched.
      Dims to;
      const int lead = int(rand_int(rng, 0, std::min(2, max_ndim - nd)));
      for (int i = 0; i < lead; ++i) to.push_back(rand_int(rng, 1, 3));
      for (auto d : p.host.shape) to.push_back(d == 1 ? rand_int(rng, 1, 4) : d);
      if (numel(to) > max_elements) return "broadcast_to skipped (too large)";
      p.dev = broadcast_to(p.dev, Shape(to));
      p.host = h_broadcast_to(p.host, to);
      return "broadcast_to" + dims_str(to);
    }
    default: {
      const Dims to = random_reshape_target(rng, p.host.shape, true);
      p.dev = reshape(p.dev, to);
      p.host = h_reshape(p.host, to);
      return "reshape" + dims_str(to);
    }
  }
}


}  // namespace

TEST_CASE("random chains of views of random shapes up to 8-d with size-0 and size-1 dims match the host reference",
          "[views]") {
  const std::uint64_t seed = test_seed(0x5EED0001);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  constexpr std::int64_t max_elements = 3000;
  for (int iter = 0; iter < 150; ++iter) {
    const Dims shape = random_dims(rng, max_ndim, 1500);
    Pair p{Array<float>(), h_iota<float>(shape, 1)};
    p.dev = to_device(p.host);
    std::string chain = "x";
    chain += dims_str(shape);
    const int steps = int(rand_int(rng, 1, 4));
    for (int s = 0; s < steps; ++s) chain += " -> " + random_view(rng, p, max_elements);
    INFO("case " << iter << ": " << chain);
    REQUIRE(p.dev.shape().to_vector() == p.host.shape);
    require_matches(p.dev, p.host);
  }
}

TEST_CASE("broadcasting between ranks matches the host reference on random shapes", "[views][broadcast]") {
  const std::uint64_t seed = test_seed(0x5EED0002);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    // The broadcast shape, then two operands that drop leading dimensions and
    // set some dimensions to 1.
    const Dims out = random_dims(rng, max_ndim, 2000, 5, 0.08);
    auto operand = [&] {
      Dims d(out.begin() + rand_int(rng, 0, std::int64_t(out.size())), out.end());
      for (auto& x : d)
        if (rand_unit(rng) < 0.35) x = 1;
      return d;
    };
    const Dims da = operand(), db = operand();
    INFO("case " << iter << ": " << dims_str(da) << " + " << dims_str(db));
    const auto ha = h_iota<float>(da, 1), hb = h_iota<float>(db, 1000);
    const auto a = to_device(ha), b = to_device(hb);
    const auto want = h_map2<float>(ha, hb, [](float x, float y) { return x * 3.0f + y; });
    const auto got = a * 3.0f + b;
    REQUIRE(got.shape().to_vector() == broadcast_dims(da, db));
    require_matches(got, want);
  }
}

TEST_CASE("broadcasting handles 0-d operands and size-0 dimensions and names both shapes in ShapeError", "[views][broadcast]") {
  const auto hx = h_iota<float>({2, 3, 4}, 1);
  const auto x = to_device(hx);
  SECTION("a 0-d array broadcasts against anything") {
    const auto s = from_host(std::vector<float>{10.0f}, Shape{});
    CHECK(s.ndim() == 0);
    require_matches(x + s, h_map<float>(hx, [](float v) { return v + 10.0f; }));
    require_matches(s + s, HostArray<float>{{}, {20.0f}});
  }
  SECTION("size-0 dimensions broadcast against 1 and against themselves") {
    const auto e = from_host(std::vector<float>{}, {1, 0, 1});
    const auto y = from_host(std::vector<float>(8), {2, 1, 4});
    CHECK((e + y).shape() == Shape{2, 0, 4});
    CHECK((e + y).to_host().empty());
    CHECK_THROWS_AS(e + x, ShapeError);  // 0 against 3
    const auto one = from_host(std::vector<float>{5.0f}, {1});
    CHECK((from_host(std::vector<float>{}, {0}) + one).shape() == Shape{0});
  }
  SECTION("mismatches raise ShapeError naming both shapes") {
    const auto y = from_host(std::vector<float>(15), {3, 5});
    const std::string m = shape_error_message([&] { (void)(x + y); });
    CHECK(contains(m, "(2, 3, 4)"));
    CHECK(contains(m, "(3, 5)"));
    const auto z = from_host(std::vector<float>(2), {2});
    const std::string m2 = shape_error_message([&] { (void)(z * x); });
    CHECK(contains(m2, "(2,)"));
    CHECK(contains(m2, "(2, 3, 4)"));
    const auto empty = from_host(std::vector<float>{}, {0});
    CHECK_THROWS_AS(empty + z, ShapeError);  // 0 against 2
    const std::string m3 = shape_error_message([&] { (void)broadcast_to(y, Shape{3, 4}); });
    CHECK(contains(m3, "(3, 5)"));
    CHECK(contains(m3, "(3, 4)"));
    CHECK_THROWS_AS(broadcast_to(x, Shape{3, 4}), ShapeError);  // to fewer dimensions
  }
}

TEST_CASE("broadcast_to reads the same elements many times without copying", "[views][broadcast]") {
  const auto hx = h_iota<float>({3, 1}, 1);
  const auto x = to_device(hx);
  reset_stats();
  const auto b = broadcast_to(x, Shape{2, 3, 4});
  const auto want = h_broadcast_to(hx, {2, 3, 4});
  require_matches(b + 0.5f, h_map<float>(want, [](float v) { return v + 0.5f; }));
  CHECK(stats().kernels_launched == 1);
  CHECK(stats().uploads == 0);
  require_matches(b, want);
  require_matches(broadcast_to(x, Shape{3, 1}), hx);  // to its own shape
}

TEST_CASE("slices follow Python start:stop:step and clamp out-of-range bounds", "[views][slice]") {
  // Expected values are Python's list(range(10))[start:stop:step].
  const auto x = to_device(h_iota<float>({10}));
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max(), kMin = std::numeric_limits<std::int64_t>::min();
  struct Case {
    std::optional<std::int64_t> start, stop;
    std::int64_t step;
    std::vector<float> want;
  };
  const std::vector<Case> cases = {
      {2, 8, 3, {2, 5}},
      {std::nullopt, std::nullopt, -1, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {8, 2, -2, {8, 6, 4}},
      {-3, std::nullopt, 1, {7, 8, 9}},
      {-100, 100, 1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {100, std::nullopt, 1, {}},
      {std::nullopt, -100, 1, {}},
      {5, 1, 1, {}},
      {std::nullopt, std::nullopt, -3, {9, 6, 3, 0}},
      {-1, -100, -4, {9, 5, 1}},
      {100, -100, -1, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {1, -1, 4, {1, 5}},
      {-2, -8, -3, {8, 5}},
      {3, 3, 1, {}},
      {9, 100, 5, {9}},
      {-11, 3, 1, {0, 1, 2}},
      {std::nullopt, std::nullopt, -5, {9, 4}},
      {2, -100, -1, {2, 1, 0}},
      {-100, 2, -1, {}},
      // Steps and bounds at the ends of int64 (Python clamps them; nothing may overflow).
      {0, 10, kMax, {0}},
      {5, std::nullopt, kMax, {5}},
      {9, std::nullopt, -kMax, {9}},
      {std::nullopt, std::nullopt, kMin, {9}},
      {kMin, kMax, 1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {kMax, kMin, -4, {9, 5, 1}},
  };
  for (const auto& c : cases) {
    INFO("x[" << slice_str(Slice{c.start, c.stop, c.step}) << "]");
    const auto s = slice(x, 0, c.start, c.stop, c.step);
    CHECK(s.shape() == Shape{std::int64_t(c.want.size())});
    CHECK(s.to_host() == c.want);
    // The host reference agrees with Python too (it is what the random tests trust).
    const auto r = resolve_slice(Slice{c.start, c.stop, c.step}, 10);
    CHECK(r.count == std::int64_t(c.want.size()));
  }
  SECTION("several axes, missing trailing axes are whole") {
    const auto h = h_iota<float>({4, 5, 3}, 1);
    const auto a = to_device(h);
    const std::vector<Slice> spec = {range(1, std::nullopt, 2), range(std::nullopt, std::nullopt, -2)};
    require_matches(slice(a, spec), h_slice(h, spec));
    CHECK(slice(a, spec).shape() == Shape{2, 3, 3});
    require_matches(slice(a, {fusecl::all(), fusecl::all(), range(-1, std::nullopt)}), h_slice(h, {Slice{}, Slice{}, Slice{-1, {}, 1}}));
    require_matches(slice(a, {}), h);
  }
  SECTION("size-0 dimensions and empty results") {
    const auto h = h_iota<float>({3, 0, 2}, 1);
    const auto a = to_device(h);
    CHECK(slice(a, {range(1, 3), range(std::nullopt, std::nullopt, -1)}).shape() == Shape{2, 0, 2});
    CHECK(slice(a, 0, 5, std::nullopt).shape() == Shape{0, 0, 2});
    CHECK(slice(a, 0, 5, std::nullopt).to_host().empty());
  }
  SECTION("errors") {
    CHECK_THROWS_AS(slice(x, 0, 1, 5, 0), ShapeError);                    // zero step
    CHECK_THROWS_AS(slice(x, {fusecl::all(), fusecl::all()}), ShapeError);  // too many indices
    CHECK_THROWS_AS(slice(x, 1, 0, 1), ShapeError);                       // no such axis
  }
}

TEST_CASE("reshape is a view where strides allow it and a copy where they do not", "[views][reshape]") {
  const auto h = h_iota<float>({2, 3, 4}, 1);
  const auto x = to_device(h);
  SECTION("contiguous arrays reshape without a copy, -1 is inferred") {
    reset_stats();
    const auto r = reshape(x, {4, -1});
    CHECK(r.shape() == Shape{4, 6});
    require_matches(r * 2.0f, h_map<float>(h_reshape(h, {4, 6}), [](float v) { return v * 2.0f; }));
    CHECK(stats().kernels_launched == 1);
    require_matches(reshape(x, {-1}), h_reshape(h, {24}));
    require_matches(reshape(x, {1, 2, 1, 12, 1}), h_reshape(h, {1, 2, 1, 12, 1}));
    require_matches(reshape(x, {2, 3, 4}), h);
    const auto one = from_host(std::vector<float>{7.0f}, {1, 1});
    CHECK(reshape(one, {}).shape() == Shape{});  // to 0-d
    CHECK(reshape(one, {}).to_host() == std::vector<float>{7.0f});
  }
  SECTION("a transposed array reshapes without a copy when the merged axes stay adjacent") {
    // transpose of (2, 3, 4) is (4, 3, 2) with strides (1, 4, 12): splitting
    // axis 0 or merging nothing is expressible.
    const auto t = transpose(x);
    const auto ht = h_transpose(h);
    reset_stats();
    const auto r = reshape(t, {2, 2, 3, 2});
    require_matches(r * 2.0f, h_map<float>(h_reshape(ht, {2, 2, 3, 2}), [](float v) { return v * 2.0f; }));
    CHECK(stats().kernels_launched == 1);
  }
  SECTION("reshape of a transposed array that strides cannot express copies, and the copy keeps working") {
    const auto t = transpose(x);  // (4, 3, 2)
    const auto ht = h_transpose(h);
    reset_stats();
    const auto flat = reshape(t, {-1});
    const auto want = h_reshape(ht, {24});
    require_matches(flat * 2.0f, h_map<float>(want, [](float v) { return v * 2.0f; }));
    CHECK(stats().kernels_launched == 2);  // the copy into C order, then the consumer
    CHECK(stats().uploads == 0);
    // The copy is an ordinary array: views and expressions of it work.
    require_matches(flat, want);
    require_matches(reshape(flat, {6, 4}), h_reshape(want, {6, 4}));
    require_matches(slice(flat, 0, 3, 20, 5), h_slice(want, {Slice{3, 20, 5}}));
    // Merging the last two axes (strides 4 and 12) cannot be a view either.
    require_matches(reshape(t, {4, 6}) * 2.0f, h_map<float>(h_reshape(ht, {4, 6}), [](float v) { return v * 2.0f; }));
  }
  SECTION("reshape of a slice and of an expression") {
    const auto s = slice(x, {fusecl::all(), range(1, 3)});  // (2, 2, 4), not contiguous
    const auto hs = h_slice(h, {Slice{}, Slice{1, 3, 1}});
    require_matches(reshape(s, {2, 8}), h_reshape(hs, {2, 8}));  // merges the last two axes: (4, 1) strides, fine
    require_matches(reshape(s, {4, 4}), h_reshape(hs, {4, 4}));  // merges axes 0 and 1: needs a copy
    const auto y = to_device(h_iota<float>({4, 3, 2}, 100));
    const auto hy = h_iota<float>({4, 3, 2}, 100);
    // transpose(x) + y cannot be reshaped as a view (its transposed operand): it is computed first.
    require_matches(reshape(transpose(x) + y, {3, 8}),
                    h_reshape(h_map2<float>(h_transpose(h), hy, [](float a, float b) { return a + b; }), {3, 8}));
  }
  SECTION("errors") {
    CHECK_THROWS_AS(reshape(x, {5, 5}), ShapeError);
    CHECK_THROWS_AS(reshape(x, {-1, -1}), ShapeError);
    CHECK_THROWS_AS(reshape(x, {-2, 12}), ShapeError);
    CHECK_THROWS_AS(reshape(x, {5, -1}), ShapeError);
    CHECK_THROWS_AS(reshape(x, {}), ShapeError);
    const auto e = from_host(std::vector<float>{}, {0, 3});
    CHECK(reshape(e, {-1, 3}).shape() == Shape{0, 3});
    CHECK(reshape(e, {3, 0, 7}).shape() == Shape{3, 0, 7});
    CHECK_THROWS_AS(reshape(e, {0, -1}), ShapeError);  // ambiguous, as in NumPy
    const std::string m = shape_error_message([&] { (void)reshape(x, {7}); });
    CHECK(contains(m, "24"));
    CHECK(contains(m, "(7,)"));
  }
}

TEST_CASE("transpose and permute", "[views][transpose]") {
  const auto h = h_iota<float>({2, 3, 4}, 1);
  const auto x = to_device(h);
  require_matches(transpose(x), h_transpose(h));
  CHECK(transpose(x).shape() == Shape{4, 3, 2});
  require_matches(permute(x, {2, 0, 1}), h_permute(h, {2, 0, 1}));
  require_matches(permute(x, {-1, 0, -2}), h_permute(h, {2, 0, 1}));
  require_matches(transpose(x, {1, 0, 2}), h_permute(h, {1, 0, 2}));
  require_matches(transpose(transpose(x)), h);
  require_matches(permute(permute(x, {2, 0, 1}), {1, 2, 0}), h);
  // 1-d and 0-d arrays are their own transposes.
  const auto v = to_device(h_iota<float>({5}, 1));
  require_matches(transpose(v), h_iota<float>({5}, 1));
  const auto s = from_host(std::vector<float>{3.0f}, Shape{});
  require_matches(transpose(s), HostArray<float>{{}, {3.0f}});
  // Size-0 and size-1 dimensions.
  const auto e = from_host(std::vector<float>{}, {2, 0, 1});
  CHECK(transpose(e).shape() == Shape{1, 0, 2});
  SECTION("errors") {
    CHECK_THROWS_AS(permute(x, {0, 1}), ShapeError);
    CHECK_THROWS_AS(permute(x, {0, 1, 1}), ShapeError);
    CHECK_THROWS_AS(permute(x, {0, 1, 3}), ShapeError);
    CHECK_THROWS_AS(permute(x, {0, 1, -4}), ShapeError);
  }
}

TEST_CASE("flip and expand_dims and squeeze", "[views]") {
  const auto h = h_iota<float>({1, 3, 1, 2}, 1);
  const auto x = to_device(h);
  SECTION("flip") {
    require_matches(flip(x), h_flip(h));
    require_matches(flip(x, 1), h_flip(h, 1));
    require_matches(flip(x, -1), h_flip(h, 3));
    require_matches(flip(flip(x, 3), 3), h);
    CHECK(flip(from_host(std::vector<float>{}, {3, 0})).shape() == Shape{3, 0});
    CHECK_THROWS_AS(flip(x, 4), ShapeError);
  }
  SECTION("expand_dims") {
    CHECK(expand_dims(x, 0).shape() == Shape{1, 1, 3, 1, 2});
    CHECK(expand_dims(x, 4).shape() == Shape{1, 3, 1, 2, 1});
    CHECK(expand_dims(x, -1).shape() == Shape{1, 3, 1, 2, 1});
    CHECK(expand_dims(x, -5).shape() == Shape{1, 1, 3, 1, 2});
    require_matches(expand_dims(x, 2), h_expand_dims(h, 2));
    CHECK_THROWS_AS(expand_dims(x, 5), ShapeError);
    CHECK_THROWS_AS(expand_dims(x, -6), ShapeError);
    const auto big = from_host(std::vector<float>{1.0f}, Shape{1, 1, 1, 1, 1, 1, 1, 1});
    CHECK_THROWS_AS(expand_dims(big, 0), ShapeError);  // a ninth dimension
  }
  SECTION("squeeze") {
    CHECK(squeeze(x).shape() == Shape{3, 2});
    require_matches(squeeze(x), h_squeeze(h));
    CHECK(squeeze(x, 2).shape() == Shape{1, 3, 2});
    CHECK(squeeze(x, -4).shape() == Shape{3, 1, 2});
    require_matches(squeeze(x, 0), h_squeeze(h, 0));
    CHECK(squeeze(from_host(std::vector<float>{4.0f}, {1, 1})).shape() == Shape{});
    const std::string m = shape_error_message([&] { (void)squeeze(x, 1); });
    CHECK(m != "<no ShapeError>");
    CHECK(contains(m, "(1, 3, 1, 2)"));  // names the shape
    CHECK_THROWS_AS(squeeze(x, -1), ShapeError);
    CHECK_THROWS_AS(squeeze(x, 4), ShapeError);
  }
}

TEST_CASE("views of expressions and expressions of views fuse into one kernel", "[views][fusion]") {
  const auto hx = h_iota<float>({5, 7}, 1), hy = h_iota<float>({7, 5}, 500);
  const auto x = to_device(hx), y = to_device(hy);
  const auto xt = h_transpose(hx);
  SECTION("transpose(x) + y: one kernel, no upload") {
    reset_stats();
    const auto r = (transpose(x) + y).to_host();
    CHECK(stats().kernels_launched == 1);
    CHECK(stats().uploads == 0);
    CHECK(stats().downloads == 1);
    const auto want = h_map2<float>(xt, hy, [](float a, float b) { return a + b; });
    CHECK(first_mismatch(Shape{7, 5}, r, want) == -1);
  }
  SECTION("slice(x, ...) * 2: one kernel") {
    reset_stats();
    const auto s = slice(x, {range(1, std::nullopt, 2), range(std::nullopt, std::nullopt, -3)});
    const auto r = (s * 2.0f).to_host();
    CHECK(stats().kernels_launched == 1);
    CHECK(stats().uploads == 0);
    const auto want = h_map<float>(h_slice(hx, {Slice{1, {}, 2}, Slice{{}, {}, -3}}), [](float v) { return v * 2.0f; });
    CHECK(first_mismatch(Shape{2, 3}, r, want) == -1);
  }
  SECTION("transpose(x + y^T): the view is pushed through the expression") {
    reset_stats();
    const auto e = transpose(x + transpose(y));
    require_matches(e, h_transpose(h_map2<float>(hx, h_transpose(hy), [](float a, float b) { return a + b; })));
    CHECK(stats().kernels_launched == 1);
  }
  SECTION("views of views of expressions") {
    const auto e = slice(flip(transpose(sqrt(x) * 2.0f), 0), {range(1, 6, 2)});
    const auto he = h_slice(h_flip(h_transpose(h_map<float>(hx, [](float v) { return std::sqrt(v) * 2.0f; })), 0),
                            {Slice{1, 6, 2}});
    reset_stats();
    require_matches(e, he);  // sqrt is correctly rounded (README): exact against the host
    CHECK(stats().kernels_launched == 1);
  }
  SECTION("several views of one buffer in one expression") {
    // x[:, ::-1] * x[:, :] + x^T^T: three loads of one buffer with different layouts.
    const auto e = flip(x, 1) * x + transpose(transpose(x));
    const auto want = h_map2<float>(h_map2<float>(h_flip(hx, 1), hx, [](float a, float b) { return a * b; }), hx,
                                    [](float a, float b) { return a + b; });
    reset_stats();
    require_matches(e, want);
    CHECK(stats().kernels_launched == 1);
  }
  SECTION("a broadcast row and a broadcast column of the same expression") {
    const auto row = expand_dims(sum(x, 0), 0);  // (1, 7)
    const auto col = expand_dims(sum(x, 1), 1);  // (5, 1)
    auto add = [](const std::vector<float>& v) {
      float s = 0;
      for (float e : v) s += e;
      return s;
    };
    const auto want = h_map2<float>(h_map2<float>(hx, h_reduce<float>(hx, {0}, false, true, add), std::minus<float>()),
                                    h_reduce<float>(hx, {1}, false, true, add), std::plus<float>());
    reset_stats();
    require_matches(x - row + col, want);
    CHECK(stats().kernels_launched == 3);  // the two reductions, then the expression reading both
  }
}

TEST_CASE("views of reductions and reductions of non-contiguous views", "[views][reduce]") {
  const auto h = h_iota<float>({4, 6, 5}, -50);
  const auto x = to_device(h);
  auto add = [](const std::vector<float>& v) {
    double s = 0;
    for (float e : v) s += e;
    return float(s);  // integer-valued and small: exact in float
  };
  auto maxf = [](const std::vector<float>& v) { return *std::max_element(v.begin(), v.end()); };
  SECTION("reductions of transposed, flipped, sliced and broadcast views") {
    require_matches(sum(transpose(x), 1), h_reduce<float>(h_transpose(h), {1}, false, false, add));
    require_matches(max(flip(x, 1), -1, true), h_reduce<float>(h_flip(h, 1), {-1}, false, true, maxf));
    const std::vector<Slice> spec = {range(std::nullopt, std::nullopt, -2), range(1, 5), range(std::nullopt, std::nullopt, 2)};
    require_matches(sum(slice(x, spec)), h_reduce<float>(h_slice(h, spec), {}, true, false, add));
    require_matches(sum(broadcast_to(slice(x, 2, 0, 1), Shape{3, 4, 6, 1}), {0, 3}),
                    h_reduce<float>(h_broadcast_to(h_slice(h, {Slice{}, Slice{}, Slice{0, 1, 1}}), {3, 4, 6, 1}), {0, 3},
                                    false, false, add));
    auto argmaxf = [](const std::vector<float>& v) {
      return std::int64_t(std::max_element(v.begin(), v.end()) - v.begin());  // first of equal maxima
    };
    require_matches(argmax(transpose(x), 0), h_reduce<std::int64_t>(h_transpose(h), {0}, false, false, argmaxf));
  }
  SECTION("views of reduction results") {
    const auto s = sum(x, 2);  // (4, 6)
    const auto hs = h_reduce<float>(h, {2}, false, false, add);
    require_matches(transpose(s), h_transpose(hs));
    require_matches(slice(transpose(sum(x, 2)), 0, std::nullopt, std::nullopt, -1), h_flip(h_transpose(hs), 0));
    require_matches(reshape(sum(x, 0), {-1}), h_reshape(h_reduce<float>(h, {0}, false, false, add), {30}));
  }
}
