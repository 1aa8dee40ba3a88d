// The host reference evaluator: what every op in op.hpp means, per dtype, in
// NumPy 2 terms. The op tests compare device results against it, and the code
// generator implements the same rules, so where NumPy leaves something to the
// platform (division by zero, shift counts, float-to-int overflow) this file
// is the definition.
//
// Which dtype an op computes in:
//  - Predicates (Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalNot,
//    IsNan, IsInf, IsFinite) look at their operands in promote(a, b) (for the
//    unary ones, x's own dtype) and give a bool, which is then cast to `out`.
//  - Cast is cast(x, out) (value.hpp).
//  - Where(cond, x, y), i.e. ref_ternary(Op::Where, cond, x, y, out), picks x
//    or y by cond's truthiness and casts the pick to `out`.
//  - Everything else casts its operands to `out` first and computes in `out`:
//    `out` decides the meaning, so Div with an integer `out` is floor division
//    and Div with a float `out` is true division (np.divide on integers gets
//    the float `out` float_for() names; an integer `out` asks for //).
//
// How:
//  - Integers wrap (two's complement), computed in uint64 so there is no UB.
//    Division or remainder by zero gives 0; INT_MIN / -1 wraps to INT_MIN and
//    INT_MIN % -1 is 0. Div and FloorDiv floor; Mod takes the divisor's sign.
//  - Shl by a count >= the bit width, or negative, gives 0. Shr likewise
//    gives 0, or -1 for a negative signed value; signed Shr is arithmetic.
//  - Pow on integers is exact repeated squaring with wrap; a negative
//    exponent gives 0, except base 1 (gives 1) and base -1 (gives +-1).
//    (NumPy raises there; a kernel cannot.)
//  - Abs(INT_MIN) is INT_MIN. Sign is -1/0/1 (0/1 unsigned); on floats +-1,
//    +0 for either zero, NaN for NaN.
//  - Floor, Ceil, Round, Trunc are the identity on integers and bool (NumPy
//    >= 2.3); Round on floats is round-half-to-even.
//  - Bool arithmetic is logic: Add/Maximum/Fmax/BitOr are or, Mul/Minimum/
//    Fmin/BitAnd are and, BitXor is xor, BitNot and LogicalNot are not. Neg,
//    Sub, Div, FloorDiv, Mod, shifts and Pow on bool are errors, as in NumPy.
//  - Floats: +, -, *, /, sqrt and fma are computed in `out`'s own C++ type
//    (so they round exactly as IEEE hardware does); FloorDiv and Mod follow
//    np.floor_divide / np.remainder (fmod, then moved to the divisor's sign
//    with the quotient snapped to an integer; a zero remainder takes the
//    divisor's sign; b == 0 gives a / b resp. NaN). Minimum/Maximum return the
//    first NaN operand if there is one, else `a <= b ? a : b` resp.
//    `a >= b ? a : b` (for equal zeros of opposite sign NumPy's answer
//    depends on its SIMD path; close_enough() treats +0 and -0 as equal);
//    Fmin/Fmax ignore a NaN unless both are NaN.
//  - Transcendental functions (exp, sin, pow, atan2, hypot, rsqrt, ...) are
//    evaluated in long double and rounded once to `out`. On x86-64 that is 64
//    bits of precision, so the reference sits within half an ulp (plus a hair)
//    of the exact result for float32 and float64 alike; tolerance_ulps()
//    (ulp.hpp) adds that half ulp to the OpenCL bounds. (Where long double is
//    double, as on MSVC and Apple arm64, the float64 reference is only as
//    good as libm, typically within 1 ulp.) Zeros, infinities and NaN in pow
//    are taken from pow in `out`'s type: glibc's x87 powl gets some wrong.
//
// Operations that make no sense for `out` (sin with an integer `out`, Shl on
// floats, ...) throw std::invalid_argument naming the op and dtype.
#pragma once

#include "fusecl/op.hpp"
#include "support/value.hpp"

#include <span>
#include <vector>

namespace fusecl::test {

Value ref_unary(Op op, Value x, DType out);
Value ref_binary(Op op, Value a, Value b, DType out);
Value ref_ternary(Op op, Value a, Value b, Value c, DType out);

/// A whole-array reduction of `xs` (all of one dtype):
///  - Sum, Prod, Mean, Min, Max cast every element to `out` first. Integer
///    Sum/Prod wrap; bool Sum is any, bool Prod is all. Float Sum and Mean
///    use Neumaier-compensated long double and round once, so they are the
///    (nearly) exact result, not NumPy's pairwise one: compare with a bound
///    that grows with the number of elements. Prod multiplies in long double.
///    An empty Sum is 0, Prod 1, Mean NaN.
///  - Min/Max: the first NaN if there is one (NumPy propagates NaN).
///  - All/Any: truthiness; empty All is true, empty Any false.
///  - ArgMin/ArgMax: the index (cast to `out`) of the first extreme element,
///    compared in the elements' dtype; a NaN counts as the extreme, so the
///    first NaN wins.
/// Min, Max, ArgMin and ArgMax of nothing throw std::invalid_argument, as
/// NumPy raises.
Value ref_reduce(Op op, std::span<const Value> xs, DType out);

/// ref_reduce over the elements of one output, given as plain host values,
/// read back as R (the reduction's result type).
template <class R, class T>
R ref_reduce_as(Op op, const std::vector<T>& xs) {
  std::vector<Value> v;
  v.reserve(xs.size());
  for (const T x : xs) v.push_back(Value(x));
  return ref_reduce(op, v, dtype_of_v<R>).template as<R>();
}

}  // namespace fusecl::test
