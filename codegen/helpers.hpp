// The OpenCL C that spelling.cpp builds op spellings from: type names, the
// helper functions a kernel defines ahead of its body (from templates,
// instantiated per dtype and vector width), wrapping integer arithmetic and
// float-to-int casts. The semantics are NumPy's and must match
// tests/support/reference.cpp exactly (see README "Semantics").
#pragma once

#include "fusecl/dtype.hpp"

#include <map>
#include <string>

namespace fusecl::codegen {

/// OpenCL C type of a dtype at a vector width: "float", "float4", "uchar" for bool.
std::string cl_type(DType t, int width = 1);

/// cl_type at width 1.
std::string scalar_name(DType t);

/// Helper functions a kernel needs, by name, in the order first requested
/// (so the source is deterministic).
class HelperSet {
 public:
  /// Adds the helper if new and returns its name.
  std::string use(const std::string& name, const std::string& definition);
  std::string text() const;

 private:
  std::map<std::string, std::size_t> index_;
  std::string text_;
};

// Helper templates for helper(), each valid for scalars and vectors: floor
// division, remainder, exact fmod (called by the float ones), shifts, sign,
// NaN-aware extrema, integer power, nextafter, spacing, heaviside, gcd and lcm.
extern const char k_floordiv_signed[], k_floordiv_unsigned[], k_floordiv_float[], k_fmod_float[];
extern const char k_mod_signed[], k_mod_unsigned[], k_mod_float[];
extern const char k_shl[], k_shr_signed[], k_shr_unsigned[];
extern const char k_sign_float[], k_sign_int[];
extern const char k_minimum[], k_maximum[], k_fmin[], k_fmax[];
extern const char k_ipow[];
extern const char k_fmod_signed[], k_nextafter[], k_spacing[], k_heaviside[], k_logaddexp[], k_logaddexp2[];
extern const char k_gcd_unsigned[], k_lcm_unsigned[], k_magnitude_call[];

/// Adds template `tmpl` instantiated for dtype t at `width` to h, as
/// fcl_<base>_<type>, and returns that name. `callee`: the name that $F
/// stands for (a helper the template calls, which must have been requested
/// first so that its definition comes before).
std::string helper(HelperSet& h, const char* base, const char* tmpl, DType t, int width, const std::string& callee = "");

/// Adds the float64 pow of `width` (8 or 16) lanes, done as double4 halves, and returns its name.
std::string split_pow(HelperSet& h, int width);

/// Adds float32 `fn` (sin, cos, tan) of `width` (> 1) lanes that falls back
/// to the scalar built-in, lane by lane, when any lane's magnitude passes
/// 1e5, and returns its name. PoCL's vector sin/cos/tan of float are wrong in
/// every lane of a vector with a lane beyond about 1e7 (sin(1e-3) gives 0.008
/// beside 1e10), while its scalar ones are right.
std::string lanewise_large_trig(HelperSet& h, const char* fn, int width);

/// x op y (op "+", "-" or "*") on integers of dtype t, wrapping.
std::string int_arith(const char* op, DType t, const std::string& x, const std::string& y, int width);

/// Adds the cast of float dtype `in` to integer dtype `out` at `width` and returns its name.
std::string float_to_int(HelperSet& h, DType out, DType in, int width);

}  // namespace fusecl::codegen
