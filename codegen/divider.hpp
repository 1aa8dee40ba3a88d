// Division of a 32-bit coordinate by a dimension through a multiply: a
// kernel's coordinates (body.cpp's emit_coordinates) come from a flat
// position by a remainder and a quotient per dimension, and where they are
// 32-bit (KernelPlan::index32) each division was a routine of its own: an
// unsigned division by a value known only at the launch is some twenty
// instructions on an NVIDIA GPU, which has no integer divider, and tens of
// cycles on a CPU. The dimension's divider, taken on the host at each launch
// and passed beside it, makes it three: q = (mul_hi(n, magic) + n) >> shift.
//
// With s = ceil(log2 d) and magic = floor(2^32 (2^s - d) / d) + 1 (below
// 2^32 for every d in [1, 2^31]), mul_hi(n, magic) + n = floor(n M / 2^32)
// for M = 2^32 + magic = floor(2^(32+s) / d) + 1, so q = floor(n M /
// 2^(32+s)). M d - 2^(32+s) = e is in (0, d], so n M / 2^(32+s) exceeds
// n / d by n e / (d 2^(32+s)) < 1/d wherever n < 2^(32+s) / d (at least
// 2^32): the floor is n / d's (Granlund and Montgomery, "Division by
// invariant integers using multiplication", PLDI 1994, section 4). The sum
// cannot wrap while n < 2^31 (mul_hi(n, magic) < n), which index32 assures:
// every position of such a kernel is below 2^31. tests/test_index32.cpp
// checks divide() below, which computes the same, against n / d. CPUs keep
// the division (body.cpp says why): the argument is there, unread.
#pragma once

#include <cstdint>
#include <string>

namespace fusecl::codegen {

struct Divider {
  std::uint32_t magic = 0;
  std::uint32_t shift = 0;
};

/// The divider of d, for 1 <= d <= 2^31 (a dimension of 0 has no position
/// to divide: {0, 0}).
Divider divider_of(std::int64_t d);

/// n / d through the divider, as the kernel computes it: n < 2^31.
inline std::uint32_t divide(std::uint32_t n, Divider dv) {
  const auto hi = std::uint32_t((std::uint64_t(n) * dv.magic) >> 32);
  return (hi + n) >> dv.shift;
}

/// The divider's 8 bytes as a kernel's uint2 argument (magic in x, the
/// lower address on a little-endian host, shift in y).
inline std::uint64_t divider_arg_bits(Divider dv) { return std::uint64_t(dv.magic) | std::uint64_t(dv.shift) << 32; }

/// The OpenCL expression of n (a uint) divided through a kernel's divider
/// argument dv (a uint2: magic, shift).
std::string emit_divide(const std::string& n, const std::string& dv);

}  // namespace fusecl::codegen
