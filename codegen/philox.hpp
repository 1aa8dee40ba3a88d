// Philox4x32-10, the counter-based generator behind fusecl::random::uniform and
// fusecl::random::normal, as a host implementation and as OpenCL C source for
// the code generator. Both sides implement one mapping from (flat index, seed)
// to numbers, so an array drawn on any device, in any vector width or work
// distribution, is the same array the host functions below describe.
//
// Reference: J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC'11. Known-answer values come from
// Random123's tests/kat_vectors.
//
// ---- The mapping (host and device agree on it bit for bit) ---------------------------
//
// Element i (its flat C-order index in the generated array, a 64-bit integer)
// of an array drawn with 64-bit seed s owns one whole Philox block:
//
//   counter = (lo32(i), hi32(i), 0, 0)      key = (lo32(s), hi32(s))
//   (w0, w1, w2, w3) = philox4x32_10(counter, key)
//
// One block per element wastes some output, but it makes every element
// independent of its neighbours, which is what lets a kernel of any vector
// width, or a view that only touches some elements, produce the same values.
// Counter words 2 and 3 stay zero; they are free for future streams.
//
//   uniform float32 = (w0 >> 8) * 2^-24                      in [0, 1 - 2^-24]
//   uniform float64 = ((w0 << 32 | w1) >> 11) * 2^-53        in [0, 1 - 2^-53]
//
// Both are exact (an integer below 2^24 resp. 2^53 times a power of two), so
// host and device agree bitwise.
//
//   normal float32: u1 = ((w0 >> 8) + 1) * 2^-24            in (0, 1]
//                   u2 = (w1 >> 8) * 2^-24                  in [0, 1)
//   normal float64: u1 = (((w0 << 32 | w1) >> 11) + 1) * 2^-53
//                   u2 =  ((w2 << 32 | w3) >> 11) * 2^-53
//   z = sqrt(-2 log u1) * cos(2 pi u2)                        (Box-Muller, cos branch)
//
// u1 is shifted to (0, 1] so that log never sees 0 (the largest |z| is then
// sqrt(2 * 24 ln 2) = 5.77 for float32 and 8.57 for float64). The device
// evaluates cos(2 pi u2) as cospi(2 u2): 2 u2 is exact, whereas rounding 2 pi u2
// would cost up to half an ulp of the argument, which cos turns into an
// unbounded relative error next to its zeros. The host evaluates the same
// cos(pi t) with an exact argument reduction, in long double.
//
// The normals are therefore NOT bitwise equal across devices: the device uses
// OpenCL's log, sqrt and cospi. With the OpenCL 1.2 full-profile bounds (log 3,
// sqrt 3, cospi 4 ulp; section 7.4) the device result is within
// normal_tolerance_ulps of the host reference (PoCL 3.1 on x86: at most 3 ulp
// over 16M draws, float32 and float64).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fusecl::codegen {

/// Philox4x32 with 10 rounds: one block of 4 random words for (counter, key).
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                           std::array<std::uint32_t, 2> key);

/// The block that element `index` of an array drawn with `seed` uses (see above).
std::array<std::uint32_t, 4> philox_block(std::uint64_t index, std::uint64_t seed);

/// Element `index` of fusecl::random::uniform(seed) as float32 / float64.
/// Bitwise equal to what the device computes.
float uniform_f32(std::uint64_t index, std::uint64_t seed);
double uniform_f64(std::uint64_t index, std::uint64_t seed);

/// Element `index` of fusecl::random::normal(seed) as float32 / float64: the
/// host reference, computed in long double and rounded once. The device agrees
/// to within normal_tolerance_ulps (not bitwise; see above).
float normal_f32(std::uint64_t index, std::uint64_t seed);
double normal_f64(std::uint64_t index, std::uint64_t seed);

/// How far (in ulps of the result) a conforming OpenCL 1.2 device may be from
/// normal_f32/normal_f64: relative errors of log (3 ulp, halved by sqrt), sqrt
/// (3), cospi (4) and the product (0.5) add up to 9 ulp; one ulp of relative
/// error can be two ulps of a result in a lower binade, so 18, plus half an
/// ulp for the reference's own rounding, rounded up.
inline constexpr double normal_tolerance_ulps = 19.0;

/// OpenCL C 1.2 source of the same functions, for the code generator to paste
/// once into any program that draws random numbers:
///
///   uint4  fusecl_philox(uint4 ctr, uint2 key);
///   float  fusecl_uniform_f(ulong i, ulong seed);
///   float  fusecl_normal_f(ulong i, ulong seed);
///   double fusecl_uniform_d(ulong i, ulong seed);   // only #ifdef FUSECL_FP64
///   double fusecl_normal_d(ulong i, ulong seed);    // only #ifdef FUSECL_FP64
///
/// A program that uses the double versions must `#define FUSECL_FP64` and
/// enable cl_khr_fp64 (`#pragma OPENCL EXTENSION cl_khr_fp64 : enable`) before
/// this text; the text itself enables nothing, so it compiles on devices
/// without doubles.
std::string_view philox_opencl_source();

/// The same generators over `width` consecutive indices (fusecl_uniform_f<width>,
/// fusecl_normal_f<width>, and the _d ones under FUSECL_FP64), for vectorized
/// kernels: bit-identical uniforms per lane.
std::string philox_opencl_vector_source(int width);

}  // namespace fusecl::codegen
