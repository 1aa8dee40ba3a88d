// Every operation a graph node can hold. One list, used by the typed API, the
// graph, the code generator, to_dot() and the tests' host reference evaluator.
#pragma once

#include <cstdint>
#include <string_view>

namespace fusecl {

#define FUSECL_UNARY_OPS(X)                                                                         \
  X(Neg, negative) X(LogicalNot, logical_not) X(BitNot, invert) X(Abs, abs) X(Sqrt, sqrt)        \
  X(Rsqrt, rsqrt) X(Cbrt, cbrt) X(Exp, exp) X(Exp2, exp2) X(Expm1, expm1) X(Log, log)             \
  X(Log2, log2) X(Log10, log10) X(Log1p, log1p) X(Sin, sin) X(Cos, cos) X(Tan, tan) X(Asin, arcsin) \
  X(Acos, arccos) X(Atan, arctan) X(Sinh, sinh) X(Cosh, cosh) X(Tanh, tanh) X(Asinh, arcsinh)     \
  X(Acosh, arccosh) X(Atanh, arctanh) X(Floor, floor) X(Ceil, ceil) X(Round, round)               \
  X(Trunc, trunc) X(Sign, sign) X(IsNan, isnan) X(IsInf, isinf) X(IsFinite, isfinite)             \
  X(Cast, astype)

#define FUSECL_BINARY_OPS(X)                                                                       \
  X(Add, add) X(Sub, subtract) X(Mul, multiply) X(Div, divide) X(FloorDiv, floor_divide)          \
  X(Mod, remainder) X(Eq, equal) X(Ne, not_equal) X(Lt, less) X(Le, less_equal) X(Gt, greater)    \
  X(Ge, greater_equal) X(LogicalAnd, logical_and) X(LogicalOr, logical_or) X(BitAnd, bitwise_and) \
  X(BitOr, bitwise_or) X(BitXor, bitwise_xor) X(Shl, left_shift) X(Shr, right_shift)              \
  X(Atan2, arctan2) X(Pow, power) X(Hypot, hypot) X(Fmin, fmin) X(Fmax, fmax)                     \
  X(Minimum, minimum) X(Maximum, maximum)

#define FUSECL_TERNARY_OPS(X) X(Where, where) X(Fma, fma)

#define FUSECL_REDUCE_OPS(X)                                                                       \
  X(Sum, sum) X(Prod, prod) X(Min, min) X(Max, max) X(Mean, mean) X(ArgMin, argmin)               \
  X(ArgMax, argmax) X(All, all) X(Any, any)

// Leaves and structure.
#define FUSECL_OTHER_OPS(X)                                                                        \
  X(Buffer, buffer) X(Scalar, scalar) X(Generate, generate) X(View, view)                         \
  X(Contiguous, contiguous) X(Concat, concatenate) X(Transfer, to)

enum class Op : std::uint8_t {
#define FUSECL_ENUM(e, n) e,
  FUSECL_UNARY_OPS(FUSECL_ENUM) FUSECL_BINARY_OPS(FUSECL_ENUM) FUSECL_TERNARY_OPS(FUSECL_ENUM)
  FUSECL_REDUCE_OPS(FUSECL_ENUM) FUSECL_OTHER_OPS(FUSECL_ENUM)
#undef FUSECL_ENUM
};

enum class OpClass : std::uint8_t { Unary, Binary, Ternary, Reduce, Leaf, Structure };

constexpr OpClass op_class(Op op) {
  if (op <= Op::Cast) return OpClass::Unary;
  if (op <= Op::Maximum) return OpClass::Binary;
  if (op <= Op::Fma) return OpClass::Ternary;
  if (op <= Op::Any) return OpClass::Reduce;
  if (op == Op::View || op == Op::Contiguous || op == Op::Concat || op == Op::Transfer) return OpClass::Structure;
  return OpClass::Leaf;
}

constexpr bool is_elementwise(Op op) {
  const OpClass c = op_class(op);
  return c == OpClass::Unary || c == OpClass::Binary || c == OpClass::Ternary;
}

/// NumPy's name of the operation ("add", "arctan2", "sum").
std::string_view op_name(Op op);

/// What a Generate node produces; its flat index i runs over its own shape in C order.
enum class GenKind : std::uint8_t {
  Arange,   // start + i * step
  Linspace, // start + i * step, with the last element exactly `stop`
  Eye,      // 1 where column - row == k (shape (rows, cols))
  Uniform,  // Philox4x32-10, uniform in [0, 1)
  Normal,   // Philox4x32-10, standard normal (Box-Muller)
};

}  // namespace fusecl
