// Every unary op of op.hpp, for every dtype it accepts, through the typed API,
// against the host reference evaluator (tests/support/reference.hpp) at the
// OpenCL accuracy of each op (tests/support/ulp.hpp).
//
// One kernel per input dtype: all ops of that dtype are outputs of a single
// fused kernel (so the cold run builds 11 kernels, not 11 x 34). Inputs (see
// support/op_check.hpp for the layout): the dtype's edge values, random bit
// patterns over the whole range and random values in [-8, 8], each filling
// a vector, then a scalar tail; mixed moderate values, different in every
// lane; the edge values through the scalar path alone, in runs shorter than
// a vector; sizes 1 and 0. All of these run the same kernel.
#include "support/op_check.hpp"
#include "support/reference.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

constexpr Op kUnaryOps[] = {
    Op::Neg,   Op::LogicalNot, Op::BitNot, Op::Abs,   Op::Sqrt,  Op::Rsqrt, Op::Cbrt,  Op::Exp,   Op::Exp2,
    Op::Expm1, Op::Log,        Op::Log2,   Op::Log10, Op::Log1p, Op::Sin,   Op::Cos,   Op::Tan,   Op::Asin,
    Op::Acos,  Op::Atan,       Op::Sinh,   Op::Cosh,  Op::Tanh,  Op::Asinh, Op::Acosh, Op::Atanh, Op::Floor,
    Op::Ceil,  Op::Round,      Op::Trunc,  Op::Sign,  Op::IsNan, Op::IsInf, Op::IsFinite, Op::Fabs,  Op::Rint,
    Op::Signbit, Op::Rad2Deg,  Op::Deg2Rad, Op::Spacing,
};

// ---- what the tests expect, written out here rather than taken from result_type.hpp ----

constexpr bool is_math(Op op) {
  switch (op) {
    case Op::Sqrt: case Op::Rsqrt: case Op::Cbrt: case Op::Exp: case Op::Exp2: case Op::Expm1: case Op::Log:
    case Op::Log2: case Op::Log10: case Op::Log1p: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Asin:
    case Op::Acos: case Op::Atan: case Op::Sinh: case Op::Cosh: case Op::Tanh: case Op::Asinh: case Op::Acosh:
    case Op::Atanh: case Op::Fabs: case Op::Rint: case Op::Rad2Deg: case Op::Deg2Rad: case Op::Spacing:
      return true;
    default:
      return false;
  }
}

/// The float dtype NumPy computes math functions of t in, with float32 where
/// NumPy has float16 (bool and 8-bit integers; fusecl has no float16) and for
/// 16-bit integers (NumPy: float32 too).
constexpr DType math_dtype(DType t) {
  switch (t) {
    case DType::Float32: case DType::Float64: return t;
    case DType::Bool: case DType::Int8: case DType::UInt8: case DType::Int16: case DType::UInt16: return DType::Float32;
    default: return DType::Float64;
  }
}

/// NumPy: negative and sign reject bool; invert rejects floats.
constexpr bool expect_supported(Op op, DType t) {
  switch (op) {
    case Op::Neg: case Op::Sign: return t != DType::Bool;
    case Op::BitNot: return !(t == DType::Float32 || t == DType::Float64);
    default: return true;
  }
}

constexpr DType expect_result(Op op, DType t) {
  switch (op) {
    case Op::LogicalNot: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::Signbit: return DType::Bool;
    default: return is_math(op) ? math_dtype(t) : t;
  }
}

// ---- the typed API call of each op ----

template <Op OP, class T>
auto apply(const Array<T>& x) {
  if constexpr (OP == Op::Neg) return fusecl::negative(x);
  else if constexpr (OP == Op::LogicalNot) return fusecl::logical_not(x);
  else if constexpr (OP == Op::BitNot) return fusecl::invert(x);
  else if constexpr (OP == Op::Abs) return fusecl::abs(x);
  else if constexpr (OP == Op::Sqrt) return fusecl::sqrt(x);
  else if constexpr (OP == Op::Rsqrt) return fusecl::rsqrt(x);
  else if constexpr (OP == Op::Cbrt) return fusecl::cbrt(x);
  else if constexpr (OP == Op::Exp) return fusecl::exp(x);
  else if constexpr (OP == Op::Exp2) return fusecl::exp2(x);
  else if constexpr (OP == Op::Expm1) return fusecl::expm1(x);
  else if constexpr (OP == Op::Log) return fusecl::log(x);
  else if constexpr (OP == Op::Log2) return fusecl::log2(x);
  else if constexpr (OP == Op::Log10) return fusecl::log10(x);
  else if constexpr (OP == Op::Log1p) return fusecl::log1p(x);
  else if constexpr (OP == Op::Sin) return fusecl::sin(x);
  else if constexpr (OP == Op::Cos) return fusecl::cos(x);
  else if constexpr (OP == Op::Tan) return fusecl::tan(x);
  else if constexpr (OP == Op::Asin) return fusecl::asin(x);
  else if constexpr (OP == Op::Acos) return fusecl::acos(x);
  else if constexpr (OP == Op::Atan) return fusecl::atan(x);
  else if constexpr (OP == Op::Sinh) return fusecl::sinh(x);
  else if constexpr (OP == Op::Cosh) return fusecl::cosh(x);
  else if constexpr (OP == Op::Tanh) return fusecl::tanh(x);
  else if constexpr (OP == Op::Asinh) return fusecl::asinh(x);
  else if constexpr (OP == Op::Acosh) return fusecl::acosh(x);
  else if constexpr (OP == Op::Atanh) return fusecl::atanh(x);
  else if constexpr (OP == Op::Floor) return fusecl::floor(x);
  else if constexpr (OP == Op::Ceil) return fusecl::ceil(x);
  else if constexpr (OP == Op::Round) return fusecl::round(x);
  else if constexpr (OP == Op::Trunc) return fusecl::trunc(x);
  else if constexpr (OP == Op::Sign) return fusecl::sign(x);
  else if constexpr (OP == Op::IsNan) return fusecl::isnan(x);
  else if constexpr (OP == Op::IsInf) return fusecl::isinf(x);
  else if constexpr (OP == Op::IsFinite) return fusecl::isfinite(x);
  else if constexpr (OP == Op::Fabs) return fusecl::fabs(x);
  else if constexpr (OP == Op::Rint) return fusecl::rint(x);
  else if constexpr (OP == Op::Signbit) return fusecl::signbit(x);
  else if constexpr (OP == Op::Rad2Deg) return fusecl::rad2deg(x);
  else if constexpr (OP == Op::Deg2Rad) return fusecl::deg2rad(x);
  else if constexpr (OP == Op::Spacing) return fusecl::spacing(x);
}

template <class F, std::size_t... I>
void for_each_op(F&& f, std::index_sequence<I...>) {
  (f.template operator()<kUnaryOps[I]>(), ...);
}
template <class F>
void for_each_op(F&& f) {
  for_each_op(f, std::make_index_sequence<std::size(kUnaryOps)>{});
}

struct Output {
  Op op;
  std::size_t slot;
};

/// All supported ops of x's dtype as outputs of one batch; the operator
/// spellings (-x, !x, ~x) too, which must agree with the functions.
template <class T>
Batch build(const Array<T>& x, std::vector<Output>& outs, std::vector<std::string>& problems) {
  constexpr DType D = dtype_of_v<T>;
  Batch b;
  outs.clear();
  for_each_op([&]<Op OP>() {
    if constexpr (expect_supported(OP, D)) {
      auto y = apply<OP>(x);
      using R = typename decltype(y)::value_type;
      if (dtype_of_v<R> != expect_result(OP, D))
        problems.push_back(std::string(op_name(OP)) + "(" + std::string(dtype_name(D)) + ") has dtype " +
                           std::string(dtype_name(dtype_of_v<R>)) + ", expected " +
                           std::string(dtype_name(expect_result(OP, D))));
      if (!dtype_available(dtype_of_v<R>)) return;
      outs.push_back({OP, b.add(std::string(op_name(OP)), y)});
    }
  });
  if constexpr (D != DType::Bool) outs.push_back({Op::Neg, b.add("operator-", -x)});
  outs.push_back({Op::LogicalNot, b.add("operator!", !x)});
  if constexpr (!std::is_floating_point_v<T>) outs.push_back({Op::BitNot, b.add("operator~", ~x)});
  return b;
}

/// Runs every op of T on the values `unique` laid out as `layout` (indices
/// into `unique`; empty: as they are) in one kernel, and checks each output
/// against the reference.
template <class T>
void check_run(const std::vector<Value>& unique, const std::vector<std::size_t>& layout, const std::string& label,
               bool check_types = false) {
  constexpr DType D = dtype_of_v<T>;
  const std::vector<Value> xs = layout.empty() ? unique : gather(unique, layout);
  std::vector<Output> outs;
  std::vector<std::string> problems;
  const Array<T> x = to_device<T>(xs);
  Batch b = build(x, outs, problems);
  if (check_types)
    for (const auto& p : problems) FAIL_CHECK(p);
  const std::string error = b.evaluate();
  if (!error.empty()) {
    FAIL_CHECK(std::string(dtype_name(D)) + " " + label + ": " + error);
    return;
  }
  if (!xs.empty()) CHECK(b.kernels_launched() == 1);
  const bool cr = device().correctly_rounded_sqrt;
  for (const Output& o : outs) {
    const DType out = b.dtype(o.slot);
    std::vector<Value> want;
    want.reserve(unique.size());
    for (const Value& v : unique) want.push_back(ref_unary(o.op, v, out));
    if (!layout.empty()) want = gather(want, layout);
    const Tolerance tol{tolerance_ulps(o.op, out, cr), false};
    const std::string what = b.name(o.slot) + "(" + std::string(dtype_name(D)) + " -> " + std::string(dtype_name(out)) +
                             "), " + label;
    const Comparison c = compare_values(
        what, out, b.values(o.slot), want, tol, [&](std::size_t i) { return "x=" + xs[i].to_string(); }, nullptr,
        [&](std::size_t i, const Value& got) { return known_device_defect(o.op, out, {&xs}, i, got); });
    if (!c.excused.empty()) WARN(c.excused);
    if (!c.failure.empty()) FAIL_CHECK(c.failure);
    else SUCCEED();
  }
}

template <class T>
void test_unary_dtype(std::uint64_t base) {
  constexpr DType D = dtype_of_v<T>;
  const std::string name(dtype_name(D));
  if (!dtype_available(D)) {
    WARN("no cl_khr_fp64 on " << device().name << ": unary ops on " << name << " skipped");
    return;
  }
  if (!dtype_available(math_dtype(D)))
    WARN("no cl_khr_fp64 on " << device().name << ": math functions of " << name << " (computed in float64) skipped");
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, "unary " + name);
  const InputOptions opt = device_input_options();
  const std::vector<Value> edges = edge_values(D, opt);

  // Edge values, random bit patterns over the full range and random values
  // in [-8, 8], each filling a vector (lane blocks), then a scalar tail.
  InputOptions near = opt;
  near.edge_fraction = 0;
  near.range = std::pair{-8.0, 8.0};
  const auto wide = random_values(D, 300, seed, opt);
  const auto small = random_values(D, 100, seed + 1, near);
  std::vector<Value> unique = edges;
  unique.insert(unique.end(), wide.begin(), wide.end());
  unique.insert(unique.end(), small.begin(), small.end());
  const auto layout = lane_blocks(unique.size());
  check_run<T>(unique, layout, "lane blocks, n=" + std::to_string(layout.size()), true);
  // Moderate magnitudes (|x| in [2^-30, 16) for floats), each vector
  // mixing different values: the lanes are wired right.
  const std::size_t n_mixed = with_tail(300);
  check_run<T>(moderate_values(D, n_mixed, seed + 2), {}, "mixed moderate values, n=" + std::to_string(n_mixed));
  // The same kernel on short arrays: the edge values through the scalar path alone.
  for (std::size_t i = 0; i < edges.size(); i += kTailRun) {
    const std::vector<Value> run(edges.begin() + i, edges.begin() + std::min(edges.size(), i + kTailRun));
    check_run<T>(run, {}, "edge values " + std::to_string(i) + ".." + std::to_string(i + run.size() - 1) + " alone");
  }
  check_run<T>({edges.back()}, {}, "n=1");
  check_run<T>({}, {}, "n=0");
}

}  // namespace

TEST_CASE("unary ops: the supported dtypes and result dtypes are NumPy's", "[ops][unary][promotion]") {
  for (Op op : kUnaryOps) {
    for (int d = 0; d < dtype_count; ++d) {
      const DType t = DType(d);
      INFO(op_name(op) << " on " << dtype_name(t));
      CHECK(unary_supported(op, t) == expect_supported(op, t));
      if (expect_supported(op, t)) CHECK(unary_result(op, t) == expect_result(op, t));
    }
  }
}

TEST_CASE("unary ops reject the dtypes NumPy rejects", "[ops][unary]") {
  // The typed API refuses these at compile time; the graph builder at run time.
  const auto b = from_host(std::vector<bool>{true, false});
  const auto f = from_host(std::vector<float>{1.0f});
  const auto d = from_host(std::vector<double>{1.0});
  CHECK_THROWS_AS(detail::unary(Op::Neg, b.node()), Error);
  CHECK_THROWS_AS(detail::unary(Op::Sign, b.node()), Error);
  CHECK_THROWS_AS(detail::unary(Op::BitNot, f.node()), Error);
  CHECK_THROWS_AS(detail::unary(Op::BitNot, d.node()), Error);
}

TEST_CASE("unary ops match the reference for every dtype", "[ops][unary]") {
  const std::uint64_t base = test_seed(0x5eed0001);
  for_each_type(AllTypes{}, [&]<class T>(std::type_identity<T>) {
    DYNAMIC_SECTION(dtype_name(dtype_of_v<T>)) { test_unary_dtype<T>(base); }
  });
}

TEST_CASE("unary float ops at every vector width with different values in every lane", "[ops][unary][width]") {
  // The main case runs the device's default width; here every op of each
  // float dtype runs as one kernel at widths 1 to 16, on random moderate
  // values that differ in every lane (a lane-mixing defect of a builtin, like
  // PoCL's double8 fmod, shows only there).
  const std::uint64_t base = test_seed(0x5eed0011);
  for_each_type(TypeList<float, double>{}, [&]<class T>(std::type_identity<T>) {
    constexpr DType D = dtype_of_v<T>;
    if (!dtype_available(D)) {
      WARN("no cl_khr_fp64 on " << device().name << ": unary ops on float64 at every width skipped");
      return;
    }
    INFO(seed_message(base));
    const std::size_t n = with_tail(2048);
    const auto xs = moderate_values(D, n, case_seed(base, "unary widths " + std::string(dtype_name(D))));
    for (int w : kVectorWidths) {
      const VectorWidth width(size_of(D), w);
      check_run<T>(xs, {}, "width " + std::to_string(w) + ", mixed moderate values, n=" + std::to_string(n));
    }
  });
}

TEST_CASE("unary float ops with one huge lane beside moderate ones, at every vector width", "[ops][unary][width]") {
  // PoCL's vector sin/cos/tan of float are wrong in every lane of a vector
  // that holds a lane beyond about 1e7 (sin(1e-3) gives 0.008 beside 1e10),
  // while its scalar ones are right; the main cases fill whole vectors with
  // edge values, so they never mix a huge lane with moderate ones. One lane
  // in each run of 16, at a different position each time, is huge.
  const std::uint64_t base = test_seed(0x5eed0012);
  for_each_type(TypeList<float, double>{}, [&]<class T>(std::type_identity<T>) {
    constexpr DType D = dtype_of_v<T>;
    if (!dtype_available(D)) return;
    INFO(seed_message(base));
    const std::size_t n = with_tail(1024);
    auto xs = moderate_values(D, n, case_seed(base, "unary huge lane " + std::string(dtype_name(D))));
    const T huge[] = {T(1e10), T(-3e7), T(8e6), T(1e38), T(-2.5e9), T(123456789.0), T(1e5), T(-1e20)};
    for (std::size_t i = 0, k = 0; i + 16 <= n; i += 16, ++k) xs[i + (k * 5) % 16] = Value(huge[k % std::size(huge)]);
    for (int w : kVectorWidths) {
      const VectorWidth width(size_of(D), w);
      check_run<T>(xs, {}, "width " + std::to_string(w) + ", one huge lane in 16, n=" + std::to_string(n));
    }
  });
}

TEST_CASE("degrees and radians are rad2deg and deg2rad, NumPy's products with its constants",
          "[ops][unary][numpy]") {
  const auto x = from_host(std::vector<float>{1.0f, -3.0f, 0.0f, 1e38f});
  const auto d = from_host(std::vector<double>{1.0, -180.0});
  fusecl::Array<float> a = fusecl::degrees(x), b = fusecl::rad2deg(x), c = fusecl::radians(x);
  fusecl::Array<double> e = fusecl::radians(d);
  const auto av = a.to_host(), bv = b.to_host(), cv = c.to_host();
  CHECK(av == bv);
  // NumPy's float32 constants (1.24 and 2.5): 180.0f / pi_f is one ulp
  // below 180/pi rounded; pi_f / 180.0f is pi/180 rounded.
  CHECK(av[0] == 0x1.ca5dcp+5f);
  CHECK(av[0] == 180.0f / 3.14159265358979323846f);
  CHECK(av[1] == -3.0f * 0x1.ca5dcp+5f);
  CHECK(std::isinf(av[3]));
  CHECK(cv[0] == 0.017453292519943295769f);
  if (device().fp64) CHECK(e.to_host() == std::vector<double>{0.017453292519943295769, -180.0 * 0.017453292519943295769});
}
