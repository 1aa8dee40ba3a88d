// Random expression DAGs: dozens of operations over several inputs of mixed
// dtypes, weak scalars, casts, and shared subexpressions (operands are drawn
// from every earlier node, so nodes feed several consumers). fusecl must
// evaluate all outputs of a DAG as one kernel, agree with the host reference
// evaluator walking the same description, and, given the same structure with
// new data (other values, other size), build nothing.
//
// Accuracy: operations are taken from a well-conditioned set (+ - * fmin fmax
// minimum maximum abs negative where < >= sin cos tanh astype) on bounded
// inputs. Everything but sin, cos and tanh is exact on both sides (IEEE
// float32 / float64 arithmetic, wrapping integers), so a node none of whose
// ancestors is transcendental must match bit for bit (only the sign of a zero
// may differ: fmin and friends leave it open). For the others the generator
// carries a bound on the absolute error (OpenCL's 4 to 5 ulp for the
// transcendental functions, propagated through each operation) and a bound on
// magnitudes, and keeps the error below 5e-5, so comparing with a mixed
// relative/absolute tolerance of 1e-4 is sound. Comparisons, where conditions
// and float-to-integer casts only take exact operands, so they never flip.
//
// Each DAG also stays within fusecl's fusion bound (FUSECL_MAX_FUSED_OPS,
// default 256): the generator tracks an upper bound of the library's node
// weight (every path counted, plus a possible cast per operand).
#include "support/op_check.hpp"
#include "support/reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <variant>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// The dtypes of DAG nodes: closed under promotion of the operations below
// (int scalars never meet bool arrays, which would give int64).
using Var = std::variant<Array<bool>, Array<std::uint8_t>, Array<std::int16_t>, Array<std::int32_t>, Array<float>,
                         Array<double>>;
constexpr DType kDagTypes[] = {DType::Bool, DType::UInt8, DType::Int16, DType::Int32, DType::Float32, DType::Float64};

enum class Kind : std::uint8_t { Input, Unary, Binary, ScalarRight, ScalarLeft, Where, Cast };

enum class Fn : std::uint8_t { Add, Sub, Mul, Fmin, Fmax, Minimum, Maximum, Lt, Ge };
constexpr Fn kFns[] = {Fn::Add, Fn::Sub, Fn::Mul, Fn::Fmin, Fn::Fmax, Fn::Minimum, Fn::Maximum, Fn::Lt, Fn::Ge};

constexpr Op op_of(Fn f) {
  switch (f) {
    case Fn::Add: return Op::Add;
    case Fn::Sub: return Op::Sub;
    case Fn::Mul: return Op::Mul;
    case Fn::Fmin: return Op::Fmin;
    case Fn::Fmax: return Op::Fmax;
    case Fn::Minimum: return Op::Minimum;
    case Fn::Maximum: return Op::Maximum;
    case Fn::Lt: return Op::Lt;
    case Fn::Ge: return Op::Ge;
  }
  return Op::Add;
}

constexpr bool is_cmp(Fn f) { return f == Fn::Lt || f == Fn::Ge; }

struct Node {
  Kind kind;
  Op op = Op::Add;  // Unary: the op
  Fn fn = Fn::Add;  // Binary, Scalar*: the function
  int a = -1, b = -1, c = -1;
  int slot = -1;    // Input: which input; Scalar*: which scalar
  DType dtype = DType::Bool;
  DType scalar_dtype = DType::Bool;  // Scalar*: the dtype the scalar is converted to (P)
  bool exact = true;                 // no transcendental ancestor
  double mag = 0;                    // bound on |value| (floats; integers: their dtype's range)
  double err = 0;                    // bound on |device - reference| (floats)
  double weight = 1;                 // bound on the library's node weight
  int uses = 0;
};

/// Kinds of weak scalar: the C++ type the test passes.
enum class ScalarKind : std::uint8_t { Bool, Int, Double };

struct Dag {
  std::vector<DType> inputs;
  std::vector<ScalarKind> scalars;
  std::vector<Node> nodes;
  std::vector<int> outputs;
  std::string describe() const;
};

double dtype_range(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::UInt8: return 255;
    case DType::Int16: return 32768;
    case DType::Int32: return 2147483648.0;
    default: return 0;
  }
}

double ulp_at(DType t, double mag) {
  return std::max(mag, 1.0) * (t == DType::Float32 ? 0x1p-23 : 0x1p-52);
}

constexpr double kMaxErr = 5e-5;       // error bound for compared nodes
constexpr double kMaxTaintedMag = 16;  // magnitude bound of inexact values
constexpr double kMaxFloatMag = 1e12;  // magnitude bound of exact float values
constexpr double kMaxWeight = 200;     // below the library's 256

DType math_dtype(DType t) {
  if (is_float(t)) return t;
  return size_of(t) <= 2 ? DType::Float32 : DType::Float64;
}

/// Weak scalar conversion (NEP 50), as the typed API does it.
DType weak_dtype(DType array, ScalarKind k) {
  return promote_weak(array, k == ScalarKind::Bool ? WeakKind::Bool : k == ScalarKind::Int ? WeakKind::Int : WeakKind::Float);
}

class Generator {
 public:
  Generator(std::uint64_t seed, int n_ops) : rng_(seed), n_ops_(n_ops) {}

  Dag generate() {
    const int n_inputs = 3 + int(rng_() % 3);
    for (int i = 0; i < n_inputs; ++i) {
      const DType t = i == 0 ? DType::Float32 : pick_dtype();
      dag_.inputs.push_back(t);
      Node n{Kind::Input};
      n.slot = i;
      n.dtype = t;
      n.mag = is_float(t) ? 2 : dtype_range(t);
      dag_.nodes.push_back(n);
    }
    int ops = 0, attempts = 0;
    while (ops < n_ops_ && attempts < 100000) {
      ++attempts;
      if (try_add()) ++ops;
    }
    // Outputs: every node nobody reads (up to 8, the latest), and two shared ones.
    std::vector<int> sinks;
    for (int i = int(dag_.nodes.size()) - 1; i >= n_inputs && sinks.size() < 8; --i)
      if (dag_.nodes[std::size_t(i)].uses == 0) sinks.push_back(i);
    for (int k = 0; k < 2; ++k) {
      const int i = n_inputs + int(rng_() % (dag_.nodes.size() - std::size_t(n_inputs)));
      if (std::find(sinks.begin(), sinks.end(), i) == sinks.end()) sinks.push_back(i);
    }
    std::sort(sinks.begin(), sinks.end());
    dag_.outputs = sinks;
    return dag_;
  }

 private:
  DType pick_dtype() {
    static constexpr DType choices[] = {DType::Float32, DType::Float32, DType::Float64, DType::Int32,
                                        DType::Int16,   DType::UInt8,   DType::Bool};
    return choices[rng_() % std::size(choices)];
  }

  /// An operand: mostly one of the latest nodes (depth), sometimes any
  /// earlier one (sharing), preferring nodes nobody reads yet.
  int pick(bool want_bool_exact = false) {
    const int n = int(dag_.nodes.size());
    for (int tries = 0; tries < 40; ++tries) {
      int i;
      const auto r = rng_() % 10;
      if (r < 5) i = n - 1 - int(rng_() % std::min(n, 6));
      else i = int(rng_() % std::size_t(n));
      const Node& x = dag_.nodes[std::size_t(i)];
      if (want_bool_exact && !(x.dtype == DType::Bool && x.exact)) continue;
      if (x.uses > 0 && tries < 10 && rng_() % 2 == 0) continue;
      return i;
    }
    return -1;
  }

  bool commit(Node n) {
    if (n.weight > kMaxWeight) return false;
    if (is_float(n.dtype)) {
      if (!n.exact && (n.err > kMaxErr || n.mag > kMaxTaintedMag)) return false;
      if (n.mag > kMaxFloatMag) return false;
    }
    for (int k : {n.a, n.b, n.c})
      if (k >= 0) dag_.nodes[std::size_t(k)].uses++;
    dag_.nodes.push_back(n);
    return true;
  }

  /// The float error of a result rounded in `t` from inputs carrying `err`.
  static double rounded(DType t, bool exact, double err, double mag) { return exact ? 0 : err + ulp_at(t, mag); }

  static double weight_of(std::initializer_list<const Node*> ins) {
    double w = 1;
    for (const Node* x : ins) w += x->weight + 1;  // + a cast the library may insert
    return w;
  }

  bool try_add() {
    switch (rng_() % 12) {
      case 0: case 1: return add_unary();
      case 2: case 3: case 4: case 5: return add_binary();
      case 6: case 7: return add_scalar();
      case 8: return add_where();
      case 9: case 10: return add_cast();
      default: return add_compare();
    }
  }

  bool add_unary() {
    const int a = pick();
    if (a < 0) return false;
    const Node& x = dag_.nodes[std::size_t(a)];
    static constexpr Op ops[] = {Op::Neg, Op::Abs, Op::Sin, Op::Cos, Op::Tanh};
    const Op op = ops[rng_() % std::size(ops)];
    Node n{Kind::Unary};
    n.op = op;
    n.a = a;
    n.weight = weight_of({&x});
    if (op == Op::Neg || op == Op::Abs) {
      if (x.dtype == DType::Bool) return false;
      n.dtype = x.dtype;
      n.exact = x.exact;
      n.mag = x.mag;
      n.err = x.err;
    } else {
      if (x.dtype == DType::Bool) return false;
      n.dtype = math_dtype(x.dtype);
      n.exact = false;
      n.mag = 1;
      // Lipschitz 1; OpenCL: sin/cos 4 ulp, tanh 5 ulp (+ the reference's half ulp).
      n.err = x.err + 5.5 * ulp_at(n.dtype, 1);
    }
    return commit(n);
  }

  /// Result magnitude, error and exactness of fn on x and y (P: the compute dtype).
  void combine(Fn fn, const Node& x, const Node& y, DType p, Node& n) {
    n.exact = x.exact && y.exact;
    const double mx = is_float(x.dtype) ? x.mag : dtype_range(x.dtype);
    const double my = is_float(y.dtype) ? y.mag : dtype_range(y.dtype);
    switch (fn) {
      case Fn::Add: case Fn::Sub:
        n.mag = mx + my;
        n.err = rounded(p, n.exact, x.err + y.err, n.mag);
        break;
      case Fn::Mul:
        n.mag = mx * my;
        n.err = rounded(p, n.exact, x.err * my + y.err * mx + x.err * y.err, n.mag);
        break;
      default:
        n.mag = std::max(mx, my);
        n.err = std::max(x.err, y.err);
        break;
    }
  }

  bool add_binary() {
    const int a = pick(), b = pick();
    if (a < 0 || b < 0) return false;
    const Node &x = dag_.nodes[std::size_t(a)], &y = dag_.nodes[std::size_t(b)];
    const Fn fn = kFns[rng_() % 7];  // arithmetic and min/max
    const DType p = promote(x.dtype, y.dtype);
    if (fn == Fn::Sub && p == DType::Bool) return false;
    Node n{Kind::Binary};
    n.fn = fn;
    n.a = a;
    n.b = b;
    n.dtype = p;
    n.weight = weight_of({&x, &y});
    combine(fn, x, y, p, n);
    return commit(n);
  }

  bool add_compare() {
    const int a = pick(), b = pick();
    if (a < 0 || b < 0) return false;
    const Node &x = dag_.nodes[std::size_t(a)], &y = dag_.nodes[std::size_t(b)];
    if (!x.exact || !y.exact) return false;  // an inexact comparison could flip
    Node n{Kind::Binary};
    n.fn = rng_() % 2 ? Fn::Lt : Fn::Ge;
    n.a = a;
    n.b = b;
    n.dtype = DType::Bool;
    n.weight = weight_of({&x, &y});
    n.mag = 1;
    return commit(n);
  }

  bool add_scalar() {
    const int a = pick();
    if (a < 0) return false;
    const Node& x = dag_.nodes[std::size_t(a)];
    const ScalarKind sk = x.dtype == DType::Bool ? ScalarKind::Bool
                          : is_float(x.dtype)     ? ScalarKind::Double
                          : rng_() % 4 == 0       ? ScalarKind::Double
                                                  : ScalarKind::Int;
    const DType p = weak_dtype(x.dtype, sk);
    const Fn fn = kFns[rng_() % 7];
    if (fn == Fn::Sub && p == DType::Bool) return false;
    Node n{rng_() % 2 ? Kind::ScalarRight : Kind::ScalarLeft};
    n.fn = fn;
    n.a = a;
    n.slot = int(dag_.scalars.size());
    n.dtype = p;
    n.scalar_dtype = p;
    n.weight = weight_of({&x}) + 2;
    Node s{Kind::Input};  // the scalar's bounds: |s| <= 2 (floats), <= 3 (integers), exact
    s.dtype = p;
    s.mag = 3;
    combine(fn, x, s, p, n);
    if (!commit(n)) return false;
    dag_.scalars.push_back(sk);
    return true;
  }

  bool add_where() {
    const int c = pick(true), a = pick(), b = pick();
    if (c < 0 || a < 0 || b < 0) return false;
    const Node &x = dag_.nodes[std::size_t(a)], &y = dag_.nodes[std::size_t(b)];
    Node n{Kind::Where};
    n.a = a;
    n.b = b;
    n.c = c;
    n.dtype = promote(x.dtype, y.dtype);
    n.weight = weight_of({&dag_.nodes[std::size_t(c)], &x, &y});
    n.exact = x.exact && y.exact;
    n.mag = std::max(is_float(x.dtype) ? x.mag : dtype_range(x.dtype), is_float(y.dtype) ? y.mag : dtype_range(y.dtype));
    n.err = std::max(x.err, y.err);
    return commit(n);
  }

  bool add_cast() {
    const int a = pick();
    if (a < 0) return false;
    const Node& x = dag_.nodes[std::size_t(a)];
    const DType to = kDagTypes[rng_() % std::size(kDagTypes)];
    if (to == x.dtype) return false;
    if (is_float(x.dtype) && !is_float(to)) {
      // Truncation must be defined and identical on both sides.
      if (!x.exact) return false;
      if (to == DType::UInt8 || (to != DType::Bool && x.mag >= dtype_range(to) / 2)) return false;
    }
    Node n{Kind::Cast};
    n.a = a;
    n.dtype = to;
    n.weight = weight_of({&x});
    n.exact = x.exact;
    n.mag = is_float(to) ? (is_float(x.dtype) ? x.mag : dtype_range(x.dtype)) : dtype_range(to);
    n.err = x.exact ? 0 : x.err + (to == DType::Float32 ? ulp_at(to, n.mag) : 0);
    return commit(n);
  }

  std::mt19937_64 rng_;
  int n_ops_;
  Dag dag_;
};

/// "n12" (built with append: GCC 12 warns falsely about "n" + std::to_string()).
std::string node_name(int k) {
  std::string s = "n";
  s.append(std::to_string(k));
  return s;
}

std::string Dag::describe() const {
  std::string s;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    s += "  n" + std::to_string(i) + " = ";
    auto r = [](int k) { return node_name(k); };
    switch (n.kind) {
      case Kind::Input: s += "input" + std::to_string(n.slot); break;
      case Kind::Unary: s += std::string(op_name(n.op)) + "(" + r(n.a) + ")"; break;
      case Kind::Binary: s += std::string(op_name(op_of(n.fn))) + "(" + r(n.a) + ", " + r(n.b) + ")"; break;
      case Kind::ScalarRight: s += std::string(op_name(op_of(n.fn))) + "(" + r(n.a) + ", s" + std::to_string(n.slot) + ")"; break;
      case Kind::ScalarLeft: s += std::string(op_name(op_of(n.fn))) + "(s" + std::to_string(n.slot) + ", " + r(n.a) + ")"; break;
      case Kind::Where: s += "where(" + r(n.c) + ", " + r(n.a) + ", " + r(n.b) + ")"; break;
      case Kind::Cast: s += r(n.a) + ".astype(" + std::string(dtype_name(n.dtype)) + ")"; break;
    }
    s += "  : " + std::string(dtype_name(n.dtype)) + (n.exact ? "" : " (inexact)") + "\n";
  }
  return s;
}

// ---- building the DAG through the typed API ----

template <class X, class Y>
Var apply_fn(Fn fn, const X& x, const Y& y) {
  switch (fn) {
    case Fn::Add: return Var(x + y);
    case Fn::Mul: return Var(x * y);
    case Fn::Fmin: return Var(fusecl::fmin(x, y));
    case Fn::Fmax: return Var(fusecl::fmax(x, y));
    case Fn::Minimum: return Var(fusecl::minimum(x, y));
    case Fn::Maximum: return Var(fusecl::maximum(x, y));
    case Fn::Lt: return Var(x < y);
    case Fn::Ge: return Var(x >= y);
    case Fn::Sub:
      if constexpr (!std::is_same_v<decltype(x + y), Array<bool>>) return Var(x - y);
      break;
  }
  throw std::logic_error("apply_fn: unsupported");
}

/// The weak scalar of slot k as the C++ type of its kind.
struct ScalarValue {
  ScalarKind kind;
  double d = 0;
  int i = 0;
  bool b = false;
};

Var build_node(const Node& n, const std::vector<Var>& v, const std::vector<Var>& inputs,
               const std::vector<ScalarValue>& scalars) {
  switch (n.kind) {
    case Kind::Input: return inputs[std::size_t(n.slot)];
    case Kind::Unary:
      return std::visit(
          [&](const auto& x) -> Var {
            using T = typename std::decay_t<decltype(x)>::value_type;
            if constexpr (std::is_same_v<T, bool>) {
              throw std::logic_error("unary on bool");
            } else {
              switch (n.op) {
                case Op::Neg: return Var(-x);
                case Op::Abs: return Var(fusecl::abs(x));
                case Op::Sin: return Var(fusecl::sin(x));
                case Op::Cos: return Var(fusecl::cos(x));
                default: return Var(fusecl::tanh(x));
              }
            }
          },
          v[std::size_t(n.a)]);
    case Kind::Binary:
      return std::visit([&](const auto& x, const auto& y) { return apply_fn(n.fn, x, y); }, v[std::size_t(n.a)],
                        v[std::size_t(n.b)]);
    case Kind::ScalarRight:
    case Kind::ScalarLeft: {
      const ScalarValue& s = scalars[std::size_t(n.slot)];
      const bool right = n.kind == Kind::ScalarRight;
      return std::visit(
          [&](const auto& x) -> Var {
            using T = typename std::decay_t<decltype(x)>::value_type;
            auto go = [&](auto sv) { return right ? apply_fn(n.fn, x, sv) : apply_fn(n.fn, sv, x); };
            if constexpr (std::is_same_v<T, bool>) {
              return go(s.b);
            } else {
              if (s.kind == ScalarKind::Double) return go(s.d);
              return go(s.i);
            }
          },
          v[std::size_t(n.a)]);
    }
    case Kind::Where:
      return std::visit([&](const auto& x, const auto& y) { return Var(where(std::get<Array<bool>>(v[std::size_t(n.c)]), x, y)); },
                        v[std::size_t(n.a)], v[std::size_t(n.b)]);
    case Kind::Cast:
      return std::visit(
          [&](const auto& x) -> Var {
            switch (n.dtype) {
              case DType::Bool: return Var(x.template astype<bool>());
              case DType::UInt8: return Var(x.template astype<std::uint8_t>());
              case DType::Int16: return Var(x.template astype<std::int16_t>());
              case DType::Int32: return Var(x.template astype<std::int32_t>());
              case DType::Float32: return Var(x.template astype<float>());
              default: return Var(x.template astype<double>());
            }
          },
          v[std::size_t(n.a)]);
  }
  throw std::logic_error("build_node");
}

DType dtype_of_var(const Var& v) {
  return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::dtype(); }, v);
}

// ---- one evaluation of a DAG on fresh data ----

void run_dag(const Dag& dag, std::size_t n, std::uint64_t data_seed, const std::string& label, bool expect_no_build) {
  std::mt19937_64 rng(data_seed);
  // Inputs: floats in [-2, 2], integers over a modest range, bools random.
  std::vector<std::vector<Value>> in_values;
  for (std::size_t k = 0; k < dag.inputs.size(); ++k) {
    const DType t = dag.inputs[k];
    InputOptions opt;
    opt.edge_fraction = 0;
    opt.range = is_float(t) ? std::pair{-2.0, 2.0} : t == DType::UInt8 ? std::pair{0.0, 255.0} : std::pair{-100.0, 100.0};
    in_values.push_back(random_values(t, n, data_seed + 1 + k, opt));
  }
  std::vector<ScalarValue> scalars;
  for (ScalarKind k : dag.scalars) {
    ScalarValue s{k};
    s.d = static_cast<double>(static_cast<std::int64_t>(rng() % 4001) - 2000) / 1000.0;  // [-2, 2]
    s.i = static_cast<int>(rng() % 4);                                                    // [0, 3]: fits every dtype
    s.b = (rng() & 1) != 0;
    scalars.push_back(s);
  }

  reset_stats();
  std::vector<Var> inputs;
  for (std::size_t k = 0; k < dag.inputs.size(); ++k) {
    switch (dag.inputs[k]) {
      case DType::Bool: inputs.emplace_back(to_device<bool>(in_values[k])); break;
      case DType::UInt8: inputs.emplace_back(to_device<std::uint8_t>(in_values[k])); break;
      case DType::Int16: inputs.emplace_back(to_device<std::int16_t>(in_values[k])); break;
      case DType::Int32: inputs.emplace_back(to_device<std::int32_t>(in_values[k])); break;
      case DType::Float32: inputs.emplace_back(to_device<float>(in_values[k])); break;
      default: inputs.emplace_back(to_device<double>(in_values[k])); break;
    }
  }
  std::vector<Var> v;
  for (const Node& node : dag.nodes) v.push_back(build_node(node, v, inputs, scalars));
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    INFO(label << ": node n" << i);
    REQUIRE(dtype_name(dtype_of_var(v[i])) == dtype_name(dag.nodes[i].dtype));
  }
  Batch batch;
  for (int o : dag.outputs)
    std::visit([&](const auto& x) { batch.add(node_name(o), x); }, v[std::size_t(o)]);
  const std::string error = batch.evaluate();
  if (!error.empty()) {
    FAIL_CHECK(label + ": " + error);
    return;
  }
  std::vector<std::vector<Value>> got;
  for (std::size_t k = 0; k < dag.outputs.size(); ++k) got.push_back(batch.values(k));
  const Stats st = stats();
  {
    INFO(label);
    CHECK(st.kernels_launched == 1);
    CHECK(st.auto_evaluations == 0);
    CHECK(st.uploads == dag.inputs.size());
    CHECK(st.downloads == dag.outputs.size());
    if (expect_no_build) {
      CHECK(st.programs_built == 0);
      CHECK(st.programs_loaded == 0);
      CHECK(st.memory_cache_hits == 1);
    }
  }

  // The reference walk.
  std::vector<std::vector<Value>> ref(dag.nodes.size());
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const Node& nd = dag.nodes[i];
    auto& out = ref[i];
    out.reserve(n);
    auto sval = [&](const Node& x) {
      const ScalarValue& s = scalars[std::size_t(x.slot)];
      const Value raw = s.kind == ScalarKind::Bool ? Value(s.b) : s.kind == ScalarKind::Int ? Value(s.i) : Value(s.d);
      return cast(raw, x.scalar_dtype);  // the host conversion of the typed API
    };
    for (std::size_t e = 0; e < n; ++e) {
      switch (nd.kind) {
        case Kind::Input: out.push_back(in_values[std::size_t(nd.slot)][e]); break;
        case Kind::Unary: out.push_back(ref_unary(nd.op, ref[std::size_t(nd.a)][e], nd.dtype)); break;
        case Kind::Binary:
          out.push_back(ref_binary(op_of(nd.fn), ref[std::size_t(nd.a)][e], ref[std::size_t(nd.b)][e], nd.dtype));
          break;
        case Kind::ScalarRight: out.push_back(ref_binary(op_of(nd.fn), ref[std::size_t(nd.a)][e], sval(nd), nd.dtype)); break;
        case Kind::ScalarLeft: out.push_back(ref_binary(op_of(nd.fn), sval(nd), ref[std::size_t(nd.a)][e], nd.dtype)); break;
        case Kind::Where:
          out.push_back(ref_ternary(Op::Where, ref[std::size_t(nd.c)][e], ref[std::size_t(nd.a)][e],
                                    ref[std::size_t(nd.b)][e], nd.dtype));
          break;
        case Kind::Cast: out.push_back(cast(ref[std::size_t(nd.a)][e], nd.dtype)); break;
      }
    }
  }

  for (std::size_t k = 0; k < dag.outputs.size(); ++k) {
    const Node& nd = dag.nodes[std::size_t(dag.outputs[k])];
    const auto& want = ref[std::size_t(dag.outputs[k])];
    std::size_t bad = 0;
    std::string first;
    for (std::size_t e = 0; e < n; ++e) {
      bool ok;
      if (nd.exact || !is_float(nd.dtype)) {
        ok = value_matches(nd.dtype, got[k][e], want[e], Tolerance{0, true});
      } else {
        const double g = got[k][e].as<double>(), w = want[e].as<double>();
        ok = got[k][e].dtype() == nd.dtype && std::fabs(g - w) <= 1e-4 * std::max(1.0, std::fabs(w));
      }
      if (!ok && ++bad <= 5) {
        first += "\n    [" + std::to_string(e) + "] device " + got[k][e].to_string() + ", reference " + want[e].to_string() +
                 "; inputs";
        for (std::size_t j = 0; j < in_values.size(); ++j) first.append(" ").append(in_values[j][e].to_string());
      }
    }
    if (bad > 0)
      FAIL_CHECK(label << ": output n" << dag.outputs[k] << " (" << dtype_name(nd.dtype) << (nd.exact ? ", exact" : "")
                       << "): " << bad << " of " << n << " elements differ" << first << "\nDAG:\n"
                       << dag.describe());
    else
      SUCCEED();
  }
}

}  // namespace

TEST_CASE("random expression DAGs run as one kernel and match the reference, and a rerun builds nothing", "[dag]") {
  const std::uint64_t base = test_seed(0x5eed0009);
  INFO(seed_message(base));
  // Ten structures (fixed by the seed), each large.
  for (int d = 0; d < 10; ++d) {
    const std::uint64_t structure_seed = case_seed(base, "dag structure " + std::to_string(d));
    const Dag dag = Generator(structure_seed, 40 + 3 * d).generate();
    const bool fp64_needed = std::any_of(dag.nodes.begin(), dag.nodes.end(),
                                         [](const Node& n) { return n.dtype == DType::Float64; });
    if (fp64_needed && !device().fp64) {
      WARN("no cl_khr_fp64 on " << device().name << ": DAG " << d << " (float64 nodes) skipped");
      continue;
    }
    const std::string label = "DAG " + std::to_string(d) + " (" + std::to_string(dag.nodes.size()) + " nodes, " +
                              std::to_string(dag.inputs.size()) + " inputs, " + std::to_string(dag.outputs.size()) +
                              " outputs)";
    run_dag(dag, 1013, case_seed(base, "dag data a " + std::to_string(d)), label + ", n=1013", false);
    run_dag(dag, 517, case_seed(base, "dag data b " + std::to_string(d)), label + ", new data, n=517", true);
  }
}
