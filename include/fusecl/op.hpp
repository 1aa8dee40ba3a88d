// Every operation a graph node can hold, with what the public headers need to
// know about it, one row per op. The enum, op_name(), op_class(), the dtype
// rules (result_type.hpp), the free functions (array.hpp, reduce.hpp), the
// code generator, to_dot() and the tests read these rows; no fact depends on
// where an op sits in the enum or in the lists below. (An op's enum value does
// reach the kernel names, which hash the instructions' bytes: a new op moves
// the values after it, so those kernels get new names and a cold disk cache.)
//
// A new elementwise op touches:
//  1. its row in FUSECL_ELEMENTWISE_OPS below, which gives it its enum value,
//     name, class, dtype rule, accuracy and, marked `fn`, the free function
//     fusecl::NAME (a row marked `custom` is spelled by hand in array.hpp);
//  2. its OpenCL C row in codegen/spelling.cpp (a static_assert there fails
//     while it is missing);
//  3. its meaning in the tests' host reference, tests/support/reference.cpp
//     (which throws for an op it does not know), and its test:
//     tests/test_ops_unary.cpp, test_ops_binary.cpp or test_ops_ternary.cpp;
//  4. README.md: the function list, and the accuracy table unless it is exact.
// A new reduction: its row in FUSECL_REDUCE_OPS, tests/support/reference_reduce.cpp,
// tests/test_reductions.cpp and the README.
#pragma once

#include "fusecl/error.hpp"

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace fusecl {

// X(enum, NumPy name, class, API, C++ function, dtype rule, accuracy)
//  - API `fn`: the free function fusecl::<C++ function>(x) or (x, y);
//    `custom`: written by hand in array.hpp (then the C++ function is `_`).
//  - dtype rule: a TypeRule, below.
//  - accuracy: exact, ulp(n), float32_ulp(n), ulp_at_one(n) or none (struct Accuracy, below),
//    from OpenCL 1.2 section 7.4, tables 7.1 (float) and 7.2 (double), full
//    profile, which agree for every function here. floor_divide divides once
//    and snaps the quotient to an integer, so it can be off only where 2.5
//    ulp exceed half an integer step, and then by no more than the division;
//    remainder and fmod are exact (fusecl computes fmod exactly itself).
//    rad2deg and deg2rad multiply by NumPy's constants for 180/pi and pi/180
//    in the dtype: exact against that definition, not correctly rounded
//    degrees. logaddexp is NumPy's max + log1p(exp(-|x - y|)): the second
//    term, in (0, ln 2], is off by at most 1.5 (exp's 3 ulp, damped) + 2
//    (log1p's) units of 2^-p, and the sum rounds once more, so the result
//    is within 4 ulps of max(|result|, 1); a result near 0 comes from
//    cancellation and has no ulp bound of its own (NumPy's neither).
//    logaddexp2 adds log2(e) * log1p(exp2(-|x - y|)), in (0, 1]: 2.2 + 2.9
//    + 1 units, within 5 ulps of max(|result|, 1).
#define FUSECL_ELEMENTWISE_OPS(X)                                       \
  X(Neg, negative, Unary, fn, negative, NoBool, exact)                  \
  X(LogicalNot, logical_not, Unary, fn, logical_not, Predicate, exact)  \
  X(BitNot, invert, Unary, fn, invert, NoFloat, exact)                  \
  X(Abs, abs, Unary, fn, abs, Same, exact)                              \
  X(Sqrt, sqrt, Unary, fn, sqrt, Math, float32_ulp(3))                  \
  X(Rsqrt, rsqrt, Unary, fn, rsqrt, Math, ulp(2))                       \
  X(Cbrt, cbrt, Unary, fn, cbrt, Math, ulp(2))                          \
  X(Exp, exp, Unary, fn, exp, Math, ulp(3))                             \
  X(Exp2, exp2, Unary, fn, exp2, Math, ulp(3))                          \
  X(Expm1, expm1, Unary, fn, expm1, Math, ulp(3))                       \
  X(Log, log, Unary, fn, log, Math, ulp(3))                             \
  X(Log2, log2, Unary, fn, log2, Math, ulp(3))                          \
  X(Log10, log10, Unary, fn, log10, Math, ulp(3))                       \
  X(Log1p, log1p, Unary, fn, log1p, Math, ulp(2))                       \
  X(Sin, sin, Unary, fn, sin, Math, ulp(4))                             \
  X(Cos, cos, Unary, fn, cos, Math, ulp(4))                             \
  X(Tan, tan, Unary, fn, tan, Math, ulp(5))                             \
  X(Asin, arcsin, Unary, fn, asin, Math, ulp(4))                        \
  X(Acos, arccos, Unary, fn, acos, Math, ulp(4))                        \
  X(Atan, arctan, Unary, fn, atan, Math, ulp(5))                        \
  X(Sinh, sinh, Unary, fn, sinh, Math, ulp(4))                          \
  X(Cosh, cosh, Unary, fn, cosh, Math, ulp(4))                          \
  X(Tanh, tanh, Unary, fn, tanh, Math, ulp(5))                          \
  X(Asinh, arcsinh, Unary, fn, asinh, Math, ulp(4))                     \
  X(Acosh, arccosh, Unary, fn, acosh, Math, ulp(4))                     \
  X(Atanh, arctanh, Unary, fn, atanh, Math, ulp(5))                     \
  X(Floor, floor, Unary, fn, floor, Same, exact)                        \
  X(Ceil, ceil, Unary, fn, ceil, Same, exact)                           \
  X(Round, round, Unary, fn, round, Same, exact)                        \
  X(Trunc, trunc, Unary, fn, trunc, Same, exact)                        \
  X(Sign, sign, Unary, fn, sign, NoBool, exact)                         \
  X(IsNan, isnan, Unary, fn, isnan, Predicate, exact)                   \
  X(IsInf, isinf, Unary, fn, isinf, Predicate, exact)                   \
  X(IsFinite, isfinite, Unary, fn, isfinite, Predicate, exact)          \
  X(Fabs, fabs, Unary, fn, fabs, Math, exact)                           \
  X(Rint, rint, Unary, fn, rint, Math, exact)                           \
  X(Signbit, signbit, Unary, fn, signbit, Predicate, exact)             \
  X(Rad2Deg, rad2deg, Unary, fn, rad2deg, Math, exact)                  \
  X(Deg2Rad, deg2rad, Unary, fn, deg2rad, Math, exact)                  \
  X(Spacing, spacing, Unary, fn, spacing, Math, exact)                  \
  X(Cast, astype, Unary, custom, _, Given, exact)                       \
  X(Add, add, Binary, fn, add, Same, exact)                             \
  X(Sub, subtract, Binary, fn, subtract, NoBool, exact)                 \
  X(Mul, multiply, Binary, fn, multiply, Same, exact)                   \
  X(Div, divide, Binary, custom, _, NoBool, float32_ulp(2.5))           \
  X(FloorDiv, floor_divide, Binary, fn, floor_divide, NoBool, float32_ulp(2.5)) \
  X(Mod, remainder, Binary, fn, remainder, NoBool, exact)               \
  X(Eq, equal, Binary, fn, equal, Compare, exact)                       \
  X(Ne, not_equal, Binary, fn, not_equal, Compare, exact)               \
  X(Lt, less, Binary, fn, less, Compare, exact)                         \
  X(Le, less_equal, Binary, fn, less_equal, Compare, exact)             \
  X(Gt, greater, Binary, fn, greater, Compare, exact)                   \
  X(Ge, greater_equal, Binary, fn, greater_equal, Compare, exact)       \
  X(LogicalAnd, logical_and, Binary, fn, logical_and, Predicate, exact) \
  X(LogicalOr, logical_or, Binary, fn, logical_or, Predicate, exact)    \
  X(BitAnd, bitwise_and, Binary, fn, bitwise_and, NoFloat, exact)       \
  X(BitOr, bitwise_or, Binary, fn, bitwise_or, NoFloat, exact)          \
  X(BitXor, bitwise_xor, Binary, fn, bitwise_xor, NoFloat, exact)       \
  X(Shl, left_shift, Binary, fn, left_shift, Integer, exact)            \
  X(Shr, right_shift, Binary, fn, right_shift, Integer, exact)          \
  X(Atan2, arctan2, Binary, fn, atan2, Math, ulp(6))                    \
  X(Pow, power, Binary, fn, pow, NoBool, ulp(16))                       \
  X(Hypot, hypot, Binary, fn, hypot, Math, ulp(4))                      \
  X(Fmin, fmin, Binary, fn, fmin, Same, exact)                          \
  X(Fmax, fmax, Binary, fn, fmax, Same, exact)                          \
  X(Minimum, minimum, Binary, fn, minimum, Same, exact)                 \
  X(Maximum, maximum, Binary, fn, maximum, Same, exact)                 \
  X(Copysign, copysign, Binary, fn, copysign, Math, exact)              \
  X(Fmod, fmod, Binary, fn, fmod, NoBool, exact)                        \
  X(Nextafter, nextafter, Binary, fn, nextafter, Math, exact)           \
  X(Heaviside, heaviside, Binary, fn, heaviside, Math, exact)           \
  X(LogicalXor, logical_xor, Binary, fn, logical_xor, Predicate, exact) \
  X(LogAddExp, logaddexp, Binary, fn, logaddexp, Math, ulp_at_one(4))   \
  X(LogAddExp2, logaddexp2, Binary, fn, logaddexp2, Math, ulp_at_one(5)) \
  X(Gcd, gcd, Binary, fn, gcd, Integer, exact)                          \
  X(Lcm, lcm, Binary, fn, lcm, Integer, exact)                          \
  X(Where, where, Ternary, custom, _, Select, exact)                    \
  X(Fma, fma, Ternary, custom, _, Math, exact)

// X(enum, NumPy name, API, accumulator, identity, combine, finish, summation, accuracy)
//  - API `fn`: sum(a), sum(a, axis, keepdims), sum(a, axes, keepdims) in
//    reduce.hpp; `custom`: written by hand there.
//  - the other columns: the fields of ReduceInfo, below.
#define FUSECL_REDUCE_OPS(X)                                                \
  X(Sum, sum, fn, Wide, Zero, Add, Value, Kahan, none)                      \
  X(Prod, prod, fn, Wide, One, Mul, Value, Plain, none)                     \
  X(Min, min, fn, Input, Highest, Minimum, Value, Plain, exact)             \
  X(Max, max, fn, Input, Lowest, Maximum, Value, Plain, exact)              \
  X(Mean, mean, fn, Float64, Zero, Add, Mean, Kahan, none)                  \
  X(ArgMin, argmin, custom, Int32Up, Highest, Minimum, Index, Plain, exact) \
  X(ArgMax, argmax, custom, Int32Up, Lowest, Maximum, Index, Plain, exact)  \
  X(All, all, fn, Truth, One, BitAnd, Value, Plain, exact)                  \
  X(Any, any, fn, Truth, Zero, BitOr, Value, Plain, exact)

// Leaves and structure. X(enum, name, class)
#define FUSECL_NODE_OPS(X)                                                        \
  X(Buffer, buffer, Leaf) X(Scalar, scalar, Leaf) X(Generate, generate, Leaf)     \
  X(View, view, Structure) X(Contiguous, contiguous, Structure)                   \
  X(Concat, concatenate, Structure) X(Transfer, to, Structure)       \
  X(HostView, host_view, Leaf)

enum class Op : std::uint8_t {
#define FUSECL_ENUM(e, ...) e,
  FUSECL_ELEMENTWISE_OPS(FUSECL_ENUM) FUSECL_REDUCE_OPS(FUSECL_ENUM) FUSECL_NODE_OPS(FUSECL_ENUM)
#undef FUSECL_ENUM
};

#define FUSECL_COUNT(...) +1
inline constexpr int op_count = 0 FUSECL_ELEMENTWISE_OPS(FUSECL_COUNT) FUSECL_REDUCE_OPS(FUSECL_COUNT)
    FUSECL_NODE_OPS(FUSECL_COUNT);
#undef FUSECL_COUNT

enum class OpClass : std::uint8_t { Unary, Binary, Ternary, Reduce, Leaf, Structure };

/// How an op's dtypes follow from its operands' (promoted together first;
/// result_type.hpp applies the rule).
enum class TypeRule : std::uint8_t {
  Same,       // every dtype; computes in and gives the operand dtype (abs, add, minimum)
  NoBool,     // as Same, but not on bool, as NumPy (negative, subtract, power)
  NoFloat,    // as Same, but not on floats (invert, bitwise_and)
  Integer,    // as Same, integers only (shifts)
  Math,       // every dtype; computes in and gives float_for(operand) (sqrt, arctan2, fma)
  Predicate,  // every dtype; looks at the operand dtype, gives bool (isnan, logical_and)
  Compare,    // as Predicate: == != < <= > >= (is_comparison())
  Select,     // where: the condition is cast to bool; as Same for the two choices
  Given,      // the node names its dtype (astype's target, a leaf's own, a view's input's)
  Reduce,     // a reduction: reduce_info() holds its rule
};

/// The most a float result may be from the exact one: the accuracy OpenCL 1.2
/// requires of the built-in behind the op (specification section 7.4, tables
/// 7.1 and 7.2, full profile), in ulps of the exact result. Bool and integer
/// results are always exact.
struct Accuracy {
  enum class Kind : std::uint8_t {
    Exact,       // correctly rounded or exact
    Ulp,         // within `ulp`, float32 and float64 alike
    Float32Ulp,  // within `ulp` in float32 unless built with correctly rounded divide
                 // and sqrt; float64 always correctly rounded (divide, sqrt)
    UlpAtOne,    // within `ulp` ulps of max(|exact|, 1): an absolute error
                 // where the result is below 1 (logaddexp)
    None,        // no per-element bound: the error grows with the input (sum,
                 // prod, mean), or the op computes nothing (leaves, structure)
  };
  Kind kind;
  double ulp;
};

/// The accumulator's dtype, from the input's.
enum class Accumulate : std::uint8_t {
  Input,    // the input's own (min, max)
  // int32 for bool and integers narrower than 32 bits, others as they are
  // (argmin, argmax): widening keeps the order and the ties, so the index
  // is the same, and a CPU compares them in int vectors beside int indices
  // (render_reduce_vectors.cpp's arg_vectors), not a value at a time.
  Int32Up,
  Wide,     // int64 for bool and signed, uint64 for unsigned, floats as they are (sum, prod)
  Float64,  // float64, floats as they are (mean)
  Truth,    // bool: the input's truthiness (all, any)
};

/// The accumulator's start, in its dtype.
enum class Identity : std::uint8_t {
  Zero,
  One,
  Highest,  // +inf for floats, the largest value for integers, true for bool
  Lowest,   // -inf for floats, the smallest value for integers, false for bool
};

/// What a reduction stores.
enum class Finish : std::uint8_t {
  Value,  // the accumulator
  Mean,   // the accumulator over the element count (less ddof for var)
  Index,  // the int64 index of the element that won (first of equals; NaN wins)
};

enum class Summation : std::uint8_t {
  Plain,
  Kahan,  // float accumulators add with Kahan compensation
};

/// One op's row.
struct OpInfo {
  Op op;
  std::string_view name;  // NumPy's ("add", "arctan2", "sum")
  OpClass cls;
  TypeRule rule;
  Accuracy accuracy;
};

/// A reduction's row, besides its OpInfo.
struct ReduceInfo {
  Op op;
  Accumulate accumulate;
  Identity identity;
  Op combine;  // the elementwise op folding a value into the accumulator; for
               // an Index reduction, the one whose result wins
  Finish finish;
  Summation summation;
};

namespace detail::accuracy {
inline constexpr Accuracy exact{Accuracy::Kind::Exact, 0};
inline constexpr Accuracy none{Accuracy::Kind::None, 0};
constexpr Accuracy ulp(double n) { return {Accuracy::Kind::Ulp, n}; }
constexpr Accuracy float32_ulp(double n) { return {Accuracy::Kind::Float32Ulp, n}; }
constexpr Accuracy ulp_at_one(double n) { return {Accuracy::Kind::UlpAtOne, n}; }
}  // namespace detail::accuracy

namespace detail {
#define FUSECL_ELEMENTWISE_ROW(e, n, cls, api, cxx, rule, acc) \
  OpInfo{Op::e, #n, OpClass::cls, TypeRule::rule, accuracy::acc},
#define FUSECL_REDUCE_ROW(e, n, api, accum, id, combine, finish, sum, acc) \
  OpInfo{Op::e, #n, OpClass::Reduce, TypeRule::Reduce, accuracy::acc},
#define FUSECL_NODE_ROW(e, n, cls) OpInfo{Op::e, #n, OpClass::cls, TypeRule::Given, accuracy::none},
inline constexpr OpInfo op_rows[] = {FUSECL_ELEMENTWISE_OPS(FUSECL_ELEMENTWISE_ROW) FUSECL_REDUCE_OPS(FUSECL_REDUCE_ROW)
                                         FUSECL_NODE_OPS(FUSECL_NODE_ROW)};
#undef FUSECL_ELEMENTWISE_ROW
#undef FUSECL_REDUCE_ROW
#undef FUSECL_NODE_ROW

#define FUSECL_REDUCE_ROW(e, n, api, accum, id, combine, finish, sum, acc) \
  ReduceInfo{Op::e, Accumulate::accum, Identity::id, Op::combine, Finish::finish, Summation::sum},
inline constexpr ReduceInfo reduce_rows[] = {FUSECL_REDUCE_OPS(FUSECL_REDUCE_ROW)};
#undef FUSECL_REDUCE_ROW

// op_info() indexes op_rows by the enum value, so row i must be op i's.
constexpr bool rows_in_enum_order() {
  for (int i = 0; i < op_count; ++i)
    if (op_rows[i].op != Op(i)) return false;
  return true;
}
static_assert(std::size(op_rows) == std::size_t(op_count) && rows_in_enum_order(),
              "fusecl: op_rows must hold one row per Op, in enum order");
}  // namespace detail

/// The row of `op`.
constexpr const OpInfo& op_info(Op op) { return detail::op_rows[static_cast<std::size_t>(op)]; }

constexpr OpClass op_class(Op op) { return op_info(op).cls; }

constexpr bool is_elementwise(Op op) {
  const OpClass c = op_class(op);
  return c == OpClass::Unary || c == OpClass::Binary || c == OpClass::Ternary;
}

/// NumPy's name of the operation ("add", "arctan2", "sum").
constexpr std::string_view op_name(Op op) { return op_info(op).name; }

/// The reduction row of `op`; throws fusecl::Error for an op that is not a reduction.
constexpr const ReduceInfo& reduce_info(Op op) {
  for (const ReduceInfo& r : detail::reduce_rows)
    if (r.op == op) return r;
  throw Error("fusecl::reduce_info: " + std::string(op_name(op)) + " is not a reduction");
}

namespace detail {
// Every reduction has its row, and combines with an elementwise binary op.
constexpr bool reduce_rows_complete() {
  int reductions = 0;
  for (int i = 0; i < op_count; ++i) reductions += op_class(Op(i)) == OpClass::Reduce;
  if (reductions != int(std::size(reduce_rows))) return false;
  for (const ReduceInfo& r : reduce_rows)
    if (op_class(r.op) != OpClass::Reduce || op_class(r.combine) != OpClass::Binary) return false;
  return true;
}
static_assert(reduce_rows_complete(), "fusecl: every reduction needs one reduce row, combining with a binary op");
}  // namespace detail

/// What a Generate node produces; its flat index i runs over its own shape in C order.
enum class GenKind : std::uint8_t {
  Arange,   // start + i * step
  Linspace, // start + i * step, with the last element exactly `stop`
  Eye,      // 1 where column - row == k (shape (rows, cols))
  Uniform,  // Philox4x32-10, uniform in [0, 1)
  Normal,   // Philox4x32-10, standard normal (Box-Muller)
};

}  // namespace fusecl
