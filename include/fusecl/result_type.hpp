// The dtype each operation produces, as constexpr functions of the op's
// TypeRule or reduce row (op.hpp). The typed API evaluates them at compile
// time to name the C++ result type; the graph evaluates the same functions at
// run time. An operation a dtype does not support (bitwise on floats,
// subtract on bools) has no result: the API rejects it with a static_assert,
// the graph with fusecl::Error.
#pragma once

#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"

namespace fusecl {

// ---- what a rule means ---------------------------------------------------------------

/// Whether operands of kind k (after promotion) are allowed.
constexpr bool rule_accepts(TypeRule rule, Kind k) {
  switch (rule) {
    case TypeRule::NoBool: return k != Kind::Bool;
    case TypeRule::NoFloat: return k != Kind::Float;
    case TypeRule::Integer: return k == Kind::Signed || k == Kind::Unsigned;
    default: return true;
  }
}

/// The dtype the operands, promoted to `in`, are cast to before the operation.
constexpr DType rule_compute(TypeRule rule, DType in) { return rule == TypeRule::Math ? float_for(in) : in; }

constexpr DType rule_result(TypeRule rule, DType in) {
  return (rule == TypeRule::Predicate || rule == TypeRule::Compare) ? DType::Bool : rule_compute(rule, in);
}

// ---- elementwise ops -------------------------------------------------------------------

/// The unary ops that compute in float (sqrt, exp, sin, ...).
constexpr bool is_transcendental(Op op) {
  return op_class(op) == OpClass::Unary && op_info(op).rule == TypeRule::Math;
}

constexpr bool is_comparison(Op op) { return op_info(op).rule == TypeRule::Compare; }

constexpr bool unary_supported(Op op, DType x) { return rule_accepts(op_info(op).rule, kind_of(x)); }

/// The dtype the operation computes in, after casting its input.
constexpr DType unary_compute(Op op, DType x) { return rule_compute(op_info(op).rule, x); }

constexpr DType unary_result(Op op, DType x) { return rule_result(op_info(op).rule, x); }

constexpr bool binary_supported(Op op, DType a, DType b) {
  return rule_accepts(op_info(op).rule, kind_of(promote(a, b)));
}

/// The dtype both operands are cast to before the operation.
constexpr DType binary_compute(Op op, DType a, DType b) { return rule_compute(op_info(op).rule, promote(a, b)); }

constexpr DType binary_result(Op op, DType a, DType b) { return rule_result(op_info(op).rule, promote(a, b)); }

/// The dtype a ternary op's operands are cast to, from the promoted dtype of
/// those it computes with (for where, the two choices: the condition is cast
/// to bool).
constexpr DType ternary_compute(Op op, DType promoted) { return rule_compute(op_info(op).rule, promoted); }

// ---- reductions ------------------------------------------------------------------------

/// The dtype a reduction's input is cast to (NumPy: sums of small integers
/// accumulate in 64 bits, means of integers in float64, all/any test truth).
constexpr DType reduce_compute(Op op, DType in) {
  switch (reduce_info(op).accumulate) {
    case Accumulate::Input: return in;
    case Accumulate::Int32Up: return !is_float(in) && size_of(in) < 4 ? DType::Int32 : in;
    case Accumulate::Wide:
      if (in == DType::Bool || kind_of(in) == Kind::Signed) return DType::Int64;
      if (kind_of(in) == Kind::Unsigned) return DType::UInt64;
      return in;
    case Accumulate::Float64: return is_float(in) ? in : DType::Float64;
    case Accumulate::Truth: return DType::Bool;
  }
  return in;
}

constexpr DType reduce_result(Op op, DType in) {
  return reduce_info(op).finish == Finish::Index ? DType::Int64 : reduce_compute(op, in);
}

/// var and stddev compute in floating point (float64 for integers).
constexpr DType moment_dtype(DType in) { return is_float(in) ? in : DType::Float64; }

}  // namespace fusecl
