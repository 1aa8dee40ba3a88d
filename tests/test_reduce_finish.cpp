// A reduction and its consumer in one kernel (src/reduce_finish.cpp, codegen
// KernelPlan::finish): an evaluation root that is an elementwise function of
// one reduction and scalars alone is computed where the reduction stores.
// Each case is computed both ways, the finish on and off (DeviceTuning::
// reduce_finish, FUSECL_REDUCE_FINISH), on fresh arrays of the same values:
// the finish saves one kernel, and its values are the two-kernel path's (the
// same operations on the same stored value) bit for bit where they are
// correctly rounded, and within their bound where a built-in's scalar and
// vector forms may differ (exp, log: the two paths may take either); the
// two-kernel path's are checked against the host where the values allow.
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/host_array.hpp"
#include "support/schedule_run.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

detail::DeviceState& state() { return *from_host(std::vector<float>{0.f}, {1}).node()->device; }

detail::DeviceTuning with_finish(detail::DeviceTuning t, bool on) {
  t.reduce_finish = on;
  return t;
}

// Floats of several magnitudes, some rows' lanes holding ±0, ±inf, NaN and
// denormals (a different one in each lane of a vector), so that every lane
// of a vector finish sees its own value.
std::vector<float> values(std::size_t n, std::uint64_t seed, bool edges) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  std::vector<float> h(n);
  for (auto& v : h) v = u(rng);
  if (edges) {
    const float e[] = {0.f, -0.f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(), 1e30f, -1e-30f};
    for (std::size_t i = 0; i < n; i += 37) h[i] = e[(i / 37) % 8];
  }
  return h;
}

// The same bits, or both NaN; floats within `ulps` of each other where given.
template <class T>
bool same(T a, T b, double ulps) {
  if (std::isnan(double(a)) && std::isnan(double(b))) return true;
  if constexpr (std::is_same_v<T, float>)
    if (ulps > 0) return ulp_distance_f32(a, b) <= ulps;
  if constexpr (std::is_same_v<T, double>)
    if (ulps > 0) return ulp_distance_f64(a, b) <= ulps;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Outcome {
  std::size_t kernels;
  detail::Schedule schedule;
};

// make(x) computed on a fresh array of h under t with the finish `on`.
template <class T, class Make>
auto run_case(const std::vector<T>& h, const Shape& shape, Make make, const detail::DeviceTuning& t, bool on, Outcome& o) {
  const auto x = from_host(h, shape);
  auto y = make(x);
  o.schedule = run_with(y, with_finish(t, on));
  o.kernels = o.schedule.kernel_count();
  return y.to_host();
}

// make(x) both ways: one kernel fewer with the finish, bit for bit the same
// values; the finish's schedule is returned (its kernels' plans to inspect).
template <class T, class Make>
detail::Schedule both_ways(const std::vector<T>& h, const Shape& shape, Make make, const detail::DeviceTuning& t,
                           bool fused = true, double ulps = 0) {
  Outcome on, off;
  const auto a = run_case(h, shape, make, t, true, on);
  const auto b = run_case(h, shape, make, t, false, off);
  CHECK(on.kernels + (fused ? 1 : 0) == off.kernels);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << " of " << a.size() << ": " << a[i] << " against " << b[i]);
    REQUIRE(same(a[i], b[i], ulps));
  }
  bool has_finish = false;
  for (const auto& s : on.schedule.steps) has_finish = has_finish || !s.kernel.plan.finish.empty();
  CHECK(has_finish == fused);
  return on.schedule;
}

// The host's reduction of each output of an (R, C) C-order array along `axis`.
std::vector<long double> host_reduce(const std::vector<float>& h, std::int64_t R, std::int64_t C, int axis,
                                     const std::function<long double(long double, long double)>& f, long double start) {
  std::vector<long double> out(std::size_t(axis == 0 ? C : R), start);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < C; ++j) {
      auto& o = out[std::size_t(axis == 0 ? j : i)];
      o = f(o, (long double)h[std::size_t(i * C + j)]);
    }
  return out;
}

// A logsumexp along `axis`, dims kept: log(sum(exp(x - m))) + m with
// m = max(x), which softmax's pair kernel computes in one pass.
template <class T = float>
auto lse(int axis) {
  return [axis](const Array<T>& x) {
    const auto m = max(x, axis, true);
    return log(sum(exp(x - m), axis, true)) + m;
  };
}

// 1 / sqrt(var(x) + eps) along `axis`: a moment kernel's variance.
auto rstd(int axis, bool keepdims = false) {
  return [axis, keepdims](const Array<float>& x) { return 1.0f / sqrt(var(x, axis, keepdims) + 1e-5f); };
}

// stddev(x) / mean(x) along `axis`, in percent: a moment kernel's two values.
auto cv(int axis) {
  return [axis](const Array<float>& x) { return stddev(x, axis) / mean(x, axis) * 100.0f; };
}

}  // namespace

TEST_CASE("a function of one reduction is computed where the reduction stores, in one kernel", "[reduce][finish]") {
  const auto t = detail::tuning_of(state());
  struct Case {
    std::int64_t R, C;
    int axis;
  };
  // Rows of 1, 3 and 17 (no whole vectors), 1000 and 4099 (vector tails);
  // columns few and many.
  for (const Case c : {Case{37, 1, 1}, Case{37, 3, 1}, Case{64, 17, 1}, Case{9, 1000, 1}, Case{5, 4099, 1}, Case{1000, 37, 0},
                       Case{17, 3, 0}, Case{3000, 5, 0}}) {
    INFO(c.R << " x " << c.C << ", axis " << c.axis);
    const auto h = values(std::size_t(c.R * c.C), std::uint64_t(c.R * 31 + c.C), true);
    // The norm of each row (column), halved, plus one.
    both_ways(h, {c.R, c.C}, [&](const Array<float>& x) { return sqrt(sum(x * x, c.axis)) * 0.5f + 1.0f; }, t);
    // Against the host, on values without edges.
    const auto g = values(std::size_t(c.R * c.C), std::uint64_t(c.R * 37 + c.C), false);
    const auto y = (sqrt(sum(from_host(g, {c.R, c.C}) * from_host(g, {c.R, c.C}), c.axis)) * 0.5f + 1.0f).to_host();
    const auto want = host_reduce(g, c.R, c.C, c.axis, [](long double a, long double v) { return a + v * v; }, 0);
    for (std::size_t i = 0; i < want.size(); ++i) {
      const long double w = std::sqrt(want[i]) * 0.5L + 1;
      CHECK(std::fabs((long double)y[i] - w) <= 1e-5L * w);
    }
    // The value read twice, a mean's divisor and a scalar of the finish, a
    // comparison and where().
    both_ways(h, {c.R, c.C}, [&](const Array<float>& x) {
      const auto s = sum(x, c.axis);
      return s * s + s;
    }, t);
    both_ways(h, {c.R, c.C}, [&](const Array<float>& x) { return mean(x, c.axis) - 1.5f; }, t);
    both_ways(h, {c.R, c.C}, [&](const Array<float>& x) {
      const auto m = max(x, c.axis);
      return where(isnan(m), 0.0f, exp(m) - 1.0f);
    }, t, true, 8);  // exp: 3 ulp each way (OpenCL 1.2), and the subtraction's rounding
  }
}

TEST_CASE("a reduction's finish: integers, float64, keepdims, the whole array", "[reduce][finish]") {
  const auto t = detail::tuning_of(state());
  std::mt19937_64 rng(0xf1);
  // int8 sums (int64) over rows, then integer arithmetic: exact.
  std::vector<std::int8_t> hi(std::size_t(40 * 300));
  for (auto& v : hi) v = std::int8_t(int(rng() % 256) - 128);
  hi[7] = -128, hi[300 + 9] = 127;
  const auto s = both_ways(hi, {40, 300}, [](const Array<std::int8_t>& x) { return (sum(x, 1) * 3 + 1) % 7; }, t);
  {
    const auto x = from_host(hi, {40, 300});
    const auto y = ((sum(x, 1) * 3 + 1) % 7).to_host();
    for (std::int64_t i = 0; i < 40; ++i) {
      std::int64_t a = 0;
      for (std::int64_t j = 0; j < 300; ++j) a += hi[std::size_t(i * 300 + j)];
      const std::int64_t r = (a * 3 + 1) % 7;
      CHECK(y[std::size_t(i)] == (r < 0 ? r + 7 : r));  // NumPy's remainder takes the divisor's sign
    }
  }
  // float64, a reduction kept as (R, 1), a function whose result is of another type.
  if (default_device().info().fp64) {
    std::vector<double> hd(std::size_t(33 * 129));
    std::uniform_real_distribution<double> u(0.5, 3.0);
    for (auto& v : hd) v = u(rng);
    both_ways(hd, {33, 129}, [](const Array<double>& x) { return log(max(x, 1, true)) * 2.0; }, t, true, 8);
    both_ways(hd, {33, 129}, [](const Array<double>& x) { return where(sum(x, 0) > 100.0, 1.0f, 0.0f); }, t);
  }
  // The whole array: one value, split over groups where there are many.
  for (const std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(1) << 18}) {
    INFO("the whole of " << n);
    const auto h = values(std::size_t(n), std::uint64_t(n), false);
    both_ways(h, {n}, [](const Array<float>& x) { return sqrt(abs(sum(x))) + 2.0f; }, t);
    both_ways(h, {n}, [](const Array<float>& x) { return mean(x * 0.5f) * 4.0f; }, t);
    both_ways(h, {n}, [](const Array<float>& x) { return max(x - 1.0f) / 3.0f; }, t);
  }
}

TEST_CASE("a reduction's finish in every kernel form of a GPU's and a CPU's layouts", "[reduce][finish][columns][lanes]") {
  auto& dev = state();
  // Columns in vectors of outputs (45: a tail past the last whole vector;
  // 3000 rows: parts of the rows met by a second kernel, which computes the
  // finish, a mean's divisor and the finish's scalar in its own slots).
  {
    const auto t = gpu_column_tuning(dev);
    for (const auto& [R, C] : {std::pair<std::int64_t, std::int64_t>{40, 45}, {3000, 45}, {20, 2051}}) {
      INFO("GPU columns, " << R << " x " << C);
      const auto h = values(std::size_t(R * C), std::uint64_t(R + C), true);
      // Scalars in the body too: the finish's slots follow them in the
      // first kernel and the divisor in the second.
      const auto s = both_ways(h, {R, C}, [](const Array<float>& x) { return sqrt(abs(mean(x * 2.0f, 0))) * 3.0f - 0.25f; }, t);
      both_ways(h, {R, C}, [](const Array<float>& x) { return sum(x + 1.0f, 0) * 3.0f; }, t);
      const auto& p = s.steps.front().kernel.plan;
      CHECK((p.reduce.strategy == codegen::ReduceStrategy::ColumnBlock && p.reduce.kept_inner && p.width > 1));
      // An integer power has no vector spelling: no finish in vectors of outputs.
      std::vector<std::int32_t> hi(std::size_t(R * C));
      for (std::size_t i = 0; i < hi.size(); ++i) hi[i] = std::int32_t(i % 7) - 3;
      both_ways(hi, {R, C}, [](const Array<std::int32_t>& x) { return pow(sum(x, 0), std::int64_t(2)); }, t, false);
    }
  }
  // Rows in lanes, with warps' shuffles and without; several short rows a group.
  for (const int warp : {0, 32}) {
    auto t = gpu_reduction_tuning(dev, true);
    t.row_warp = warp;
    const auto h = values(std::size_t(300 * 64), 0x64, true);
    const auto s = both_ways(h, {300, 64}, [](const Array<float>& x) { return log(max(x, 1)) + 1.0f; }, t, true, 8);
    CHECK(s.steps.front().kernel.plan.reduce.lanes_per_row > 0);
  }
  {
    const auto t = gpu_reduction_tuning(dev, false);
    const auto h = values(std::size_t(300 * 100), 0x65, true);
    const auto s = both_ways(h, {300, 100}, [](const Array<float>& x) { return sum(x, 1) / 7.0f; }, t);
    CHECK(s.steps.front().kernel.plan.reduce.strategy == codegen::ReduceStrategy::GroupPerOutput);
  }
  // A CPU's short rows a lane each, W outputs stored as one vector, and the rows short of one.
  {
    auto t = detail::tuning_of(dev);
    cpu_row_layout(t, true);
    const auto h = values(std::size_t(37 * 5), 0x66, true);
    const auto s = both_ways(h, {37, 5}, [](const Array<float>& x) { return sqrt(abs(sum(x, 1))) * 2.0f; }, t);
    CHECK(s.steps.front().kernel.plan.reduce.row_lanes);
  }
}

TEST_CASE("no finish where the reduction, or a value between it and its consumer, is wanted elsewhere", "[reduce][finish]") {
  const auto t = detail::tuning_of(state());
  const auto h = values(64 * 100, 0x70, false);
  const auto xs = [&] { return from_host(h, {64, 100}); };
  // The caller holds the reduction: it is computed into a buffer of its own,
  // which it then reads with no kernel.
  {
    const auto s = sum(xs(), 1);
    auto y = sqrt(abs(s));
    reset_stats();
    eval(y);
    CHECK(stats().kernels_launched == 2);
    CHECK(s.node()->op == Op::Buffer);
    reset_stats();
    (void)s.to_host();
    CHECK(stats().kernels_launched == 0);
  }
  // A value between them: the reduction is computed into a buffer of its
  // own, from which the value (computed inside the consumer's kernel, as
  // every elementwise value between a reduction and its reader is) can be
  // computed again without a pass over x.
  {
    const auto m = sum(xs(), 1) * 2.0f;
    auto y = sqrt(abs(m));
    reset_stats();
    eval(y);
    CHECK(stats().kernels_launched == 2);
    CHECK(m.node()->inputs[0]->op == Op::Buffer);
  }
  // Both evaluated together.
  {
    const auto s = sum(xs(), 1);
    auto y = s + 1.0f;
    reset_stats();
    eval(y, s);
    CHECK(stats().kernels_launched == 2);
  }
  // Anything else read beside the reduction: another reduction, an array, an arg-reduction.
  both_ways(h, {64, 100}, [](const Array<float>& x) { return sum(x, 1) + max(x, 1); }, t, false);
  const auto z = from_host(values(64, 0x71, false), {64});
  both_ways(h, {64, 100}, [&](const Array<float>& x) { return sum(x, 1) + z; }, t, false);
  both_ways(h, {64, 100}, [](const Array<float>& x) { return argmax(x, 1) + std::int64_t(1); }, t, false);
}

TEST_CASE("softmax's pair computes its consumer where it stores: a logsumexp in one kernel", "[reduce][finish][pairs]") {
  // log(sum(exp(x - m))) + m, m = max(x): one pair kernel computes the max
  // and the sum in one pass (schedule_pairs.cpp), and with the finish the
  // log and the add where it stores, not in a kernel of their own. A GPU's
  // layout on any device, the pair for any sum: a group per row (rows with
  // vector tails), column blocks in vectors down a leading axis; each also
  // split into parts, whose second kernel merges them and computes the finish.
  auto t = gpu_column_tuning(state());
  t.pair_kernels = true;
  t.pair_sum_elements = 1;
  t.row_warp = 0;  // no warp shuffles on a device without them
  t.local_size = 64, t.max_work_group_size = 256, t.row_bytes = 4096, t.local_mem_bytes = 4096;
  struct Case {
    std::int64_t R, C;
    int axis, target_groups;
    codegen::ReduceStrategy strategy;
    bool split;
  };
  constexpr auto group = codegen::ReduceStrategy::GroupPerOutput, columns = codegen::ReduceStrategy::ColumnBlock;
  for (const Case c : {Case{50, 3000, 1, 1, group, false}, Case{20, 3001, 1, 1, group, false}, Case{3, 40000, 1, 64, group, true},
                       Case{2000, 64, 0, 1, columns, false}, Case{3000, 48, 0, 8, columns, true}}) {
    INFO(c.R << " x " << c.C << ", axis " << c.axis);
    auto tc = t;
    tc.target_groups = c.target_groups;
    // Edge values in the first quarter (NaN and inf where they fall, rows
    // or columns of finite values past it), and a row whose reference
    // moves at every third element.
    auto h = values(std::size_t(c.R * c.C), std::uint64_t(c.R * 7 + c.C), false);
    for (std::size_t i = 0; i < h.size() / 4; i += 997) h[i] = std::array{INFINITY, -INFINITY, NAN, 0.f, -0.f}[(i / 997) % 5];
    for (std::int64_t k = 1; k < (c.axis == 1 ? c.C : c.R); k += 3)
      h[std::size_t(c.axis == 1 ? c.C + k : k * c.C + 1)] = float(k % 50) * 3.0f;
    // exp and log within 3 ulp each, in vector or scalar forms either way.
    const auto s = both_ways(h, {c.R, c.C}, lse(c.axis), tc, true, 16);
    REQUIRE(s.kernel_count() == 1);  // the split rows' second kernel is launched with it
    const auto& p = s.steps.front().kernel.plan;
    CHECK(p.reduce.online);
    CHECK(p.reduce.strategy == c.strategy);
    CHECK(p.reduce.two_stage == c.split);
    CHECK(p.finish.size() == 4);
    // A scalar of the finish beside the body's: its own slot, in the
    // second kernel's too where the rows are split.
    both_ways(h, {c.R, c.C}, [&](const Array<float>& x) { return (lse(c.axis)(x) - 1.5f) * 2.0f; }, tc, true, 16);
  }
  // float64 rows, vectors of double2.
  {
    std::vector<double> h(std::size_t(6 * 5003));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.37) * 40.0 + double(i % 7);
    h[2 * 5003 + 7] = INFINITY;
    if (default_device().info().fp64)
      both_ways(h, {6, 5003}, lse<double>(1), t, true, 16);
  }
  // Declined: the caller holds the max, or the sum; the consumer reads an
  // array beside them.
  const auto h = values(std::size_t(20 * 3001), 0x73, false);
  {
    const auto x = from_host(h, {20, 3001});
    const auto m = max(x, 1, true);
    const auto y = log(sum(exp(x - m), 1, true)) + m;
    CHECK(run_with(y, t).kernel_count() == 2);
  }
  {
    const auto x = from_host(h, {20, 3001});
    const auto m = max(x, 1, true);
    const auto s = sum(exp(x - m), 1, true);
    const auto y = log(s) + m;
    CHECK(run_with(y, t).kernel_count() == 2);
  }
  const auto z = from_host(values(20, 0x74, false), {20, 1});
  both_ways(h, {20, 3001}, [&](const Array<float>& x) { return lse(1)(x) + z; }, t, false);
  // Replayed by fuse on new values, with this device's own tuning (every
  // device takes the pair for rows of 8192): one kernel, the eager values.
  auto f = fuse(lse(1));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto x = from_host(values(std::size_t(4 * 8192), 0x75 + seed, seed == 2), {4, 8192});
    reset_stats();
    const auto got = f(x).to_host();
    CHECK(stats().kernels_launched == 1);
    const auto want = lse(1)(x).to_host();
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(same(got[i], want[i], 0));
  }
  CHECK(f.info().replays == 2);
}

TEST_CASE("a pair kernel's finish along every axis of 3-D arrays, wherever the pair kernel is taken", "[reduce][finish][pairs][moments]") {
  // Whether a pair or moment kernel computes the reduction depends on the
  // axis and the layout; wherever one does (with the finish off), the finish
  // must be taken, one kernel fewer, and the values the same.
  auto& dev = state();
  auto gpu = gpu_column_tuning(dev);
  gpu.pair_kernels = true, gpu.pair_sum_elements = 1, gpu.one_pass_moments = default_device().info().fp64, gpu.moment_width = 2;
  gpu.row_warp = 0, gpu.local_size = 64, gpu.max_work_group_size = 256;
  int paired = 0;
  for (const auto& t : {gpu, detail::tuning_of(dev)}) {
    for (const Dims& d : {Dims{4, 300, 16}, Dims{3, 8, 2000}, Dims{200, 4, 8}, Dims{2, 3, 8192}}) {
      for (int axis = 0; axis < 3; ++axis) {
        INFO(Shape(d).str() << ", axis " << axis);
        const auto h = values(std::size_t(d[0] * d[1] * d[2]), std::uint64_t(d[0] * 7 + d[2] + axis), false);
        for (int which = 0; which < 2; ++which) {
          const auto make = [&](const Array<float>& x) { return which == 0 ? lse(axis)(x) : rstd(axis, true)(x); };
          Outcome off;
          (void)run_case(h, Shape(d), make, t, false, off);
          bool pair = false;
          for (const auto& st : off.schedule.steps) pair = pair || st.kernel.plan.reduce.online || st.kernel.plan.reduce.moment != 0;
          paired += pair ? 1 : 0;
          both_ways(h, Shape(d), make, t, pair, 16);
        }
      }
    }
  }
  CHECK(paired >= 12);  // most of them, on every device: the test is not empty
}

TEST_CASE("a moment kernel computes its consumer where it stores: 1 / sqrt(var + eps), std / mean", "[reduce][finish][moments]") {
  // A var/std computed in one pass (a moment kernel, where the device has
  // float64): a function of it alone, or of it and a mean of the same x over
  // the same axes (the kernel's second value), where it stores. Every
  // moment form: a GPU's group per row and rows in lanes, its column blocks
  // in vectors (split into parts for 3000 rows, the second kernel
  // computing the finish), a CPU's rows a lane each, and float64's forms
  // (Chan's update).
  if (!default_device().info().fp64) return;
  auto& dev = state();
  struct Form {
    const char* name;
    detail::DeviceTuning t;
    std::int64_t R, C;
    int axis;
  };
  auto rows = gpu_reduction_tuning(dev, false), lanes = gpu_reduction_tuning(dev, true), columns = gpu_column_tuning(dev),
       cpu = detail::tuning_of(dev);
  columns.one_pass_moments = true;
  columns.moment_width = 2;
  cpu_row_layout(cpu, true);
  for (const Form& f : {Form{"GPU rows", rows, 50, 1000, 1}, Form{"GPU rows in lanes", lanes, 300, 64, 1},
                        Form{"GPU columns", columns, 40, 64, 0}, Form{"GPU columns, split", columns, 3000, 48, 0},
                        Form{"CPU rows", cpu, 37, 5, 1}, Form{"this device", detail::tuning_of(dev), 64, 4099, 1}}) {
    INFO(f.name << ", " << f.R << " x " << f.C << ", axis " << f.axis);
    auto h = values(std::size_t(f.R * f.C), std::uint64_t(f.R + f.C), false);
    // Edge values in the first rows (NaN, inf there), a row of one value
    // repeated (variance 0: 1 / sqrt(eps)), finite values past them.
    for (std::size_t i = 0; i < h.size() / 8; i += 29) h[i] = std::array{INFINITY, -INFINITY, NAN, 0.f, -0.f, 1e30f}[(i / 29) % 6];
    for (std::int64_t k = 0; k < (f.axis == 1 ? f.C : f.R); ++k) h[std::size_t(f.axis == 1 ? (f.R - 1) * f.C + k : k * f.C + f.C - 1)] = 2.5f;
    const auto s = both_ways(h, {f.R, f.C}, rstd(f.axis), f.t);
    const auto& p = s.steps.front().kernel.plan;
    CHECK(p.reduce.moment == 1);
    CHECK(p.reduce.two_stage == (f.R == 3000));
    if (f.axis == 0 || f.t.lane_rows || f.t.row_lanes) CHECK(p.width > 1);  // vectors of outputs, or of rows in lanes
    both_ways(h, {f.R, f.C}, cv(f.axis), f.t);
    std::vector<double> hd(h.begin(), h.end());
    const auto sd = both_ways(hd, {f.R, f.C}, [&](const Array<double>& x) { return 1.0 / sqrt(var(x, f.axis) + 1e-12); }, f.t);
    CHECK(sd.steps.front().kernel.plan.reduce.moment == 1);
    const auto sd2 = both_ways(hd, {f.R, f.C}, [&](const Array<double>& x) { return stddev(x, f.axis) / mean(x, f.axis); }, f.t);
    CHECK(sd2.steps.front().kernel.plan.reduce.moment == 2);
  }
  // Against the host on finite values: rows of 1000, a GPU's group per row.
  {
    const auto g = values(std::size_t(50 * 1000), 0x76, false);
    const auto x = from_host(g, {50, 1000});
    const auto y = rstd(1)(x);
    CHECK(run_with(y, rows).kernel_count() == 1);
    const auto got = y.to_host();
    for (std::size_t r = 0; r < 50; ++r) {
      long double s = 0, q = 0;
      for (std::size_t k = 0; k < 1000; ++k) s += g[r * 1000 + k];
      for (std::size_t k = 0; k < 1000; ++k) q += (g[r * 1000 + k] - s / 1000) * (g[r * 1000 + k] - s / 1000);
      const long double want = 1 / std::sqrt(q / 1000 + 1e-5L);
      CHECK(std::fabs((long double)got[r] - want) <= 4 * FLT_EPSILON * want);
    }
  }
  // Declined: the caller holds the variance (it is stored for it).
  const auto h = values(std::size_t(50 * 1000), 0x77, false);
  const auto x = from_host(h, {50, 1000});
  const auto v = var(x, 1);
  const auto y = 1.0f / sqrt(v + 1e-5f);
  CHECK(run_with(y, rows).kernel_count() == 2);
}

TEST_CASE("a reduction's finish called again with new scalars", "[reduce][finish]") {
  const auto h = values(16 * 200, 0x72, false);
  const auto x = from_host(h, {16, 200});
  const auto want = host_reduce(h, 16, 200, 1, [](long double a, long double v) { return a + v; }, 0);
  for (const float c : {2.0f, 3.0f, -0.5f}) {
    reset_stats();
    const auto y = (sum(x, 1) * c).to_host();
    CHECK(stats().kernels_launched == 1);
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(std::fabs((long double)y[i] - want[i] * c) <= 1e-5L * (1 + std::fabs(want[i] * c)));
  }
}

TEST_CASE("a reduction's finish replayed by fuse", "[reduce][finish][fuse]") {
  auto norm = fuse([](const Array<float>& x) { return sqrt(sum(x * x, 1)) * 0.5f; });
  for (const std::int64_t cols : {1, 17, 1000}) {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const auto h = values(std::size_t(9 * cols), seed * 100 + std::uint64_t(cols), true);
      const auto x = from_host(h, {9, cols});
      reset_stats();
      const auto got = norm(x).to_host();
      CHECK(stats().kernels_launched == 1);
      const auto want = (sqrt(sum(x * x, 1)) * 0.5f).to_host();
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(same(got[i], want[i], 0));
    }
  }
  CHECK(norm.info().replays == 3);
  CHECK(norm.info().unreplayed == 0);
  // The function's scalar arguments (0-d arrays whose value each replay
  // sets) read by the finish: one kernel a call, each call's values.
  auto scaled = fuse([](const Array<float>& x, const Array<float>& c, const Array<float>& eps) {
    return sqrt(sum(x * x, 1) + eps) * c;
  });
  auto inv_std = fuse([](const Array<float>& x, const Array<float>& eps) { return 1.0f / sqrt(var(x, 1) + eps); });
  const auto h = values(9 * 1000, 0x78, true);
  const auto x = from_host(h, {9, 1000});
  for (const float c : {0.5f, 2.0f, -3.0f}) {
    reset_stats();
    const auto got = scaled(x, c, c * c).to_host();
    CHECK(stats().kernels_launched == 1);
    const auto want = (sqrt(sum(x * x, 1) + c * c) * c).to_host();
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(same(got[i], want[i], 0));
    if (default_device().info().fp64) {
      reset_stats();
      const auto r = inv_std(x, c * c).to_host();
      CHECK(stats().kernels_launched == 1);
      const auto w = (1.0f / sqrt(var(x, 1) + c * c)).to_host();
      for (std::size_t i = 0; i < w.size(); ++i) CHECK(same(r[i], w[i], 0));
    }
  }
  CHECK(scaled.info().replays == 2);
  CHECK(scaled.info().unreplayed == 0);
}
