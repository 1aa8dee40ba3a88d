// Every binary op, through the typed API, against the host reference
// evaluator: all 11 same-dtype pairs, six mixed pairs that exercise
// promotion, and arrays with weak C++ scalars on either side (NEP 50), plus
// NumPy's special cases spelled out with literal results.
//
// One kernel per case: every op the case's dtypes support is an output of a
// single fused kernel (integer power, gcd and lcm, which have no vector form,
// get a kernel of their own so that they do not force the others onto the
// scalar path).
// Inputs (see support/op_check.hpp for the layout): every pair of the two
// dtypes' edge values, random pairs over the whole range and pairs of small
// values (shift counts, divisors, exponents), each pair filling a vector,
// then a scalar tail; mixed moderate values, different in every lane; the
// most telling edge pairs through the scalar path alone; sizes 1 and 0.
// Scalar cases run the same kernel for every edge value of the scalar.
#include "support/op_check.hpp"
#include "support/reference.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>

using namespace fusecl;
using namespace fusecl::test;

namespace {

enum class Fn : std::uint8_t {
  Add, Sub, Mul, Div, Mod, FloorDiv, TrueDiv, Eq, Ne, Lt, Le, Gt, Ge, And, Or,
  BitAnd, BitOr, BitXor, Shl, Shr, Atan2, Pow, Hypot, Fmin, Fmax, Minimum, Maximum,
  Copysign, Fmod, Nextafter, Heaviside, Xor, Gcd, Lcm, LogAddExp, LogAddExp2,
};

constexpr Fn kFns[] = {
    Fn::Add,    Fn::Sub, Fn::Mul,   Fn::Div,   Fn::Mod,   Fn::FloorDiv, Fn::TrueDiv, Fn::Eq,      Fn::Ne,
    Fn::Lt,     Fn::Le,  Fn::Gt,    Fn::Ge,    Fn::And,   Fn::Or,       Fn::BitAnd,  Fn::BitOr,   Fn::BitXor,
    Fn::Shl,    Fn::Shr, Fn::Atan2, Fn::Pow,   Fn::Hypot, Fn::Fmin,     Fn::Fmax,    Fn::Minimum, Fn::Maximum,
    Fn::Copysign, Fn::Fmod, Fn::Nextafter, Fn::Heaviside, Fn::Xor, Fn::Gcd, Fn::Lcm, Fn::LogAddExp, Fn::LogAddExp2,
};

const char* fn_name(Fn f) {
  switch (f) {
    case Fn::Add: return "+";
    case Fn::Sub: return "-";
    case Fn::Mul: return "*";
    case Fn::Div: return "/";
    case Fn::Mod: return "%";
    case Fn::FloorDiv: return "floor_divide";
    case Fn::TrueDiv: return "true_divide";
    case Fn::Eq: return "==";
    case Fn::Ne: return "!=";
    case Fn::Lt: return "<";
    case Fn::Le: return "<=";
    case Fn::Gt: return ">";
    case Fn::Ge: return ">=";
    case Fn::And: return "&&";
    case Fn::Or: return "||";
    case Fn::BitAnd: return "&";
    case Fn::BitOr: return "|";
    case Fn::BitXor: return "^";
    case Fn::Shl: return "<<";
    case Fn::Shr: return ">>";
    case Fn::Atan2: return "atan2";
    case Fn::Pow: return "pow";
    case Fn::Hypot: return "hypot";
    case Fn::Fmin: return "fmin";
    case Fn::Fmax: return "fmax";
    case Fn::Minimum: return "minimum";
    case Fn::Maximum: return "maximum";
    case Fn::Copysign: return "copysign";
    case Fn::Fmod: return "fmod";
    case Fn::Nextafter: return "nextafter";
    case Fn::Heaviside: return "heaviside";
    case Fn::Xor: return "logical_xor";
    case Fn::Gcd: return "gcd";
    case Fn::Lcm: return "lcm";
    case Fn::LogAddExp: return "logaddexp";
    case Fn::LogAddExp2: return "logaddexp2";
  }
  return "?";
}

/// The reference op. `/` is Div: floor division for an integer result, true
/// division for a float one (the reference decides by the output dtype).
constexpr Op ref_op(Fn f) {
  switch (f) {
    case Fn::Add: return Op::Add;
    case Fn::Sub: return Op::Sub;
    case Fn::Mul: return Op::Mul;
    case Fn::Div: case Fn::TrueDiv: return Op::Div;
    case Fn::Mod: return Op::Mod;
    case Fn::FloorDiv: return Op::FloorDiv;
    case Fn::Eq: return Op::Eq;
    case Fn::Ne: return Op::Ne;
    case Fn::Lt: return Op::Lt;
    case Fn::Le: return Op::Le;
    case Fn::Gt: return Op::Gt;
    case Fn::Ge: return Op::Ge;
    case Fn::And: return Op::LogicalAnd;
    case Fn::Or: return Op::LogicalOr;
    case Fn::BitAnd: return Op::BitAnd;
    case Fn::BitOr: return Op::BitOr;
    case Fn::BitXor: return Op::BitXor;
    case Fn::Shl: return Op::Shl;
    case Fn::Shr: return Op::Shr;
    case Fn::Atan2: return Op::Atan2;
    case Fn::Pow: return Op::Pow;
    case Fn::Hypot: return Op::Hypot;
    case Fn::Fmin: return Op::Fmin;
    case Fn::Fmax: return Op::Fmax;
    case Fn::Minimum: return Op::Minimum;
    case Fn::Maximum: return Op::Maximum;
    case Fn::Copysign: return Op::Copysign;
    case Fn::Fmod: return Op::Fmod;
    case Fn::Nextafter: return Op::Nextafter;
    case Fn::Heaviside: return Op::Heaviside;
    case Fn::Xor: return Op::LogicalXor;
    case Fn::Gcd: return Op::Gcd;
    case Fn::Lcm: return Op::Lcm;
    case Fn::LogAddExp: return Op::LogAddExp;
    case Fn::LogAddExp2: return Op::LogAddExp2;
  }
  return Op::Add;
}

// ---- what the tests expect, in terms of the dtype P both operands promote to ----

constexpr bool is_float_dtype(DType t) { return t == DType::Float32 || t == DType::Float64; }

/// Math functions of integers: float32 up to 16 bits (NumPy: float16 for 8
/// bits, which fusecl does not have), float64 above.
constexpr DType math_dtype(DType t) {
  switch (t) {
    case DType::Float32: case DType::Float64: return t;
    case DType::Bool: case DType::Int8: case DType::UInt8: case DType::Int16: case DType::UInt16: return DType::Float32;
    default: return DType::Float64;
  }
}

/// What fusecl supports, which is NumPy's set except that NumPy computes
/// floor_divide, remainder, power and shifts of two bools in int8 (fusecl
/// rejects them, like subtract).
constexpr bool expect_supported(Fn f, DType p) {
  switch (f) {
    case Fn::Sub: case Fn::Div: case Fn::Mod: case Fn::FloorDiv: case Fn::Pow: case Fn::Fmod: return p != DType::Bool;
    case Fn::BitAnd: case Fn::BitOr: case Fn::BitXor: return !is_float_dtype(p);
    case Fn::Shl: case Fn::Shr: case Fn::Gcd: case Fn::Lcm: return p != DType::Bool && !is_float_dtype(p);
    default: return true;
  }
}

/// The dtype the library documents: NumPy's. true_divide of integers or bools
/// is float64 at every width (NumPy has only float loops for it); the test case
/// "true_divide of integers is float64 as in NumPy" pins that separately.
constexpr DType expect_result(Fn f, DType p) {
  switch (f) {
    case Fn::Eq: case Fn::Ne: case Fn::Lt: case Fn::Le: case Fn::Gt: case Fn::Ge: case Fn::And: case Fn::Or:
    case Fn::Xor:
      return DType::Bool;
    case Fn::Atan2: case Fn::Hypot: case Fn::Copysign: case Fn::Nextafter: case Fn::Heaviside: case Fn::LogAddExp:
    case Fn::LogAddExp2:
      return math_dtype(p);
    case Fn::TrueDiv: return is_float_dtype(p) ? p : DType::Float64;
    default: return p;
  }
}

/// Integer power, gcd and lcm loop per element (no vector form): their own
/// kernel (group 1). The functions from copysign on share a third (group 2),
/// so that a case's kernels stay within the kernel-argument size (with a
/// scalar on both sides, one kernel of all ops would need 70 outputs; the
/// library then splits it, correctly, into many kernels).
constexpr int kGroups = 3;
constexpr int group_of(Fn f, DType p) {
  if ((f == Fn::Pow || f == Fn::Gcd || f == Fn::Lcm) && !is_float_dtype(p)) return 1;
  return f >= Fn::Copysign ? 2 : 0;
}

const char* group_label(int group) {
  return group == 1 ? " (integer power, gcd and lcm kernel)" : group == 2 ? " (copysign and later ops' kernel)" : "";
}

template <Fn F, class X, class Y>
auto apply(const X& x, const Y& y) {
  if constexpr (F == Fn::Add) return x + y;
  else if constexpr (F == Fn::Sub) return x - y;
  else if constexpr (F == Fn::Mul) return x * y;
  else if constexpr (F == Fn::Div) return x / y;
  else if constexpr (F == Fn::Mod) return x % y;
  else if constexpr (F == Fn::FloorDiv) return fusecl::floor_divide(x, y);
  else if constexpr (F == Fn::TrueDiv) return fusecl::true_divide(x, y);
  else if constexpr (F == Fn::Eq) return x == y;
  else if constexpr (F == Fn::Ne) return x != y;
  else if constexpr (F == Fn::Lt) return x < y;
  else if constexpr (F == Fn::Le) return x <= y;
  else if constexpr (F == Fn::Gt) return x > y;
  else if constexpr (F == Fn::Ge) return x >= y;
  else if constexpr (F == Fn::And) return x && y;
  else if constexpr (F == Fn::Or) return x || y;
  else if constexpr (F == Fn::BitAnd) return x & y;
  else if constexpr (F == Fn::BitOr) return x | y;
  else if constexpr (F == Fn::BitXor) return x ^ y;
  else if constexpr (F == Fn::Shl) return x << y;
  else if constexpr (F == Fn::Shr) return x >> y;
  else if constexpr (F == Fn::Atan2) return fusecl::atan2(x, y);
  else if constexpr (F == Fn::Pow) return fusecl::pow(x, y);
  else if constexpr (F == Fn::Hypot) return fusecl::hypot(x, y);
  else if constexpr (F == Fn::Fmin) return fusecl::fmin(x, y);
  else if constexpr (F == Fn::Fmax) return fusecl::fmax(x, y);
  else if constexpr (F == Fn::Minimum) return fusecl::minimum(x, y);
  else if constexpr (F == Fn::Maximum) return fusecl::maximum(x, y);
  else if constexpr (F == Fn::Copysign) return fusecl::copysign(x, y);
  else if constexpr (F == Fn::Fmod) return fusecl::fmod(x, y);
  else if constexpr (F == Fn::Nextafter) return fusecl::nextafter(x, y);
  else if constexpr (F == Fn::Heaviside) return fusecl::heaviside(x, y);
  else if constexpr (F == Fn::Xor) return fusecl::logical_xor(x, y);
  else if constexpr (F == Fn::Gcd) return fusecl::gcd(x, y);
  else if constexpr (F == Fn::Lcm) return fusecl::lcm(x, y);
  else if constexpr (F == Fn::LogAddExp) return fusecl::logaddexp(x, y);
  else if constexpr (F == Fn::LogAddExp2) return fusecl::logaddexp2(x, y);
}

template <class G, std::size_t... I>
void for_each_fn(G&& g, std::index_sequence<I...>) {
  (g.template operator()<kFns[I]>(), ...);
}
template <class G>
void for_each_fn(G&& g) {
  for_each_fn(g, std::make_index_sequence<std::size(kFns)>{});
}

// ---- one batch: every op of a case on two operands ----

struct Output {
  Fn f;
  std::size_t slot;
  bool swapped;  // computed as (b op a): the scalar on the left
};

/// Adds `x op y` for every op supported on P in `group` (`swapped` marks the
/// scalar-on-the-left form, whose reference operands are the other way
/// round). Result dtypes that differ from expect_result() go to `problems`.
template <DType P, class X, class Y>
void add_ops(Batch& b, const X& x, const Y& y, int group, bool swapped, std::vector<Output>& outs,
             std::vector<std::string>& problems) {
  for_each_fn([&]<Fn F>() {
    if constexpr (expect_supported(F, P)) {
      if (group_of(F, P) != group) return;
      auto r = apply<F>(x, y);
      using R = typename decltype(r)::value_type;
      constexpr DType want = expect_result(F, P);
      if (dtype_of_v<R> != want)
        problems.push_back(std::string(fn_name(F)) + " computed in " + std::string(dtype_name(P)) + " gives " +
                           std::string(dtype_name(dtype_of_v<R>)) + ", expected " + std::string(dtype_name(want)));
      if (!dtype_available(dtype_of_v<R>)) return;
      outs.push_back({F, b.add(std::string(swapped ? "s " : "x ") + fn_name(F) + (swapped ? " x" : " y"), r), swapped});
    }
  });
}

/// Evaluates the batch and checks every output against the reference. The
/// device operands were lhs[layout[k]], rhs[layout[k]] (layout empty: lhs[k],
/// rhs[k]); swapped outputs compute rhs op lhs.
void check_batch(Batch& b, const std::vector<Output>& outs, const std::vector<Value>& lhs,
                 const std::vector<Value>& rhs, const std::vector<std::size_t>& layout, const std::string& label) {
  const std::string error = b.evaluate();
  if (!error.empty()) {
    FAIL_CHECK(label + ": " + error);
    return;
  }
  const std::vector<Value> la = layout.empty() ? lhs : gather(lhs, layout);
  const std::vector<Value> ra = layout.empty() ? rhs : gather(rhs, layout);
  if (!la.empty()) CHECK(b.kernels_launched() == 1);
  const bool cr = device().correctly_rounded_sqrt;
  for (const Output& o : outs) {
    const DType out = b.dtype(o.slot);
    const Op op = ref_op(o.f);
    const std::vector<Value>& l = o.swapped ? rhs : lhs;
    const std::vector<Value>& r = o.swapped ? lhs : rhs;
    const std::vector<Value>& lf = o.swapped ? ra : la;
    const std::vector<Value>& rf = o.swapped ? la : ra;
    std::vector<Value> want;
    want.reserve(l.size());
    for (std::size_t i = 0; i < l.size(); ++i) want.push_back(ref_binary(op, l[i], r[i], out));
    if (!layout.empty()) want = gather(want, layout);
    const bool min_max = o.f == Fn::Fmin || o.f == Fn::Fmax || o.f == Fn::Minimum || o.f == Fn::Maximum;
    const Tolerance tol{tolerance_ulps(op, out, cr), min_max, error_floor(op)};
    const Comparison c = compare_values(
        b.name(o.slot) + " -> " + std::string(dtype_name(out)) + ", " + label, out, b.values(o.slot), want, tol,
        [&](std::size_t i) { return "a=" + lf[i].to_string() + " b=" + rf[i].to_string(); }, nullptr,
        [&](std::size_t i, const Value& got) { return known_device_defect(op, out, {&lf, &rf}, i, got); });
    if (!c.excused.empty()) WARN(c.excused);
    if (!c.failure.empty()) FAIL_CHECK(c.failure);
    else SUCCEED();
  }
}

template <DType P, class A, class B>
void run_array_array(const std::vector<Value>& as, const std::vector<Value>& bs, const std::vector<std::size_t>& layout,
                     const std::string& label, bool report_types = false) {
  for (int group = 0; group < kGroups; ++group) {
    Batch b;
    std::vector<Output> outs;
    std::vector<std::string> problems;
    const auto x = to_device<A>(layout.empty() ? as : gather(as, layout));
    const auto y = to_device<B>(layout.empty() ? bs : gather(bs, layout));
    add_ops<P>(b, x, y, group, false, outs, problems);
    if (report_types)
      for (const auto& p : problems) FAIL_CHECK(p);
    if (outs.empty()) continue;
    check_batch(b, outs, as, bs, layout, label + group_label(group));
  }
}

/// The edge values worth sending through the scalar path in every pairing:
/// all of them for integers, a dozen for floats.
std::vector<Value> core_edges(DType t, const InputOptions& opt) {
  const auto all = edge_values(t, opt);
  if (!is_float(t)) return all;
  std::vector<Value> out;
  for (const Value& v : all) {
    const double x = v.as<double>();
    const double ax = std::fabs(x);
    if (x == 0 || ax == 1 || ax == 2.5 || std::isinf(x) || std::isnan(x) ||
        (t == DType::Float32 ? (ax == std::numeric_limits<float>::max() || ax == std::numeric_limits<float>::denorm_min())
                             : (ax == std::numeric_limits<double>::max() || ax == std::numeric_limits<double>::denorm_min())))
      out.push_back(v);
  }
  return out;
}

/// Random values of small magnitude: shift counts and divisors for integers,
/// [-8, 8] for floats.
std::vector<Value> small_values(DType t, std::size_t n, std::uint64_t seed) {
  InputOptions opt = device_input_options();
  opt.edge_fraction = 0;
  opt.range = is_float(t) ? std::pair{-8.0, 8.0} : std::pair{-70.0, 70.0};
  return random_values(t, n, seed, opt);
}

template <class A, class B>
void test_array_array(std::uint64_t base) {
  constexpr DType DA = dtype_of_v<A>, DB = dtype_of_v<B>, P = promote(DA, DB);
  const std::string name = std::string(dtype_name(DA)) + " op " + std::string(dtype_name(DB));
  if (!dtype_available(DA) || !dtype_available(DB) || !dtype_available(P)) {
    WARN("no cl_khr_fp64 on " << device().name << ": " << name << " skipped");
    return;
  }
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, "binary " + name);
  const InputOptions opt = device_input_options();

  // Every edge pair, random pairs over the whole range and pairs of small
  // values, each pair filling a vector (lane blocks), then a scalar tail.
  auto [as, bs] = edge_pairs(DA, DB, opt);
  for (const auto& [xs, ys] : {std::pair{random_values(DA, 300, seed, opt), random_values(DB, 300, seed + 1, opt)},
                               std::pair{small_values(DA, 300, seed + 2), small_values(DB, 300, seed + 3)}}) {
    as.insert(as.end(), xs.begin(), xs.end());
    bs.insert(bs.end(), ys.begin(), ys.end());
  }
  const auto layout = lane_blocks(as.size());
  run_array_array<P, A, B>(as, bs, layout, name + ", lane blocks, n=" + std::to_string(layout.size()), true);

  // Mixed moderate values, different in every lane.
  const std::size_t n_mixed = with_tail(300);
  run_array_array<P, A, B>(moderate_values(DA, n_mixed, seed + 4), moderate_values(DB, n_mixed, seed + 5), {},
                           name + ", mixed moderate values, n=" + std::to_string(n_mixed));

  // The core edge pairs through the scalar path alone, in short runs.
  std::vector<Value> ca, cb;
  for (const Value& x : core_edges(DA, opt))
    for (const Value& y : core_edges(DB, opt)) {
      ca.push_back(x);
      cb.push_back(y);
    }
  for (std::size_t i = 0; i < ca.size(); i += kTailRun) {
    const std::size_t j = std::min(ca.size(), i + kTailRun);
    run_array_array<P, A, B>({ca.begin() + i, ca.begin() + j}, {cb.begin() + i, cb.begin() + j}, {},
                             name + ", edge pairs alone");
  }
  run_array_array<P, A, B>({as.back()}, {bs.back()}, {}, name + ", n=1");
  run_array_array<P, A, B>({}, {}, {}, name + ", n=0");
}

/// Scalars of C++ type S that the library accepts next to an array whose
/// operation is computed in P: an integer scalar must fit P (NumPy 2 raises
/// OverflowError otherwise; tested separately), and a double next to float32
/// must be within float32's range (or not finite).
template <class S, DType P>
bool scalar_allowed(S s) {
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool> && !is_float_dtype(P) && P != DType::Bool) {
    return std::in_range<type_of_t<P>>(s);
  } else if constexpr (std::is_floating_point_v<S> && P == DType::Float32) {
    return !std::isfinite(s) || std::fabs(s) <= std::numeric_limits<float>::max();
  } else {
    return true;
  }
}

/// Array<T> with weak scalars of type S on either side; P is the dtype NEP 50
/// computes in (written out by the caller, not taken from the library).
template <class T, class S, DType P>
void test_array_scalar(std::uint64_t base) {
  constexpr DType DT = dtype_of_v<T>, DS = dtype_of_v<S>;
  const std::string name = std::string(dtype_name(DT)) + " array with " + std::string(dtype_name(DS)) + " scalar";
  if (!dtype_available(DT) || !dtype_available(P)) {
    WARN("no cl_khr_fp64 on " << device().name << ": " << name << " skipped");
    return;
  }
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, "binary " + name);
  const InputOptions opt = device_input_options();

  // The array: edge values, random and small values, in lane blocks.
  std::vector<Value> xs = edge_values(DT, opt);
  const auto r = random_values(DT, 24, seed, opt);
  const auto sm = small_values(DT, 24, seed + 1);
  xs.insert(xs.end(), r.begin(), r.end());
  xs.insert(xs.end(), sm.begin(), sm.end());
  const auto layout = lane_blocks(xs.size());

  // The scalars: S's edge values and a few random ones, those the library takes.
  std::vector<S> scalars;
  auto candidates = edge_values(DS, opt);
  const auto more = random_values(DS, 4, seed + 2, opt);
  candidates.insert(candidates.end(), more.begin(), more.end());
  const auto small = small_values(DS, 4, seed + 3);
  candidates.insert(candidates.end(), small.begin(), small.end());
  for (const Value& c : candidates)
    if (scalar_allowed<S, P>(c.as<S>())) scalars.push_back(c.as<S>());
  REQUIRE(scalars.size() >= 2);

  bool first = true;
  auto run = [&](const std::vector<Value>& part, const std::vector<std::size_t>& lay, S sv, const std::string& label) {
    // The library converts the scalar to P on the host (C++ conversion).
    const std::vector<Value> ss(part.size(), cast(Value(sv), P));
    const Array<T> x = to_device<T>(lay.empty() ? part : gather(part, lay));
    for (int group = 0; group < kGroups; ++group) {
      Batch b;
      std::vector<Output> outs;
      std::vector<std::string> problems;
      add_ops<P>(b, x, sv, group, false, outs, problems);
      add_ops<P>(b, sv, x, group, true, outs, problems);
      if (first)
        for (const auto& p : problems) FAIL_CHECK(name + ": " + p);
      first = false;
      if (outs.empty()) continue;
      check_batch(b, outs, part, ss, lay, label + group_label(group));
    }
  };
  for (S sv : scalars) run(xs, layout, sv, name + " " + Value(sv).to_string() + ", lane blocks");
  // Mixed moderate values with moderate scalars.
  const auto mixed = moderate_values(DT, with_tail(100), seed + 4);
  for (const Value& c : moderate_values(DS, 3, seed + 5))
    if (scalar_allowed<S, P>(c.as<S>()))
      run(mixed, {}, c.as<S>(), name + " " + c.to_string() + ", mixed moderate values");
  run({xs.front()}, {}, scalars.front(), name + ", n=1");
  run({}, {}, scalars.front(), name + ", n=0");
}

/// Values of ops on the int32 / float64 / bool same-dtype kernels, for the
/// spot checks below (same structure as the main cases: no new kernel).
template <class T>
std::map<std::string, std::vector<Value>> results(const std::vector<Value>& as, const std::vector<Value>& bs) {
  constexpr DType D = dtype_of_v<T>;
  std::map<std::string, std::vector<Value>> out;
  for (int group = 0; group < kGroups; ++group) {
    Batch b;
    std::vector<Output> outs;
    std::vector<std::string> problems;
    add_ops<D>(b, to_device<T>(as), to_device<T>(bs), group, false, outs, problems);
    if (outs.empty()) continue;
    REQUIRE(b.evaluate() == "");
    for (const Output& o : outs) out[fn_name(o.f)] = b.values(o.slot);
  }
  return out;
}

template <class T>
std::vector<Value> vals(std::initializer_list<T> xs) {
  std::vector<Value> v;
  for (T x : xs) v.push_back(Value(x));
  return v;
}

}  // namespace

TEST_CASE("binary ops: the supported dtypes and result dtypes are NumPy's", "[ops][binary][promotion]") {
  for (Fn f : kFns) {
    if (f == Fn::TrueDiv) continue;  // not an op of its own
    for (int d = 0; d < dtype_count; ++d) {
      const DType t = DType(d);
      INFO(fn_name(f) << " on " << dtype_name(t));
      CHECK(binary_supported(ref_op(f), t, t) == expect_supported(f, t));
      if (expect_supported(f, t)) CHECK(binary_result(ref_op(f), t, t) == expect_result(f, t));
    }
  }
}

TEST_CASE("binary ops on two arrays of one dtype match the reference", "[ops][binary]") {
  const std::uint64_t base = test_seed(0x5eed0002);
  for_each_type(AllTypes{}, [&]<class T>(std::type_identity<T>) {
    DYNAMIC_SECTION(dtype_name(dtype_of_v<T>)) { test_array_array<T, T>(base); }
  });
}

TEST_CASE("binary ops on arrays of two dtypes promote and match the reference", "[ops][binary][promotion]") {
  const std::uint64_t base = test_seed(0x5eed0003);
  SECTION("int8 uint8") { test_array_array<std::int8_t, std::uint8_t>(base); }
  SECTION("int32 float32") { test_array_array<std::int32_t, float>(base); }
  SECTION("int64 uint64") { test_array_array<std::int64_t, std::uint64_t>(base); }
  SECTION("bool int16") { test_array_array<bool, std::int16_t>(base); }
  SECTION("uint32 int32") { test_array_array<std::uint32_t, std::int32_t>(base); }
  SECTION("float32 float64") { test_array_array<float, double>(base); }
}

TEST_CASE("binary ops with a scalar of the array's kind on either side", "[ops][binary][scalar]") {
  const std::uint64_t base = test_seed(0x5eed0004);
  for_each_type(AllTypes{}, [&]<class T>(std::type_identity<T>) {
    DYNAMIC_SECTION(dtype_name(dtype_of_v<T>)) { test_array_scalar<T, T, dtype_of_v<T>>(base); }
  });
}

TEST_CASE("binary ops with weak scalars of another kind (NEP 50)", "[ops][binary][scalar][promotion]") {
  const std::uint64_t base = test_seed(0x5eed0005);
  using D = DType;
  SECTION("bool array, int scalar: int64") { test_array_scalar<bool, std::int64_t, D::Int64>(base); }
  SECTION("bool array, double scalar: float64") { test_array_scalar<bool, double, D::Float64>(base); }
  SECTION("int8 array, int scalar: int8") { test_array_scalar<std::int8_t, int, D::Int8>(base); }
  SECTION("uint16 array, int scalar: uint16") { test_array_scalar<std::uint16_t, int, D::UInt16>(base); }
  SECTION("int16 array, bool scalar: int16") { test_array_scalar<std::int16_t, bool, D::Int16>(base); }
  SECTION("int32 array, double scalar: float64") { test_array_scalar<std::int32_t, double, D::Float64>(base); }
  SECTION("uint64 array, double scalar: float64") { test_array_scalar<std::uint64_t, double, D::Float64>(base); }
  SECTION("float32 array, double scalar: float32") { test_array_scalar<float, double, D::Float32>(base); }
  SECTION("float32 array, int64 scalar: float32") { test_array_scalar<float, std::int64_t, D::Float32>(base); }
}

TEST_CASE("integer scalars that do not fit the array's dtype are rejected as in NumPy 2", "[ops][binary][scalar]") {
  const auto i8 = from_host(std::vector<std::int8_t>{1, 2});
  const auto u8 = from_host(std::vector<std::uint8_t>{1, 2});
  const auto u64 = from_host(std::vector<std::uint64_t>{1, 2});
  CHECK_THROWS_AS(i8 + 128, Error);
  CHECK_THROWS_AS(-129 * i8, Error);
  CHECK_THROWS_AS(u8 - (-1), Error);
  CHECK_THROWS_AS(u8 + 256, Error);
  CHECK_THROWS_AS(u64 < -1, Error);
  CHECK_NOTHROW(i8 + 127);
  CHECK_NOTHROW(u8 + 255);
}

TEST_CASE("NumPy's integer rules: division by zero and INT_MIN / -1 and shifts past the width and negative powers",
          "[ops][binary][numpy]") {
  using I = std::int32_t;
  constexpr I kMin = std::numeric_limits<I>::min();
  const auto r = results<I>(vals<I>({7, -7, kMin, kMin, -7, 7, 7, 1, 1, -8, 8, 1, 2, -1, -1, 1, 3}),
                            vals<I>({0, 2, -1, 0, 2, -2, -2, 32, 31, 40, 40, -1, -1, -3, -2, -5, 40}));
  // index:                               0  1   2     3   4   5   6   7   8   9  10  11  12  13  14  15  16
  auto at = [&](const char* op, std::size_t i) { return r.at(op).at(i).as<std::int64_t>(); };
  CHECK(at("/", 0) == 0);             // 7 / 0
  CHECK(at("%", 0) == 0);             // 7 % 0
  CHECK(at("floor_divide", 0) == 0);  // 7 // 0
  CHECK(at("/", 1) == -4);            // -7 // 2 floors
  CHECK(at("%", 1) == 1);             // -7 % 2 takes the divisor's sign
  CHECK(at("/", 2) == kMin);          // INT_MIN // -1 wraps
  CHECK(at("%", 2) == 0);             // INT_MIN % -1
  CHECK(at("/", 3) == 0);             // INT_MIN // 0
  CHECK(at("%", 5) == -1);            // 7 % -2
  CHECK(at("/", 6) == -4);            // 7 // -2
  CHECK(at("<<", 7) == 0);            // 1 << 32
  CHECK(at("<<", 8) == kMin);         // 1 << 31
  CHECK(at(">>", 9) == -1);           // -8 >> 40
  CHECK(at(">>", 10) == 0);           // 8 >> 40
  CHECK(at("<<", 11) == 0);           // 1 << -1
  CHECK(at("pow", 12) == 0);          // 2 ** -1
  CHECK(at("pow", 13) == -1);         // (-1) ** -3
  CHECK(at("pow", 14) == 1);          // (-1) ** -2
  CHECK(at("pow", 15) == 1);          // 1 ** -5
  CHECK(at("pow", 16) == 689956897);  // 3 ** 40 wraps modulo 2^32
  CHECK(r.at("true_divide").at(1).as<double>() == -3.5);
}

TEST_CASE("NumPy's bool and float rules: bool arithmetic is logic and float floor division and remainder take signs as NumPy",
          "[ops][binary][numpy]") {
  SECTION("bool") {
    const auto r = results<bool>(vals<bool>({true, true, false, false}), vals<bool>({true, false, true, false}));
    auto col = [&](const char* op) {
      std::vector<bool> v;
      for (const Value& x : r.at(op)) v.push_back(x.truthy());
      return v;
    };
    CHECK(col("+") == std::vector<bool>{true, true, true, false});
    CHECK(col("*") == std::vector<bool>{true, false, false, false});
    CHECK(col("^") == std::vector<bool>{false, true, true, false});
    CHECK(col(">") == std::vector<bool>{false, true, false, false});
    CHECK(col("maximum") == std::vector<bool>{true, true, true, false});
    CHECK(r.count("-") == 0);  // not defined for bool
  }
  SECTION("float64") {
    constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    if (!device().fp64) {
      WARN("no cl_khr_fp64: skipped");
      return;
    }
    const auto r = results<double>(vals<double>({-7.0, 7.0, 1.0, 0.0, nan, -1.0, 5.0}),
                                   vals<double>({2.0, -2.0, 0.0, -5.0, 1.0, inf, 0.0}));
    auto at = [&](const char* op, std::size_t i) { return r.at(op).at(i).as<double>(); };
    CHECK(at("%", 0) == 1.0);
    CHECK(at("%", 1) == -1.0);
    CHECK(at("floor_divide", 0) == -4.0);
    CHECK(at("floor_divide", 1) == -4.0);
    CHECK(std::isnan(at("%", 2)));
    CHECK(at("floor_divide", 2) == inf);
    CHECK(at("%", 3) == 0.0);
    CHECK(std::signbit(at("%", 3)));  // 0 % -5 is -0: the divisor's sign
    CHECK(std::isnan(at("minimum", 4)));
    CHECK(at("fmin", 4) == 1.0);
    CHECK(at("%", 5) == inf);  // -1 % inf: fmod gives -1, moved to the divisor's sign
    CHECK(at("/", 6) == inf);
  }
}

TEST_CASE("NumPy's results for gcd, lcm, fmod, nextafter, heaviside, copysign and logical_xor at their edges",
          "[ops][binary][numpy]") {
  SECTION("int8: gcd and lcm of magnitudes, wrapping; fmod with the dividend's sign") {
    using I = std::int8_t;
    const auto r = results<I>(vals<I>({-128, 100, -128, 12, -12, 0, 7, -7, -128, 5}),
                              vals<I>({0, 99, -128, 18, 18, 0, 0, -2, -1, -3}));
    auto col = [&](const char* op) {
      std::vector<std::int64_t> v;
      for (const Value& x : r.at(op)) v.push_back(x.as<std::int64_t>());
      return v;
    };
    // NumPy 1.24 and 2.5: np.gcd, np.lcm, np.fmod of these int8 arrays.
    CHECK(col("gcd") == std::vector<std::int64_t>{-128, 1, -128, 6, 6, 0, 7, 1, 1, 1});
    CHECK(col("lcm") == std::vector<std::int64_t>{0, -84, -128, 36, 36, 0, 0, 14, -128, 15});
    CHECK(col("fmod") == std::vector<std::int64_t>{0, 1, 0, 12, -12, 0, 0, -1, 0, 2});
  }
  SECTION("float32: zeros' signs, NaN, infinities, the largest value") {
    constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    constexpr float big = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
    const auto r = results<float>(vals<float>({0.0f, 1.0f, -0.0f, 0.0f, nan, -1.0f, 0.0f, 2.0f, big, inf, -2.5f}),
                                  vals<float>({1.0f, nan, 0.0f, -0.0f, 0.5f, 0.5f, 0.5f, -0.0f, inf, 0.0f, 0.75f}));
    auto col = [&](const char* op) {
      std::vector<float> v;
      for (const Value& x : r.at(op)) v.push_back(x.as<float>());
      return v;
    };
    // Equal bit for bit (the sign of a zero counts), NaN to NaN.
    auto same = [](const std::vector<float>& got, const std::vector<float>& want) {
      if (got.size() != want.size()) return false;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::isnan(got[i]) && std::isnan(want[i])) && std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i]))
          return false;
      return true;
    };
    // NumPy 1.24 and 2.5 on the same float32 arrays.
    CHECK(same(col("nextafter"),
               {tiny, nan, 0.0f, -0.0f, nan, -0.99999994f, tiny, 1.9999999f, inf, big, -2.4999998f}));
    CHECK(same(col("heaviside"), {1.0f, 1.0f, 0.0f, -0.0f, nan, 0.0f, 0.5f, 1.0f, 1.0f, 1.0f, 0.0f}));
    CHECK(same(col("copysign"), {0.0f, 1.0f, 0.0f, -0.0f, nan, 1.0f, 0.0f, -2.0f, big, inf, 2.5f}));
    CHECK(same(col("fmod"), {0.0f, nan, nan, nan, nan, -0.0f, 0.0f, nan, big, nan, -0.25f}));
    std::vector<bool> x;
    for (const Value& v : r.at("logical_xor")) x.push_back(v.truthy());
    CHECK(x == std::vector<bool>{true, false, false, false, false, false, true, true, false, true, false});
  }
}

TEST_CASE("true_divide of integers is float64 as in NumPy", "[ops][binary][numpy][promotion]") {
  // numpy.true_divide resolves every integer or bool input pair to the 'dd->d'
  // loop: float64 whatever the width (unlike sqrt, which gives float16 or
  // float32 for narrow integers).
  using F = decltype(true_divide(std::declval<Array<std::int8_t>>(), std::declval<Array<std::int8_t>>()));
  CHECK(dtype_name(F::dtype()) == std::string("float64"));
  using G = decltype(true_divide(std::declval<Array<std::uint16_t>>(), 3));
  CHECK(dtype_name(G::dtype()) == std::string("float64"));
  using H = decltype(true_divide(std::declval<Array<bool>>(), std::declval<Array<bool>>()));
  CHECK(dtype_name(H::dtype()) == std::string("float64"));
  using K = decltype(true_divide(std::declval<Array<std::int32_t>>(), std::declval<Array<std::int32_t>>()));
  CHECK(dtype_name(K::dtype()) == std::string("float64"));
  using L = decltype(true_divide(std::declval<Array<float>>(), std::declval<Array<std::int8_t>>()));
  CHECK(dtype_name(L::dtype()) == std::string("float32"));
}

namespace {

/// x % y and floor_divide(x, y) of float dtype F as one kernel, compared
/// bit-exactly (at the ops' tolerance, 0 ulp where division is correctly
/// rounded) with the reference, which uses the host's exact std::fmod.
template <class F>
void check_mod_floordiv(const std::vector<Value>& xs, const std::vector<Value>& ys, const std::string& label) {
  constexpr DType D = dtype_of_v<F>;
  const auto x = to_device<F>(xs), y = to_device<F>(ys);
  Batch b;
  const std::size_t mod = b.add("x % y", x % y), fdiv = b.add("floor_divide(x, y)", fusecl::floor_divide(x, y));
  const std::string error = b.evaluate();
  if (!error.empty()) {
    FAIL_CHECK(label + ": " + error);
    return;
  }
  for (const auto& [slot, op] : {std::pair{mod, Op::Mod}, std::pair{fdiv, Op::FloorDiv}}) {
    std::vector<Value> want;
    for (std::size_t i = 0; i < xs.size(); ++i) want.push_back(ref_binary(op, xs[i], ys[i], D));
    const Comparison c = compare_values(
        b.name(slot) + " (" + std::string(dtype_name(D)) + "), " + label, D, b.values(slot), want,
        Tolerance{tolerance_ulps(op, D, device().correctly_rounded_sqrt), false},
        [&](std::size_t i) { return "x=" + xs[i].to_string() + " y=" + ys[i].to_string(); });
    if (!c.failure.empty()) FAIL_CHECK(c.failure);
    else SUCCEED();
  }
}

/// A random float F of any finite magnitude (exponent uniform over the normal
/// and subnormal range, random mantissa and sign).
template <class F>
F any_magnitude(std::mt19937_64& rng, bool subnormal) {
  using L = std::numeric_limits<F>;
  const F mantissa = F(1) + F(static_cast<double>(rng() >> 11) * 0x1.0p-53);
  const int lo = L::min_exponent - L::digits, hi = L::max_exponent - 1;  // 2^lo is the smallest subnormal
  const int e = subnormal ? lo + static_cast<int>(rng() % (L::digits - 1))
                          : lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  const F v = std::ldexp(mantissa, e);
  return (rng() & 1) ? -v : v;
}

}  // namespace

TEST_CASE("binary float ops at every vector width with different values in every lane", "[ops][binary][width]") {
  // Every binary op of float32 and float64 as one kernel at widths 1 to 16,
  // on random moderate values different in every lane, both operands (so a
  // divisor differs from lane to lane).
  const std::uint64_t base = test_seed(0x5eed0012);
  for_each_type(TypeList<float, double>{}, [&]<class T>(std::type_identity<T>) {
    constexpr DType D = dtype_of_v<T>;
    if (!dtype_available(D)) {
      WARN("no cl_khr_fp64 on " << device().name << ": binary ops on float64 at every width skipped");
      return;
    }
    INFO(seed_message(base));
    const std::uint64_t seed = case_seed(base, "binary widths " + std::string(dtype_name(D)));
    const std::size_t n = with_tail(4096);
    const auto xs = moderate_values(D, n, seed), ys = moderate_values(D, n, seed + 1);
    for (int w : kVectorWidths) {
      const VectorWidth width(size_of(D), w);
      run_array_array<D, T, T>(xs, ys, {}, std::string(dtype_name(D)) + " width " + std::to_string(w) +
                                               ", mixed moderate values, n=" + std::to_string(n));
    }
  });
}

TEST_CASE("float64 % with different values in every lane of a double8 and double16 (issue example)",
          "[ops][binary][numpy][width]") {
  if (!device().fp64) {
    WARN("no cl_khr_fp64: skipped");
    return;
  }
  // PoCL 3.1's fmod on double8 / double16 gave 14 % 11.25 = 0.53125 here.
  const std::vector<double> x0 = {14, 34, 0, 28, 0, 0, 0, 0}, y0 = {11.25, 31.25, -2.75, 25.25, -2.75, -2.75, -2.75, -2.75};
  const std::vector<double> mod0 = {2.75, 2.75, -0.0, 2.75, -0.0, -0.0, -0.0, -0.0};  // NumPy 1.24
  const std::vector<double> div0 = {1, 1, -0.0, 1, -0.0, -0.0, -0.0, -0.0};
  std::vector<double> x, y, mod, div;
  for (int k = 0; k < 2; ++k) {  // twice, so that width 16 has a full vector
    x.insert(x.end(), x0.begin(), x0.end());
    y.insert(y.end(), y0.begin(), y0.end());
    mod.insert(mod.end(), mod0.begin(), mod0.end());
    div.insert(div.end(), div0.begin(), div0.end());
  }
  for (int w : kVectorWidths) {
    INFO("width " << w);
    const VectorWidth width(8, w);
    const auto a = from_host(x), b = from_host(y);
    const auto r = (a % b).to_host(), q = floor_divide(a, b).to_host();
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO(x[i] << " % " << y[i] << " at [" << i << "]: " << r[i] << ", floor_divide " << q[i]);
      CHECK(std::bit_cast<std::uint64_t>(r[i]) == std::bit_cast<std::uint64_t>(mod[i]));
      CHECK(std::bit_cast<std::uint64_t>(q[i]) == std::bit_cast<std::uint64_t>(div[i]));
    }
  }
}

TEST_CASE("float % and floor_divide are exact for operands of every magnitude at every vector width",
          "[ops][binary][numpy][width]") {
  // fusecl computes fmod itself (codegen/spelling.cpp): check it on quotients
  // far beyond 2^53, subnormal divisors and dividends, and the edge values
  // (zeros, infinities, NaN, extremes) mixed into the lanes, against the
  // host's exact std::fmod and NumPy's divmod rules.
  const std::uint64_t base = test_seed(0x5eed0013);
  for_each_type(TypeList<float, double>{}, [&]<class F>(std::type_identity<F>) {
    constexpr DType D = dtype_of_v<F>;
    if (!dtype_available(D)) {
      WARN("no cl_khr_fp64 on " << device().name << ": float64 % skipped");
      return;
    }
    INFO(seed_message(base));
    const std::uint64_t seed = case_seed(base, "exact fmod " + std::string(dtype_name(D)));
    std::mt19937_64 rng(seed);
    const InputOptions opt = device_input_options();
    const std::size_t n = with_tail(2048);
    std::vector<Value> xs, ys;
    // A quarter each: any magnitudes; a subnormal divisor; both subnormal;
    // a dividend 2^(p..p+40) times the divisor or more (many fmod steps).
    for (std::size_t i = 0; i < n; ++i) {
      const bool sub = opt.denormals;
      F x = any_magnitude<F>(rng, false), y = any_magnitude<F>(rng, false);
      switch (i % 4) {
        case 1: y = sub ? any_magnitude<F>(rng, true) : y; break;
        case 2: x = sub ? any_magnitude<F>(rng, true) : x; y = sub ? any_magnitude<F>(rng, true) : y; break;
        case 3: {
          const int shift = std::numeric_limits<F>::digits + static_cast<int>(rng() % 41);
          const F big = std::ldexp(y, shift);
          if (std::isfinite(big)) x = big * (F(1) + F(static_cast<double>(rng() % 1000) / 1024));
          break;
        }
        default: break;
      }
      if (!opt.denormals && std::fpclassify(x) == FP_SUBNORMAL) x = std::numeric_limits<F>::min();
      if (!opt.denormals && std::fpclassify(y) == FP_SUBNORMAL) y = std::numeric_limits<F>::min();
      xs.push_back(Value(x));
      ys.push_back(Value(y));
    }
    // Edge values in random lanes, on either side.
    const auto edges = edge_values(D, opt);
    for (std::size_t k = 0; k < n / 8; ++k) {
      auto& dst = (rng() & 1) ? xs : ys;
      dst[rng() % n] = edges[rng() % edges.size()];
    }
    for (int w : kVectorWidths) {
      const VectorWidth width(size_of(D), w);
      check_mod_floordiv<F>(xs, ys, "width " + std::to_string(w) + ", n=" + std::to_string(n));
    }
  });
}

TEST_CASE("float64 pow with subnormal operands in every lane of a double8 and double16", "[ops][binary][numpy][width]") {
  if (!device().fp64) {
    WARN("no cl_khr_fp64: skipped");
    return;
  }
  // PoCL 3.1's pow on a double8 gave 4.56e-305 for pow(5e-324, 1) in lanes
  // 4..7; fusecl computes it on double4 halves. The host's pow is the reference.
  const double tiny = std::numeric_limits<double>::denorm_min();
  std::vector<double> x, y;
  for (int k = 0; k < 32; ++k) {
    x.push_back(k % 3 == 0 ? tiny * double(k + 1) : k % 3 == 1 ? 0.5 + k : 2.2250738585072009e-308 / (k + 1));
    y.push_back(k % 4 == 0 ? 1.0 : k % 4 == 1 ? 0.5 : k % 4 == 2 ? 2.0 : -0.25);
  }
  for (int w : kVectorWidths) {
    INFO("width " << w);
    const VectorWidth width(8, w);
    const auto r = pow(from_host(x), from_host(y)).to_host();
    const auto same = pow(from_host(std::vector<double>(16, tiny)), from_host(std::vector<double>(16, 1.0))).to_host();
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("pow(" << x[i] << ", " << y[i] << ") at [" << i << "] gave " << r[i] << ", the host " << std::pow(x[i], y[i]));
      // OpenCL allows pow 16 ulp; the defect was off by 10^19.
      CHECK(ulp_distance_f64(r[i], std::pow(x[i], y[i])) <= tolerance_ulps(Op::Pow, DType::Float64));
    }
    for (double v : same) CHECK(v == tiny);
  }
}
