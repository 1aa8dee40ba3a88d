// concatenate and stack against the host reference (support/host_array.hpp),
// along every axis (negative ones too), with size-0 inputs, mixed dtypes,
// expressions, views, generators and reductions as inputs, and the errors.
#include "support/device_compare.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {


}  // namespace

TEST_CASE("concatenate along each axis of random shapes with size-0 inputs", "[concat]") {
  const std::uint64_t seed = test_seed(0x5EED0201);
  INFO(seed_message(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 30; ++iter) {
    Dims base = random_dims(rng, 4, 300, 5, 0.05);
    if (base.empty()) base.push_back(3);
    const int nd = int(base.size());
    const int axis = int(rand_int(rng, -nd, nd - 1));
    const int count = int(rand_int(rng, 1, 4));
    std::vector<HostArray<float>> hs;
    std::vector<Array<float>> ds;
    std::string what;
    for (int k = 0; k < count; ++k) {
      Dims d = base;
      d[std::size_t(norm_axis(axis, nd))] = rand_int(rng, 0, 4);  // 0 included: empty pieces
      hs.push_back(h_iota<float>(d, 1000.0 * k));
      ds.push_back(to_device(hs.back()));
      what += dims_str(d) + " ";
    }
    INFO("case " << iter << ": concatenate " << what << "along axis " << axis);
    const auto got = concatenate(ds, axis);
    require_matches(got, h_concatenate(hs, axis));
  }
}

TEST_CASE("concatenate runs one kernel per non-empty input and no upload", "[concat]") {
  const auto ha = h_iota<float>({2, 3}, 1), hb = h_iota<float>({4, 3}, 100);
  const auto a = to_device(ha), b = to_device(hb);
  const auto e = from_host(std::vector<float>{}, {0, 3});
  reset_stats();
  const auto c = concatenate(std::vector{a, e, b, e}, 0);
  CHECK(c.shape() == Shape{6, 3});
  require_matches(c, h_concatenate<float>({ha, hb}, 0));
  CHECK(stats().kernels_launched == 2);
  CHECK(stats().uploads == 0);
  SECTION("all inputs empty") {
    const auto z = concatenate(std::vector{e, e}, 0);
    CHECK(z.shape() == Shape{0, 3});
    CHECK(z.to_host().empty());
    const auto w = concatenate(std::vector{from_host(std::vector<float>{}, {0, 2}), from_host(std::vector<float>{}, {0, 5})}, 1);
    CHECK(w.shape() == Shape{0, 7});
    CHECK(w.to_host().empty());
  }
  SECTION("a single input is a copy of it") { require_matches(concatenate(std::vector{a}, -1), ha); }
}

TEST_CASE("concatenate of mixed dtypes promotes like NumPy", "[concat][dtype]") {
  // The typed API joins arrays of one element type; the graph promotes
  // (numpy.concatenate's result_type), which the node-level entry point shows.
  const auto i = from_host(std::vector<std::int32_t>{1, -2, 3});
  const auto f = from_host(std::vector<float>{0.5f, 1.5f});
  const auto u = from_host(std::vector<std::uint8_t>{200, 255});
  const auto s = from_host(std::vector<std::int8_t>{-128, 7});
  const auto b = from_host(std::vector<bool>{true, false});
  SECTION("int32 and float32 give float64") {
    const Array<double> r(detail::make_concat({i.node(), f.node()}, 0));
    CHECK(detail::node_dtype(r.node()) == DType::Float64);
    CHECK(r.to_host() == std::vector<double>{1, -2, 3, 0.5, 1.5});
  }
  SECTION("uint8 and int8 give int16") {
    const Array<std::int16_t> r(detail::make_concat({u.node(), s.node()}, 0));
    CHECK(detail::node_dtype(r.node()) == DType::Int16);
    CHECK(r.to_host() == std::vector<std::int16_t>{200, 255, -128, 7});
  }
  SECTION("bool and int32 give int32") {
    const Array<std::int32_t> r(detail::make_concat({b.node(), i.node()}, 0));
    CHECK(detail::node_dtype(r.node()) == DType::Int32);
    CHECK(r.to_host() == std::vector<std::int32_t>{1, 0, 1, -2, 3});
  }
}

TEST_CASE("concatenate of expressions views generators and reductions", "[concat]") {
  const auto hx = h_iota<float>({3, 4}, 1), hy = h_iota<float>({4, 3}, 50);
  const auto x = to_device(hx), y = to_device(hy);
  auto add = [](const std::vector<float>& v) {
    float s = 0;
    for (float e : v) s += e;
    return s;
  };
  SECTION("an expression, a transposed view, a reversed slice, a generator") {
    reset_stats();
    const auto c = concatenate(std::vector{x * 2.0f, transpose(y), slice(x, 0, std::nullopt, std::nullopt, -2), ones<float>(Shape{1, 4})}, 0);
    const auto want = h_concatenate<float>({h_map<float>(hx, [](float v) { return v * 2.0f; }), h_transpose(hy),
                                            h_slice(hx, {Slice{{}, {}, -2}}), h_generate<float>({1, 4}, [](const Dims&) { return 1.0f; })},
                                           0);
    require_matches(c, want);
    CHECK(stats().kernels_launched == 4);
    CHECK(stats().uploads == 0);
  }
  SECTION("reductions as inputs are computed first") {
    const auto c = concatenate(std::vector{sum(x, 0, true), sum(transpose(y), 0, true)}, 0);
    require_matches(c, h_concatenate<float>({h_reduce<float>(hx, {0}, false, true, add), h_reduce<float>(h_transpose(hy), {0}, false, true, add)}, 0));
  }
  SECTION("a concatenation inside an expression, a view and a reduction") {
    const auto c = concatenate(std::vector{x, transpose(y)}, -1);  // (3, 7)
    const auto hc = h_concatenate<float>({hx, h_transpose(hy)}, -1);
    require_matches(c * 2.0f + 1.0f, h_map<float>(hc, [](float v) { return v * 2.0f + 1.0f; }));
    require_matches(transpose(c), h_transpose(hc));
    require_matches(sum(c, 1), h_reduce<float>(hc, {1}, false, false, add));
    require_matches(concatenate(std::vector{c, c}, 0), h_concatenate<float>({hc, hc}, 0));  // of a concatenation
  }
}

TEST_CASE("stack joins arrays of one shape along a new axis", "[concat][stack]") {
  const auto ha = h_iota<float>({2, 3}, 1), hb = h_iota<float>({2, 3}, 100);
  const auto a = to_device(ha), b = to_device(hb);
  for (const int axis : {0, 1, 2, -1, -3}) {
    INFO("axis " << axis);
    const auto s = stack(std::vector{a, b, a}, axis);
    const auto want = h_concatenate<float>({h_expand_dims(ha, axis), h_expand_dims(hb, axis), h_expand_dims(ha, axis)}, axis);
    CHECK(s.ndim() == 3);
    require_matches(s, want);
  }
  const auto p = from_host(std::vector<float>{1.0f}, Shape{}), q = from_host(std::vector<float>{2.0f}, Shape{});
  CHECK(stack(std::vector{p, q}).shape() == Shape{2});
  CHECK(stack(std::vector{p, q}).to_host() == std::vector<float>{1, 2});
  CHECK(stack(std::vector{transpose(a), transpose(b)}, 1).shape() == Shape{3, 2, 2});
  SECTION("errors") {
    const auto c = from_host(std::vector<float>(6), {3, 2});
    const std::string m = shape_error_message([&] { (void)stack(std::vector{a, c}); });
    CHECK(contains(m, "(2, 3)"));
    CHECK(contains(m, "(3, 2)"));
    CHECK_THROWS_AS(stack(std::vector<Array<float>>{}), Error);
    CHECK_THROWS_AS(stack(std::vector{a, b}, 3), AxisError);  // a ShapeError, as every axis out of range
    CHECK_THROWS_AS(stack(std::vector{a, b}, -4), ShapeError);
  }
}

TEST_CASE("concatenate errors name the shapes", "[concat]") {
  const auto a = from_host(std::vector<float>(6), {2, 3});
  const auto b = from_host(std::vector<float>(8), {2, 4});
  CHECK(concatenate(std::vector{a, b}, 1).shape() == Shape{2, 7});
  const std::string m = shape_error_message([&] { (void)concatenate(std::vector{a, b}, 0); });
  CHECK(contains(m, "(2, 3)"));
  CHECK(contains(m, "(2, 4)"));
  CHECK_THROWS_AS(concatenate(std::vector{a, from_host(std::vector<float>(6), {6})}, 0), ShapeError);  // different ndim
  CHECK_THROWS_AS(concatenate(std::vector{a, b}, 2), AxisError);
  CHECK_THROWS_AS(concatenate(std::vector{a, b}, -3), ShapeError);
  CHECK_THROWS_AS(concatenate(std::vector<Array<float>>{}), Error);
  const auto s = from_host(std::vector<float>{1.0f}, Shape{});
  CHECK_THROWS_AS(concatenate(std::vector{s, s}), ShapeError);  // 0-d arrays have no axis to join
}

TEST_CASE("concatenate and stack take a braced list of arrays", "[concat][api]") {
  // numpy.concatenate((a, b)) and numpy.stack((a, b)), spelled the C++ way.
  const auto a = from_host(std::vector<float>{1, 2}), b = from_host(std::vector<float>{3});
  CHECK(concatenate({a, b}).to_host() == std::vector<float>{1, 2, 3});
  CHECK(concatenate({a, a}, -1).to_host() == std::vector<float>{1, 2, 1, 2});
  CHECK(stack({a, a}).shape() == Shape{2, 2});
  CHECK(stack({a, a * 2.0f}, 1).to_host() == std::vector<float>{1, 2, 2, 4});
}

TEST_CASE("kernel_source of a concatenate shows the kernel of each input", "[concat]") {
  using Catch::Matchers::Contains;
  reset_stats();
  auto a = fusecl::from_host(std::vector<float>{1, 2, 3}, {1, 3});
  auto b = fusecl::from_host(std::vector<float>{4, 5, 6, 7, 8, 9}, {2, 3});
  auto e = fusecl::from_host(std::vector<float>{}, {0, 3});
  auto c = fusecl::concatenate({a * 2.0f, e, b + 1.0f}, 0);
  const std::string src = fusecl::kernel_source(c);
  CHECK_THAT(src, Contains("concatenate along axis 0 into shape (3, 3): 2 kernel(s)"));
  CHECK_THAT(src, Contains("input 0, shape (1, 3) -> [0, 1) along axis 0"));
  CHECK_THAT(src, Contains("input 2, shape (2, 3) -> [1, 3) along axis 0"));
  CHECK(src.find("input 1,") == std::string::npos);  // empty: no kernel
  std::size_t kernels = 0;
  for (auto p = src.find("__kernel"); p != std::string::npos; p = src.find("__kernel", p + 1)) ++kernels;
  CHECK(kernels == 2);
  // Showing the source evaluates nothing, and the values are still right.
  CHECK(fusecl::stats().kernels_launched == 0);
  CHECK(c.to_host() == std::vector<float>{2, 4, 6, 5, 6, 7, 8, 9, 10});
}
