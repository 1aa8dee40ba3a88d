// Exact division by a row's value through its reciprocal: a row kernel's
// output phase divides every element of its row by the same value (softmax's
// sum, a layer norm's standard deviation), and IEEE division per element is
// some ten instructions on a GPU (an H200's float division: a reciprocal,
// Newton steps, a range check and a branch around a slow path).
//
// With z = RN(1/b), taken once (the compiler hoists it out of the row's
// loop), q = RN(a z), r = a - q b (one fma, exact) and q1 = RN(q + r z)
// (one fma), q1 is the correctly rounded a / b wherever z, q, q1 are normal
// and r is exact (Markstein's theorem; P. Markstein, IBM J. Res. Dev. 34(1),
// 1990; M. Cornea et al., "Correctness proofs outline for Newton-Raphson
// based floating-point divide and square root algorithms", ARITH 14, 1999).
// For float32 this was checked bit for bit against IEEE division over every
// pair of significands (2^46 pairs, none differed; bench/RESULTS.md, twenty-
// sixth session); powers of two scale every step exactly and signs are
// symmetric, so that covers every pair in range.
//
// The range: |b| in [2^-16, 2^125] (z is NaN outside it, so every quotient
// comes out NaN) and |q1| in [2^-85, 2^126]. Then z and q are normal, |a| >=
// about 2^-101, so r is exact (a multiple of 2^(e_a - 47) >= 2^-149), and
// nothing overflows. Softmax's quotients stay in it up to a gap of about 58
// below the row's max; a layer norm's divisor, while the deviation is at
// least 2^-16.
// Each quotient's range test (its bits, shifted past the sign, less 2^-85's)
// folds into a running maximum; a work-item whose maximum passes the range
// computes its outputs again with IEEE division and stores them over the
// first ones (outputs are new buffers, never an input of the same kernel).
// Zeros, infinities, NaN and quotients past the range take that second pass.
#pragma once

#include "codegen/kernel_plan.hpp"
#include "codegen/spelling.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fusecl::codegen {

/// The range, as the helper tests it: |b| in [2^kReciprocalDivisorLow,
/// 2^kReciprocalDivisorHigh], and the bits of |q1| shifted left by one (past
/// the sign), less kReciprocalLow (2^-85's so shifted), at most
/// kReciprocalSpan (|q1| at most 2^126).
inline constexpr int kReciprocalDivisorLow = -16, kReciprocalDivisorHigh = 125;
inline constexpr std::uint32_t kReciprocalLow = std::uint32_t(127 - 85) << 24;
inline constexpr std::uint32_t kReciprocalSpan = (std::uint32_t(127 + 126) << 24) - kReciprocalLow;

/// By instruction: 1 for the float32 divisions whose divisor is the same
/// over a row (computed from the row's reductions and scalars alone), which
/// a row kernel with ReduceSpec::row_reciprocal divides through the
/// divisor's reciprocal; none where the plan has none.
std::vector<char> reciprocal_divisions(const KernelPlan& plan);
/// Whether the plan has such a division.
bool has_reciprocal_divisions(const KernelPlan& plan);

/// The quotient a / b (float32 expressions of `width` lanes) through b's
/// reciprocal, folding its range test into the uint `range` (a variable);
/// with `lanes` (an int mask of `width` lanes), only the lanes it sets
/// (the skewed row form's others are no row's: render_row_skew.cpp).
std::string reciprocal_divide(HelperSet& h, int width, const std::string& a, const std::string& b, const std::string& range,
                              const std::string& lanes = "");

/// The condition, on `range`, under which the outputs are computed again
/// with IEEE division: some quotient (or divisor) was outside the range.
std::string reciprocal_redo(const std::string& range);

}  // namespace fusecl::codegen
