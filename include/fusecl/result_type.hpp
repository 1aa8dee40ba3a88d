// The dtype each operation produces, as constexpr functions. The typed API
// evaluates them at compile time to name the C++ result type; the graph
// evaluates the same functions at run time. An operation a dtype does not
// support (bitwise on floats, subtract on bools) has no result: the API
// rejects it with a static_assert, the graph with fusecl::Error.
#pragma once

#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"

namespace fusecl {

constexpr bool is_transcendental(Op op) {
  return (op >= Op::Sqrt && op <= Op::Atanh);
}

constexpr bool unary_supported(Op op, DType x) {
  const Kind k = kind_of(x);
  switch (op) {
    case Op::Neg: case Op::Sign: return k != Kind::Bool;
    case Op::BitNot: return k != Kind::Float;
    default: return true;
  }
}

/// The dtype the operation computes in, after casting its input.
constexpr DType unary_compute(Op op, DType x) { return is_transcendental(op) ? float_for(x) : x; }

constexpr DType unary_result(Op op, DType x) {
  switch (op) {
    case Op::LogicalNot: case Op::IsNan: case Op::IsInf: case Op::IsFinite: return DType::Bool;
    default: return unary_compute(op, x);
  }
}

constexpr bool binary_supported(Op op, DType a, DType b) {
  const DType p = promote(a, b);
  const Kind k = kind_of(p);
  switch (op) {
    case Op::Sub: case Op::Div: case Op::FloorDiv: case Op::Mod: case Op::Pow: return k != Kind::Bool;
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: return k != Kind::Float;
    case Op::Shl: case Op::Shr: return k == Kind::Signed || k == Kind::Unsigned;
    default: return true;
  }
}

constexpr bool is_comparison(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
}

/// The dtype both operands are cast to before the operation.
constexpr DType binary_compute(Op op, DType a, DType b) {
  const DType p = promote(a, b);
  return (op == Op::Atan2 || op == Op::Hypot) ? float_for(p) : p;
}

constexpr DType binary_result(Op op, DType a, DType b) {
  if (is_comparison(op) || op == Op::LogicalAnd || op == Op::LogicalOr) return DType::Bool;
  return binary_compute(op, a, b);
}

}  // namespace fusecl

namespace fusecl {

/// The dtype a reduction's input is cast to (NumPy: sums of small integers
/// accumulate in 64 bits, means of integers in float64, all/any test truth).
constexpr DType reduce_compute(Op op, DType in) {
  switch (op) {
    case Op::Sum: case Op::Prod:
      if (in == DType::Bool || kind_of(in) == Kind::Signed) return DType::Int64;
      if (kind_of(in) == Kind::Unsigned) return DType::UInt64;
      return in;
    case Op::Mean: return is_float(in) ? in : DType::Float64;
    case Op::All: case Op::Any: return DType::Bool;
    default: return in;
  }
}

constexpr DType reduce_result(Op op, DType in) {
  return (op == Op::ArgMin || op == Op::ArgMax) ? DType::Int64 : reduce_compute(op, in);
}

/// var and stddev compute in floating point (float64 for integers).
constexpr DType moment_dtype(DType in) { return is_float(in) ? in : DType::Float64; }

}  // namespace fusecl
