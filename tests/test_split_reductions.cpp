// Split ("two-stage") reductions finish in one of two ways (render_reduce.cpp):
// the last work-group to finish combines the partials, counted with OpenCL C
// 2.0 acq_rel atomics where the device has them, or a second small kernel
// does. Every reduction op is checked against the host reference with both
// finishes (set_reduce_two_kernels forces the second kernel on any device),
// on a layout of every strategy, with extremes placed in different groups so
// that combining the partials matters, and different values in every lane.
#include "src/launch.hpp"
#include "support/device_compare.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cfloat>
#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace fusecl;
using namespace fusecl::test;

namespace {

long double ref_var(const std::vector<float>& xs) {
  long double mean = 0, ss = 0;
  for (float x : xs) mean += x;
  mean /= static_cast<long double>(xs.size());
  for (float x : xs) ss += (x - mean) * (x - mean);
  return ss / static_cast<long double>(xs.size());
}

struct Layout {
  const char* what;
  Dims shape;
  int axis;        // reduced axis; -99: every axis
  bool split;      // a split reduction on any device of up to ~500 compute units
};

// Sets the finish for the scope of a test and restores the device default.
struct TwoKernels {
  explicit TwoKernels(bool on) { detail::set_reduce_two_kernels(on); }
  ~TwoKernels() { detail::set_reduce_two_kernels(false); }
  TwoKernels(const TwoKernels&) = delete;
  TwoKernels& operator=(const TwoKernels&) = delete;
};

// Small integers (exact sums in any order); the extremes twice each, in
// different thirds of every row, so the first occurrence lies in another
// work-group than the second.
HostArray<float> data_for(const Dims& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto h = h_generate<float>(shape, [&](const Dims&) { return float(rand_int(rng, -50, 50)); });
  const std::int64_t m = shape.back(), rows = numel(shape) / m;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = h.data.data() + r * m;
    row[m * 2 / 3] = row[m - 1] = 1000.0f + float(r);
    row[m / 3] = row[m * 5 / 6] = -1000.0f - float(r);
  }
  return h;
}

template <class R, class T>
HostArray<R> host_reduce(const HostArray<T>& h, int axis, const std::function<R(const std::vector<T>&)>& f) {
  return axis == -99 ? h_reduce<R>(h, {}, true, false, f) : h_reduce<R>(h, {axis}, false, false, f);
}

void check_every_op(const Layout& L, bool two_kernels) {
  INFO(L.what << (two_kernels ? ", second kernel" : ", device default finish"));
  const auto h = data_for(L.shape, 7001);
  const auto x = to_device(h);
  const int ax = L.axis;
  auto all_axes = [&](auto one_axis, auto whole) { return ax == -99 ? whole(x) : one_axis(x, ax); };

  // Exact: sums, extremes and their indices of small integers.
  require_matches(all_axes([](auto& a, int k) { return sum(a, k); }, [](auto& a) { return sum(a); }),
                  host_reduce<float, float>(h, ax, [](const std::vector<float>& v) { return ref_reduce_as<float>(Op::Sum, v); }));
  require_matches(all_axes([](auto& a, int k) { return min(a, k); }, [](auto& a) { return min(a); }),
                  host_reduce<float, float>(h, ax, [](const std::vector<float>& v) { return ref_reduce_as<float>(Op::Min, v); }));
  require_matches(all_axes([](auto& a, int k) { return max(a, k); }, [](auto& a) { return max(a); }),
                  host_reduce<float, float>(h, ax, [](const std::vector<float>& v) { return ref_reduce_as<float>(Op::Max, v); }));
  require_matches(all_axes([](auto& a, int k) { return argmin(a, k); }, [](auto& a) { return argmin(a); }),
                  host_reduce<std::int64_t, float>(h, ax, [](const std::vector<float>& v) { return ref_reduce_as<std::int64_t>(Op::ArgMin, v); }));
  require_matches(all_axes([](auto& a, int k) { return argmax(a, k); }, [](auto& a) { return argmax(a); }),
                  host_reduce<std::int64_t, float>(h, ax, [](const std::vector<float>& v) { return ref_reduce_as<std::int64_t>(Op::ArgMax, v); }));

  // Products of +-1 with a few 2s: exact.
  auto signs = h_map<float>(h, [](float v) { return v == 1000.0f ? 2.0f : v < 0 ? -1.0f : 1.0f; });
  const auto xs = to_device(signs);
  require_matches(ax == -99 ? prod(xs) : prod(xs, ax),
                  host_reduce<float, float>(signs, ax, [](const std::vector<float>& v) { return ref_reduce_as<float>(Op::Prod, v); }));

  // all / any of bools: one false (true) value, late in the row.
  auto nonzero = h_map<bool>(h, [](float v) { return v != -1000.0f; });
  auto only_one = h_map<bool>(h, [](float v) { return v == 1000.0f; });
  const auto bn = to_device(nonzero), bo = to_device(only_one);
  require_matches(ax == -99 ? all(bn) : all(bn, ax),
                  host_reduce<bool, bool>(nonzero, ax, [](const std::vector<bool>& v) { return ref_reduce_as<bool>(Op::All, v); }));
  require_matches(ax == -99 ? any(bo) : any(bo, ax),
                  host_reduce<bool, bool>(only_one, ax, [](const std::vector<bool>& v) { return ref_reduce_as<bool>(Op::Any, v); }));
  const auto no_true = to_device(h_map<bool>(h, [](float) { return false; }));
  for (bool b : (ax == -99 ? any(no_true) : any(no_true, ax)).to_host()) CHECK_FALSE(b);

  // Mean: an exact sum, one rounded division. var / std: within 16 ulp.
  const auto mean_want = host_reduce<double, float>(h, ax, [](const std::vector<float>& v) {
    double s = 0;
    for (float f : v) s += f;
    return s / double(v.size());
  });
  const auto var_want = host_reduce<double, float>(h, ax, [](const std::vector<float>& v) { return double(ref_var(v)); });
  const auto got_mean = (ax == -99 ? mean(x) : mean(x, ax)).to_host();
  const auto got_var = (ax == -99 ? var(x) : var(x, ax)).to_host();
  const auto got_std = (ax == -99 ? stddev(x) : stddev(x, ax)).to_host();
  REQUIRE(got_mean.size() == mean_want.data.size());
  for (std::size_t i = 0; i < got_mean.size(); ++i) {
    CHECK_EACH(std::fabs(double(got_mean[i]) - mean_want.data[i]) <= FLT_EPSILON * std::fabs(mean_want.data[i]), "output " << i);
    CHECK_EACH(std::fabs(double(got_var[i]) - var_want.data[i]) <= 16 * FLT_EPSILON * var_want.data[i], "output " << i);
    CHECK_EACH(std::fabs(double(got_std[i]) - std::sqrt(var_want.data[i])) <= 16 * FLT_EPSILON * std::sqrt(var_want.data[i]), "output " << i);
  }
}

const Layout kLayouts[] = {
    {"sum of all of 2^18 elements (split)", {1 << 18}, -99, true},
    {"rows of (3, 100003) (split, several outputs, a scalar tail)", {3, 100003}, 1, true},
    {"rows of (40, 1000) (a group per row)", {40, 1000}, 1, false},
    {"rows of (300, 16) (a work-item per row)", {300, 16}, 1, false},
};

bool is_split(const std::string& src) { return src.find("scratch") != std::string::npos; }

}  // namespace

TEST_CASE("every reduction op with split reductions finished by the last work-group", "[reduce][split]") {
  TwoKernels mode(false);
  for (const Layout& L : kLayouts) {
    const auto x = to_device(data_for(L.shape, 1));
    const auto r = L.axis == -99 ? sum(x) : sum(x, L.axis);
    const std::string src = kernel_source(r);
    INFO(L.what);
    CHECK(is_split(src) == L.split);
    if (L.split) {
      // Where the device's OpenCL C has acq_rel device-scope atomics the last
      // group finishes; elsewhere (OpenCL 1.2) the second kernel is the default.
      const bool atomics = src.find("atomic_fetch_add_explicit") != std::string::npos;
      if (!atomics) WARN("device '" << device().name << "' has no OpenCL C 2.0 atomics: its default is the second kernel");
      CHECK(src.find("atomic_inc") == std::string::npos);
      reset_stats();
      r.to_host();
      CHECK(stats().kernels_launched == (atomics ? 1 : 2));
    }
    check_every_op(L, false);
  }
}

TEST_CASE("every reduction op with split reductions finished by a second kernel", "[reduce][split]") {
  TwoKernels mode(true);
  for (const Layout& L : kLayouts) {
    const auto x = to_device(data_for(L.shape, 1));
    const auto r = L.axis == -99 ? sum(x) : sum(x, L.axis);
    const std::string src = kernel_source(r);
    INFO(L.what);
    CHECK(is_split(src) == L.split);
    CHECK(src.find("atomic") == std::string::npos);
    reset_stats();
    r.to_host();
    CHECK(stats().kernels_launched == (L.split ? 2 : 1));  // the partials' kernel, then the combining one
    CHECK(stats().downloads == 1);
    check_every_op(L, true);
  }
}

TEST_CASE("split reductions with both finishes one after the other leave each other's scratch alone", "[reduce][split]") {
  // The last-group finish keeps per-output counters that must be zero before
  // each launch; the second kernel keeps none. Alternating them, with
  // different output counts, checks that neither disturbs the other.
  for (int round = 0; round < 3; ++round) {
    TwoKernels mode(round % 2 == 1);
    CHECK(sum(from_host(std::vector<float>(std::size_t(1) << 20, 1.0f))).to_host() == std::vector<float>{1048576.0f});
    CHECK(sum(from_host(std::vector<float>(600000, 2.0f), {3, 200000}), 1).to_host() == std::vector<float>(3, 400000.0f));
    CHECK(argmax(from_host(std::vector<float>(300000, 1.0f), {2, 150000}), 1).to_host() == std::vector<std::int64_t>(2, 0));
  }
}
