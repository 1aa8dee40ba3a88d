// How far a device result may be from the host reference: ulp distances, and
// per op the accuracy OpenCL 1.2 promises for its built-in math functions.
#pragma once

#include "fusecl/dtype.hpp"
#include "fusecl/op.hpp"
#include "support/value.hpp"

namespace fusecl::test {

/// Number of representable values between a and b (1 for neighbours). NaN
/// and NaN are 0 apart, +0 and -0 are 0 apart, and so are equal infinities;
/// NaN and a number are infinitely far apart. Across zero the count runs
/// through both signs' subnormals, with the two zeros as one point
/// (-denorm_min and +denorm_min are 2 apart). FLT_MAX and inf are 1 apart.
double ulp_distance_f32(float a, float b);
double ulp_distance_f64(double a, double b);

/// Whether `got` is an acceptable device result for the reference `want`,
/// both of dtype t (a dtype mismatch is never acceptable). Bool and integer
/// results must be equal; float results must lie within `ulps`
/// (ulp_distance). With `denormals_may_flush` (a device without CL_FP_DENORM),
/// a subnormal `want` also accepts a zero of either sign.
/// With `floor` > 0 the distance is in ulps of max(|want|, floor) instead
/// (an absolute error below the floor: Accuracy::Kind::UlpAtOne).
bool close_enough(DType t, Value got, Value want, double ulps, bool denormals_may_flush = false, double floor = 0);

/// 1 for ops whose bound is in ulps of max(|result|, 1) (logaddexp), else 0:
/// the `floor` of close_enough().
double error_floor(Op op);

/// The maximum error OpenCL 1.2 allows the built-in behind `op` on float32 /
/// float64 (full profile; OpenCL 1.2 specification, section 7.4, tables 7.1
/// and 7.2), in ulps of the exact result, as op_info(op).accuracy (op.hpp)
/// records it: 0 for correctly rounded and exact operations. Float32 divide and sqrt are 2.5 and 3 ulp unless the kernel
/// is built with -cl-fp32-correctly-rounded-divide-sqrt on a device that
/// reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT; pass that as
/// `correctly_rounded_divide_sqrt`. Bool and integer dtypes: 0.
/// Throws std::invalid_argument for ops without a per-element bound (Sum,
/// Prod and Mean, whose error grows with the input; leaves and structure).
double opencl_ulp_bound(Op op, DType t, bool correctly_rounded_divide_sqrt = false);

/// The bound to pass to close_enough() when comparing against the reference
/// evaluator: opencl_ulp_bound() plus half an ulp for the reference's own
/// rounding to `t` (the reference is within half an ulp of the exact value,
/// the device within the bound, so the two are within the sum). Exact ops
/// stay at 0.
double tolerance_ulps(Op op, DType t, bool correctly_rounded_divide_sqrt = false);

}  // namespace fusecl::test
