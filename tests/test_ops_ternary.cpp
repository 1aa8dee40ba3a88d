// where, fma, clip and astype through the typed API, against the host
// reference evaluator, for every dtype (astype: every pair of dtypes).
//
// One kernel per dtype holds every form of where / fma / clip on it (array
// or scalar branches, array or scalar condition, T itself as a condition);
// one kernel per source dtype holds its casts to all 11 dtypes; one more
// mixes dtypes to exercise promotion. Inputs are laid out as in the other op
// tests (support/op_check.hpp): edge triples and random triples each filling
// a vector, then a scalar tail; mixed moderate values; edge values through
// the scalar path alone; sizes 1 and 0.
#include "support/op_check.hpp"
#include "support/reference.hpp"
#include "support/ulp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <utility>

using namespace fusecl;
using namespace fusecl::test;

namespace {

/// Math (and fma) of integers: float32 up to 16 bits, float64 above.
constexpr DType math_dtype(DType t) {
  switch (t) {
    case DType::Float32: case DType::Float64: return t;
    case DType::Bool: case DType::Int8: case DType::UInt8: case DType::Int16: case DType::UInt16: return DType::Float32;
    default: return DType::Float64;
  }
}

/// How an output is computed from the operands (a, b, d, cond, s, s2) of a run.
enum class Form : std::uint8_t {
  WhereArrays,      // where(c, a, b)
  WhereSelfCond,    // where(a, b, d): a's truthiness
  WhereScalarElse,  // where(c, a, s)
  WhereScalarThen,  // where(c, s, b)
  WhereScalars,     // where(c, s, s2)
  WhereTrue,        // where(true, a, b)
  WhereFalse,       // where(false, a, b)
  FmaArrays,        // fma(a, b, d)
  FmaScalarMiddle,  // fma(a, s, d)
  FmaTwoScalars,    // fma(s, b, s2)
  ClipArrays,       // clip(a, b, d)
  ClipScalars,      // clip(a, s, s2)
};

const char* form_name(Form f) {
  switch (f) {
    case Form::WhereArrays: return "where(c, a, b)";
    case Form::WhereSelfCond: return "where(a, b, d)";
    case Form::WhereScalarElse: return "where(c, a, s)";
    case Form::WhereScalarThen: return "where(c, s, b)";
    case Form::WhereScalars: return "where(c, s, s2)";
    case Form::WhereTrue: return "where(true, a, b)";
    case Form::WhereFalse: return "where(false, a, b)";
    case Form::FmaArrays: return "fma(a, b, d)";
    case Form::FmaScalarMiddle: return "fma(a, s, d)";
    case Form::FmaTwoScalars: return "fma(s, b, s2)";
    case Form::ClipArrays: return "clip(a, b, d)";
    case Form::ClipScalars: return "clip(a, s, s2)";
  }
  return "?";
}

/// The operands of one element, as the reference sees them.
struct Operands {
  Value c, a, b, d, s, s2;
};

Value reference(Form f, const Operands& x, DType out) {
  switch (f) {
    case Form::WhereArrays: return ref_ternary(Op::Where, x.c, x.a, x.b, out);
    case Form::WhereSelfCond: return ref_ternary(Op::Where, x.a, x.b, x.d, out);
    case Form::WhereScalarElse: return ref_ternary(Op::Where, x.c, x.a, x.s, out);
    case Form::WhereScalarThen: return ref_ternary(Op::Where, x.c, x.s, x.b, out);
    case Form::WhereScalars: return ref_ternary(Op::Where, x.c, x.s, x.s2, out);
    case Form::WhereTrue: return ref_ternary(Op::Where, Value(true), x.a, x.b, out);
    case Form::WhereFalse: return ref_ternary(Op::Where, Value(false), x.a, x.b, out);
    case Form::FmaArrays: return ref_ternary(Op::Fma, x.a, x.b, x.d, out);
    case Form::FmaScalarMiddle: return ref_ternary(Op::Fma, x.a, x.s, x.d, out);
    case Form::FmaTwoScalars: return ref_ternary(Op::Fma, x.s, x.b, x.s2, out);
    case Form::ClipArrays: return ref_binary(Op::Minimum, ref_binary(Op::Maximum, x.a, x.b, out), x.d, out);
    case Form::ClipScalars: return ref_binary(Op::Minimum, ref_binary(Op::Maximum, x.a, x.s, out), x.s2, out);
  }
  return {};
}

bool is_clip(Form f) { return f == Form::ClipArrays || f == Form::ClipScalars; }

struct Output {
  Form form;
  std::size_t slot;
};

/// Every form on dtype T, for operand arrays c (bool), a, b, d (T) and
/// scalars s, s2 (T).
template <class T>
Batch build(const Array<bool>& c, const Array<T>& a, const Array<T>& b, const Array<T>& d, T s, T s2,
            std::vector<Output>& outs, std::vector<std::string>& problems) {
  constexpr DType D = dtype_of_v<T>;
  Batch batch;
  outs.clear();
  auto add = [&]<class R>(Form f, const Array<R>& r, DType want) {
    if (dtype_of_v<R> != want)
      problems.push_back(std::string(form_name(f)) + " on " + std::string(dtype_name(D)) + " has dtype " +
                         std::string(dtype_name(dtype_of_v<R>)) + ", expected " + std::string(dtype_name(want)));
    if (!dtype_available(dtype_of_v<R>)) return;
    outs.push_back({f, batch.add(form_name(f), r)});
  };
  add(Form::WhereArrays, where(c, a, b), D);
  add(Form::WhereSelfCond, where(a, b, d), D);
  add(Form::WhereScalarElse, where(c, a, s), D);
  add(Form::WhereScalarThen, where(c, s, b), D);
  add(Form::WhereScalars, where(c, s, s2), D);
  add(Form::WhereTrue, where(true, a, b), D);
  add(Form::WhereFalse, where(false, a, b), D);
  add(Form::FmaArrays, fusecl::fma(a, b, d), math_dtype(D));
  add(Form::FmaScalarMiddle, fusecl::fma(a, s, d), math_dtype(D));
  add(Form::FmaTwoScalars, fusecl::fma(s, b, s2), math_dtype(D));
  add(Form::ClipArrays, clip(a, b, d), D);
  add(Form::ClipScalars, clip(a, s, s2), D);
  return batch;
}

/// One run: operand triples (a, b, d) and conditions c, laid out by `layout`
/// (empty: as they are), with scalars s, s2.
template <class T>
void check_run(const std::vector<Value>& cs, const std::vector<Value>& as, const std::vector<Value>& bs,
               const std::vector<Value>& ds, const std::vector<std::size_t>& layout, T s, T s2,
               const std::string& label, bool check_types = false) {
  auto lay = [&](const std::vector<Value>& v) { return layout.empty() ? v : gather(v, layout); };
  const auto cf = lay(cs), af = lay(as), bf = lay(bs), df = lay(ds);
  std::vector<Output> outs;
  std::vector<std::string> problems;
  Batch batch = build<T>(to_device<bool>(cf), to_device<T>(af), to_device<T>(bf), to_device<T>(df), s, s2, outs, problems);
  if (check_types)
    for (const auto& p : problems) FAIL_CHECK(p);
  const std::string error = batch.evaluate();
  if (!error.empty()) {
    FAIL_CHECK(label + ": " + error);
    return;
  }
  if (!af.empty()) CHECK(batch.kernels_launched() == 1);
  const Value sv(s), s2v(s2);
  for (const Output& o : outs) {
    const DType out = batch.dtype(o.slot);
    std::vector<Value> want;
    want.reserve(as.size());
    for (std::size_t i = 0; i < as.size(); ++i) want.push_back(reference(o.form, {cs[i], as[i], bs[i], ds[i], sv, s2v}, out));
    if (!layout.empty()) want = gather(want, layout);
    const Tolerance tol{0, is_clip(o.form)};  // all exact; min/max leave the sign of equal zeros open
    const Comparison cmp = compare_values(
        batch.name(o.slot) + " -> " + std::string(dtype_name(out)) + ", " + label, out, batch.values(o.slot), want,
        tol, [&](std::size_t i) {
          return "c=" + cf[i].to_string() + " a=" + af[i].to_string() + " b=" + bf[i].to_string() + " d=" +
                 df[i].to_string() + " s=" + sv.to_string() + " s2=" + s2v.to_string();
        });
    if (!cmp.failure.empty()) FAIL_CHECK(cmp.failure);
    else SUCCEED();
  }
}

/// The edge values combined in triples: for integers 0, 1, 2 or -1 and the
/// extremes; for floats the zeros, +-1, +-2.5, the largest and smallest
/// magnitudes, the infinities and NaN.
std::vector<Value> core_edges(DType t, const InputOptions& opt) {
  std::vector<Value> out;
  for (const Value& v : edge_values(t, opt)) {
    if (t == DType::Bool) {
      out.push_back(v);
    } else if (!is_float(t)) {
      const int w = size_of(t) * 8;
      const bool sgn = kind_of(t) == Kind::Signed;
      const Value max = Value::of_bits(t, sgn ? (std::uint64_t{1} << (w - 1)) - 1 : ~std::uint64_t{0});
      const Value min = Value::of_bits(t, sgn ? std::uint64_t{1} << (w - 1) : 0);
      const Value third = Value::of_bits(t, sgn ? ~std::uint64_t{0} : 2);  // -1, or 2 if unsigned
      if (v.int_bits() == 0 || v == Value::of_bits(t, 1) || v == third || v == max || v == min) out.push_back(v);
    } else {
      const double x = v.as<double>(), ax = std::fabs(x);
      const bool f32 = t == DType::Float32;
      if (x == 0 || ax == 1 || ax == 2.5 || std::isinf(x) || std::isnan(x) ||
          ax == (f32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max()) ||
          ax == (f32 ? double(std::numeric_limits<float>::denorm_min()) : std::numeric_limits<double>::denorm_min()))
        out.push_back(v);
    }
  }
  return out;
}

template <class T>
void test_ternary_dtype(std::uint64_t base) {
  constexpr DType D = dtype_of_v<T>;
  const std::string name(dtype_name(D));
  if (!dtype_available(D)) {
    WARN("no cl_khr_fp64 on " << device().name << ": where/fma/clip on " << name << " skipped");
    return;
  }
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, "ternary " + name);
  const InputOptions opt = device_input_options();
  std::mt19937_64 rng(seed);

  // Every triple of core edge values, then random triples over the whole
  // range and of small values; conditions random.
  std::vector<Value> as, bs, ds, cs;
  const auto core = core_edges(D, opt);
  for (const Value& x : core)
    for (const Value& y : core)
      for (const Value& z : core) {
        as.push_back(x);
        bs.push_back(y);
        ds.push_back(z);
      }
  InputOptions small = opt;
  small.edge_fraction = 0;
  small.range = std::pair{-8.0, 8.0};
  for (int k = 0; k < 3; ++k) {
    const auto r = random_values(D, 300, seed + 1 + k, opt);
    const auto m = random_values(D, 100, seed + 4 + k, small);
    auto& dst = k == 0 ? as : k == 1 ? bs : ds;
    dst.insert(dst.end(), r.begin(), r.end());
    dst.insert(dst.end(), m.begin(), m.end());
  }
  for (std::size_t i = 0; i < as.size(); ++i) cs.push_back(Value((rng() & 1) != 0));
  const auto layout = lane_blocks(as.size());

  // Scalar pairs: consecutive edge values (so s > s2 happens for clip, and
  // NaN, infinities and zeros show up as scalars).
  const auto edges = edge_values(D, opt);
  for (std::size_t k = 0; k < edges.size(); k += 2) {
    const T s = edges[k].as<T>(), s2 = edges[(k + 1) % edges.size()].as<T>();
    check_run<T>(cs, as, bs, ds, layout, s, s2,
                 name + " s=" + edges[k].to_string() + " s2=" + edges[(k + 1) % edges.size()].to_string(), k == 0);
  }
  // Mixed moderate values in every lane, random conditions.
  const std::size_t n_mixed = with_tail(300);
  std::vector<Value> mc;
  for (std::size_t i = 0; i < n_mixed; ++i) mc.push_back(Value((rng() & 1) != 0));
  const auto ma = moderate_values(D, n_mixed, seed + 10), mb = moderate_values(D, n_mixed, seed + 11),
             md = moderate_values(D, n_mixed, seed + 12), msc = moderate_values(D, 2, seed + 13);
  check_run<T>(mc, ma, mb, md, {}, msc[0].as<T>(), msc[1].as<T>(), name + ", mixed moderate values");
  // Core triples through the scalar path alone; sizes 1 and 0.
  const std::size_t n_core = core.size() * core.size() * core.size();
  for (std::size_t i = 0; i < n_core; i += kTailRun) {
    const std::size_t j = std::min(n_core, i + kTailRun);
    auto part = [&](const std::vector<Value>& v) { return std::vector<Value>(v.begin() + i, v.begin() + j); };
    check_run<T>(part(cs), part(as), part(bs), part(ds), {}, edges[0].as<T>(), edges[1].as<T>(),
                 name + ", edge triples alone");
  }
  check_run<T>({cs[0]}, {as[0]}, {bs[0]}, {ds[0]}, {}, edges[0].as<T>(), edges[1].as<T>(), name + ", n=1");
  check_run<T>({}, {}, {}, {}, {}, edges[0].as<T>(), edges[1].as<T>(), name + ", n=0");
}

// ---- astype ----

template <class S>
void test_astype_from(std::uint64_t base) {
  constexpr DType DS = dtype_of_v<S>;
  const std::string name = "astype from " + std::string(dtype_name(DS));
  if (!dtype_available(DS)) {
    WARN("no cl_khr_fp64 on " << device().name << ": " << name << " skipped");
    return;
  }
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, name);
  const InputOptions opt = device_input_options();
  std::vector<Value> unique = edge_values(DS, opt);
  const auto r = random_values(DS, 300, seed, opt);
  InputOptions small = opt;
  small.edge_fraction = 0;
  small.range = std::pair{-300.0, 300.0};
  const auto m = random_values(DS, 100, seed + 1, small);
  unique.insert(unique.end(), r.begin(), r.end());
  unique.insert(unique.end(), m.begin(), m.end());

  auto run = [&](const std::vector<Value>& xs_unique, const std::vector<std::size_t>& layout, const std::string& label) {
    const std::vector<Value> xs = layout.empty() ? xs_unique : gather(xs_unique, layout);
    const Array<S> x = to_device<S>(xs);
    Batch batch;
    std::vector<DType> targets;
    for_each_type(AllTypes{}, [&]<class U>(std::type_identity<U>) {
      if (!dtype_available(dtype_of_v<U>)) return;
      Array<U> y = x.template astype<U>();
      targets.push_back(dtype_of_v<U>);
      batch.add(std::string(dtype_name(dtype_of_v<U>)), y);
    });
    const std::string error = batch.evaluate();
    if (!error.empty()) {
      FAIL_CHECK(name + ", " + label + ": " + error);
      return;
    }
    if (!xs.empty()) CHECK(batch.kernels_launched() == 1);  // astype<S>() is x itself, no work
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const DType to = targets[k];
      std::vector<Value> want;
      // Every value, NaN and out-of-range floats included: fusecl defines
      // those casts (README "Semantics").
      for (const Value& v : xs) want.push_back(cast(v, to));
      const Comparison c = compare_values(
          name + " to " + std::string(dtype_name(to)) + ", " + label, to, batch.values(k), want, Tolerance{},
          [&](std::size_t i) { return "x=" + xs[i].to_string(); });
      if (!c.failure.empty()) FAIL_CHECK(c.failure);
      else SUCCEED();
    }
  };
  run(unique, lane_blocks(unique.size()), "lane blocks");
  run(moderate_values(DS, with_tail(300), seed + 2), {}, "mixed moderate values");
  const auto edges = edge_values(DS, opt);
  for (std::size_t i = 0; i < edges.size(); i += kTailRun)
    run({edges.begin() + i, edges.begin() + std::min(edges.size(), i + kTailRun)}, {}, "edge values alone");
  run({edges.back()}, {}, "n=1");
  run({}, {}, "n=0");
}

/// Float values that probe float-to-integer casts, each lane different: the
/// edge values and random bit patterns (NaN, infinities, extremes), values
/// near the bounds of every integer type (+-2^7, 2^8, 2^15, 2^16, 2^31,
/// 2^32, 2^63, 2^64, a few ulps either side), and values in [-70000, 70000]
/// and in [-2^66, 2^66].
std::vector<Value> cast_probe_values(DType t, std::size_t n, std::uint64_t seed, const InputOptions& opt) {
  std::mt19937_64 rng(seed);
  const auto mixed = random_values(t, n, seed + 1, opt);
  InputOptions mid = opt, wide = opt;
  mid.edge_fraction = wide.edge_fraction = 0;
  mid.range = std::pair{-70000.0, 70000.0};
  wide.range = std::pair{-0x1p66, 0x1p66};
  std::vector<Value> out;
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: out.push_back(mixed[i]); break;
      case 1: out.push_back(random_value(t, rng, mid)); break;
      case 2: out.push_back(random_value(t, rng, wide)); break;
      default: {
        const int exps[] = {7, 8, 15, 16, 31, 32, 63, 64};
        double b = std::ldexp((rng() & 1) ? -1.0 : 1.0, exps[rng() % 8]);
        const int steps = static_cast<int>(rng() % 7) - 3;  // ulps away from the bound
        for (int k = 0; k < std::abs(steps); ++k)
          b = t == DType::Float32 ? double(std::nextafter(float(b), steps > 0 ? 1e30f : -1e30f))
                                  : std::nextafter(b, steps > 0 ? 1e300 : -1e300);
        out.push_back(Value::of(t, b));
      }
    }
  }
  return out;
}

/// Casts from float dtype S to every dtype as one kernel at each vector
/// width, on values that differ in every lane, NaN and out-of-range ones
/// included: fusecl defines every float-to-integer cast (README "Semantics").
template <class S>
void test_float_casts_at_widths(std::uint64_t base) {
  constexpr DType DS = dtype_of_v<S>;
  if (!dtype_available(DS)) {
    WARN("no cl_khr_fp64 on " << device().name << ": casts from float64 skipped");
    return;
  }
  INFO(seed_message(base));
  const std::size_t n = with_tail(1024);
  const auto xs = cast_probe_values(DS, n, case_seed(base, "float casts " + std::string(dtype_name(DS))),
                                    device_input_options());
  for (int w : kVectorWidths) {
    // The widest element of the kernel is 8 bytes (int64, uint64 outputs).
    const VectorWidth width(8, w);
    const Array<S> x = to_device<S>(xs);
    Batch batch;
    std::vector<DType> targets;
    for_each_type(AllTypes{}, [&]<class U>(std::type_identity<U>) {
      if (!dtype_available(dtype_of_v<U>) || dtype_of_v<U> == DS) return;
      targets.push_back(dtype_of_v<U>);
      batch.add(std::string(dtype_name(dtype_of_v<U>)), x.template astype<U>());
    });
    const std::string label = "astype from " + std::string(dtype_name(DS)) + ", width " + std::to_string(w);
    const std::string error = batch.evaluate();
    if (!error.empty()) {
      FAIL_CHECK(label + ": " + error);
      continue;
    }
    CHECK(batch.kernels_launched() == 1);
    for (std::size_t k = 0; k < targets.size(); ++k) {
      std::vector<Value> want;
      for (const Value& v : xs) want.push_back(cast(v, targets[k]));
      const Comparison c = compare_values(label + " to " + std::string(dtype_name(targets[k])), targets[k],
                                          batch.values(k), want, Tolerance{},
                                          [&](std::size_t i) { return "x=" + xs[i].to_string(); });
      if (!c.failure.empty()) FAIL_CHECK(c.failure);
      else SUCCEED();
    }
  }
}

}  // namespace

TEST_CASE("where and fma and clip match the reference for every dtype", "[ops][ternary]") {
  const std::uint64_t base = test_seed(0x5eed0006);
  for_each_type(AllTypes{}, [&]<class T>(std::type_identity<T>) {
    DYNAMIC_SECTION(dtype_name(dtype_of_v<T>)) { test_ternary_dtype<T>(base); }
  });
}

TEST_CASE("where and fma and clip promote mixed operands as NumPy does", "[ops][ternary][promotion]") {
  if (!device().fp64) {
    WARN("no cl_khr_fp64 on " << device().name << ": mixed where/fma/clip (float64 results) skipped");
    return;
  }
  const std::uint64_t base = test_seed(0x5eed0007);
  INFO(seed_message(base));
  const std::uint64_t seed = case_seed(base, "ternary mixed");
  const InputOptions opt = device_input_options();
  // Unique rows of operands, in lane blocks.
  const std::size_t n = 400;
  std::mt19937_64 rng(seed);
  std::vector<Value> c, i8, u8, i32, f32, bl;
  auto fill = [&](std::vector<Value>& v, DType t, std::uint64_t sd) {
    v = edge_values(t, opt);
    const auto r = random_values(t, n - std::min(n, v.size()), sd, opt);
    v.insert(v.end(), r.begin(), r.end());
    v.resize(n, v.front());
    std::rotate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(sd % n), v.end());  // vary the pairings
  };
  fill(i8, DType::Int8, seed + 1);
  fill(u8, DType::UInt8, seed + 2);
  fill(i32, DType::Int32, seed + 3);
  fill(f32, DType::Float32, seed + 4);
  fill(bl, DType::Bool, seed + 5);
  for (std::size_t i = 0; i < n; ++i) c.push_back(Value((rng() & 1) != 0));
  const auto layout = lane_blocks(n);
  const auto C = to_device<bool>(gather(c, layout));
  const auto I8 = to_device<std::int8_t>(gather(i8, layout));
  const auto U8 = to_device<std::uint8_t>(gather(u8, layout));
  const auto I32 = to_device<std::int32_t>(gather(i32, layout));
  const auto F32 = to_device<float>(gather(f32, layout));
  const auto BL = to_device<bool>(gather(bl, layout));

  struct Case {
    std::string name;
    std::size_t slot;
    DType want;
    std::function<Value(std::size_t, DType)> ref;
    bool min_max;
  };
  Batch batch;
  std::vector<Case> cases;
  auto add = [&]<class R>(const char* name, const Array<R>& r, DType want, std::function<Value(std::size_t, DType)> ref,
                          bool min_max = false) {
    cases.push_back({name, batch.add(name, r), want, std::move(ref), min_max});
  };
  using D = DType;
  add("where(c, int8, uint8)", where(C, I8, U8), D::Int16,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, c[i], i8[i], u8[i], o); });
  add("where(c, int32, float32)", where(C, I32, F32), D::Float64,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, c[i], i32[i], f32[i], o); });
  add("where(c, float32, 0.1)", where(C, F32, 0.1), D::Float32,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, c[i], f32[i], cast(Value(0.1), D::Float32), o); });
  add("where(c, bool, 7)", where(C, BL, 7), D::Int64,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, c[i], bl[i], Value(std::int64_t{7}), o); });
  add("where(float32, int8, uint8)", where(F32, I8, U8), D::Int16,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, f32[i], i8[i], u8[i], o); });
  add("where(int32, 2.5f, uint8)", where(I32, 2.5f, U8), D::Float64,  // a weak float beside uint8: float64
      [&](std::size_t i, DType o) { return ref_ternary(Op::Where, i32[i], Value(2.5), u8[i], o); });
  add("fma(int32, float32, 2.5)", fusecl::fma(I32, F32, 2.5), D::Float64,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Fma, i32[i], f32[i], Value(2.5), o); });
  add("fma(int8, uint8, float32)", fusecl::fma(I8, U8, F32), D::Float32,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Fma, i8[i], u8[i], f32[i], o); });
  add("fma(bool, 3, int8)", fusecl::fma(BL, 3, I8), D::Float32,
      [&](std::size_t i, DType o) { return ref_ternary(Op::Fma, bl[i], Value(std::int8_t{3}), i8[i], o); });
  add("clip(int8, uint8, int32)", clip(I8, U8, I32), D::Int32,
      [&](std::size_t i, DType o) {
        return ref_binary(Op::Minimum, ref_binary(Op::Maximum, i8[i], u8[i], D::Int16), i32[i], o);
      }, true);
  add("clip(float32, -1, 2.5)", clip(F32, -1, 2.5), D::Float32,  // weak scalars keep float32
      [&](std::size_t i, DType o) {
        return ref_binary(Op::Minimum, ref_binary(Op::Maximum, f32[i], Value(-1.0f), D::Float32), Value(2.5f), o);
      }, true);
  REQUIRE(batch.evaluate() == "");
  CHECK(batch.kernels_launched() == 1);
  for (const Case& k : cases) {
    INFO(k.name);
    CHECK(dtype_name(batch.dtype(k.slot)) == dtype_name(k.want));
    const DType out = batch.dtype(k.slot);
    std::vector<Value> want;
    for (std::size_t i = 0; i < n; ++i) want.push_back(k.ref(i, out));
    const Comparison cmp = compare_values(
        k.name, out, batch.values(k.slot), gather(want, layout), Tolerance{0, k.min_max}, [&](std::size_t i) {
          const std::size_t u = layout[i];
          return "c=" + c[u].to_string() + " i8=" + i8[u].to_string() + " u8=" + u8[u].to_string() + " i32=" +
                 i32[u].to_string() + " f32=" + f32[u].to_string() + " bool=" + bl[u].to_string();
        });
    if (!cmp.failure.empty()) FAIL_CHECK(cmp.failure);
  }
}

TEST_CASE("astype between every pair of dtypes matches the reference", "[ops][ternary][cast]") {
  const std::uint64_t base = test_seed(0x5eed0008);
  for_each_type(AllTypes{}, [&]<class S>(std::type_identity<S>) {
    DYNAMIC_SECTION("from " << dtype_name(dtype_of_v<S>)) { test_astype_from<S>(base); }
  });
}

TEST_CASE("casts from floats at every vector width with NaN and infinities and out-of-range values in every lane",
          "[ops][ternary][cast][width]") {
  const std::uint64_t base = test_seed(0x5eed0014);
  SECTION("float32") { test_float_casts_at_widths<float>(base); }
  SECTION("float64") { test_float_casts_at_widths<double>(base); }
}

TEST_CASE("a float scalar cast to an integer on the host agrees with the same cast in a kernel", "[ops][ternary][cast]") {
  // A 0-d full() is a scalar node: its astype is done on the host
  // (src/scalar_value.cpp); the array's on the device. Both follow one rule.
  constexpr double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  if (!device().fp64) {
    WARN("no cl_khr_fp64: skipped");
    return;
  }
  for (double v : {nan, inf, -inf, 1e30, -1e30, 2147483648.0, -2147483649.0, 4294967301.0, 9223372036854775808.0,
                   18446744073709551616.0, -1.0, 300.0, 70000.5, -0.0}) {
    INFO("x = " << v);
    const auto scalar = full<double>(Shape{}, v);
    const auto array = from_host(std::vector<double>{v, v, v});
    auto same = [&]<class U>(std::type_identity<U>) {
      const auto h = scalar.astype<U>().to_host(), d = array.astype<U>().to_host();
      const U want = cast(Value(v), dtype_of_v<U>).template as<U>();
      INFO("to " << dtype_name(dtype_of_v<U>));
      CHECK(h[0] == want);
      CHECK(d[0] == want);
    };
    for_each_type(TypeList<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                           std::uint32_t, std::uint64_t>{}, same);
  }
}

TEST_CASE("where and fma and clip on floats at every vector width with different values in every lane",
          "[ops][ternary][width]") {
  const std::uint64_t base = test_seed(0x5eed0015);
  for_each_type(TypeList<float, double>{}, [&]<class T>(std::type_identity<T>) {
    constexpr DType D = dtype_of_v<T>;
    if (!dtype_available(D)) return;
    INFO(seed_message(base));
    const std::uint64_t seed = case_seed(base, "ternary widths " + std::string(dtype_name(D)));
    std::mt19937_64 rng(seed);
    const std::size_t n = with_tail(1024);
    std::vector<Value> cs;
    for (std::size_t i = 0; i < n; ++i) cs.push_back(Value((rng() & 1) != 0));
    const auto as = moderate_values(D, n, seed + 1), bs = moderate_values(D, n, seed + 2),
               ds = moderate_values(D, n, seed + 3), sc = moderate_values(D, 2, seed + 4);
    for (int w : kVectorWidths) {
      const VectorWidth width(size_of(D), w);
      check_run<T>(cs, as, bs, ds, {}, sc[0].as<T>(), sc[1].as<T>(),
                   std::string(dtype_name(D)) + " width " + std::to_string(w) + ", mixed moderate values");
    }
  });
}
