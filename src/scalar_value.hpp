// Scalars travel as the bit pattern of their dtype's C++ type, so one node
// field and one kernel-argument path serve every dtype.
#pragma once

#include "fusecl/dtype.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace fusecl::detail {

template <class T>
std::uint64_t to_bits(T v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

/// The scalar converted to `to` with C++ conversion rules (bool: nonzero).
std::uint64_t cast_scalar_bits(DType from, std::uint64_t bits, DType to);

/// Reads the scalar as double / int64 / uint64 (for range checks and messages).
double scalar_as_double(DType t, std::uint64_t bits);

/// Decimal text of the scalar (for to_dot and error messages).
std::string scalar_to_string(DType t, std::uint64_t bits);

}  // namespace fusecl::detail
