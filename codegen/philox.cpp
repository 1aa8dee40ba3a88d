// Host Philox4x32-10 and the OpenCL C text of the same generator. The mapping
// from (index, seed) to numbers is specified in philox.hpp; keep the two
// implementations below in step with it and with each other.
#include "codegen/philox.hpp"

#include <cmath>
#include <numbers>

namespace fusecl::codegen {

namespace {

// Round multipliers and Weyl-sequence key increments (Salmon et al. 2011,
// section 5; the increments are the golden ratio and sqrt(3) - 1 in 0.32 fixed
// point).
constexpr std::uint32_t kMul0 = 0xD2511F53u;
constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;
constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;
constexpr int kRounds = 10;

constexpr std::uint32_t lo32(std::uint64_t x) { return static_cast<std::uint32_t>(x); }
constexpr std::uint32_t hi32(std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32); }

// The 53 random bits of a float64 draw: the top bits of two words joined
// high word first (w_hi << 32 | w_lo) >> 11.
constexpr std::uint64_t bits53(std::uint32_t w_hi, std::uint32_t w_lo) {
  return ((static_cast<std::uint64_t>(w_hi) << 32) | w_lo) >> 11;
}

constexpr float kTwoPowM24f = 0x1.0p-24f;
constexpr double kTwoPowM53 = 0x1.0p-53;

// cos(pi * t) for t in [0, 2), with the argument reduced exactly so that the
// result keeps its relative accuracy next to the zeros at t = 1/2 and 3/2
// (the device uses OpenCL's cospi, which has the same property). Each
// subtraction below is exact by Sterbenz's lemma; what is left is a cosine or
// sine of pi * r with r in [0, 1/4], where long double pi is accurate enough.
long double cospi(long double t) {
  const long double pi = std::numbers::pi_v<long double>;
  if (t > 1.0L) t = 2.0L - t;  // cos(pi t) = cos(pi (2 - t)); now t in [0, 1]
  long double sign = 1.0L;
  if (t > 0.5L) {  // cos(pi t) = -cos(pi (1 - t)); now t in [0, 1/2]
    t = 1.0L - t;
    sign = -1.0L;
  }
  if (t > 0.25L) return sign * std::sin(pi * (0.5L - t));  // cos(pi t) = sin(pi (1/2 - t))
  return sign * std::cos(pi * t);
}

// Box-Muller, cos branch; u1 in (0, 1], u2 in [0, 1).
long double box_muller(long double u1, long double u2) {
  return std::sqrt(-2.0L * std::log(u1)) * cospi(2.0L * u2);
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> ctr,
                                           std::array<std::uint32_t, 2> key) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {  // the key schedule advances between rounds
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * ctr[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * ctr[2];
    ctr = {hi32(p1) ^ ctr[1] ^ key[0], lo32(p1), hi32(p0) ^ ctr[3] ^ key[1], lo32(p0)};
  }
  return ctr;
}

std::array<std::uint32_t, 4> philox_block(std::uint64_t index, std::uint64_t seed) {
  return philox4x32_10({lo32(index), hi32(index), 0u, 0u}, {lo32(seed), hi32(seed)});
}

float uniform_f32(std::uint64_t index, std::uint64_t seed) {
  const auto w = philox_block(index, seed);
  return static_cast<float>(w[0] >> 8) * kTwoPowM24f;
}

double uniform_f64(std::uint64_t index, std::uint64_t seed) {
  const auto w = philox_block(index, seed);
  return static_cast<double>(bits53(w[0], w[1])) * kTwoPowM53;
}

float normal_f32(std::uint64_t index, std::uint64_t seed) {
  const auto w = philox_block(index, seed);
  const float u1 = static_cast<float>((w[0] >> 8) + 1u) * kTwoPowM24f;
  const float u2 = static_cast<float>(w[1] >> 8) * kTwoPowM24f;
  return static_cast<float>(box_muller(u1, u2));
}

double normal_f64(std::uint64_t index, std::uint64_t seed) {
  const auto w = philox_block(index, seed);
  const double u1 = static_cast<double>(bits53(w[0], w[1]) + 1u) * kTwoPowM53;
  const double u2 = static_cast<double>(bits53(w[2], w[3])) * kTwoPowM53;
  return static_cast<double>(box_muller(u1, u2));
}

std::string_view philox_opencl_source() {
  // Plain (non-inline) definitions: the generator pastes this text once per
  // program, and C99 `inline` without `static` may leave no definition to
  // link against when the compiler decides not to inline.
  static constexpr std::string_view source = R"CLC(
/* ---- fusecl Philox4x32-10 (see codegen/philox.hpp for the mapping) ---- */
uint4 fusecl_philox(uint4 ctr, uint2 key)
{
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key.x += 0x9E3779B9u;
      key.y += 0xBB67AE85u;
    }
    const uint hi0 = mul_hi(0xD2511F53u, ctr.x);
    const uint lo0 = 0xD2511F53u * ctr.x;
    const uint hi1 = mul_hi(0xCD9E8D57u, ctr.z);
    const uint lo1 = 0xCD9E8D57u * ctr.z;
    ctr = (uint4)(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
  }
  return ctr;
}

uint4 fusecl_philox_block(ulong i, ulong seed)
{
  return fusecl_philox((uint4)((uint)i, (uint)(i >> 32), 0u, 0u),
                       (uint2)((uint)seed, (uint)(seed >> 32)));
}

float fusecl_uniform_f(ulong i, ulong seed)
{
  return (float)(fusecl_philox_block(i, seed).x >> 8) * 0x1.0p-24f;
}

float fusecl_normal_f(ulong i, ulong seed)
{
  const uint4 w = fusecl_philox_block(i, seed);
  const float u1 = (float)((w.x >> 8) + 1u) * 0x1.0p-24f; /* (0, 1]: log never sees 0 */
  const float u2 = (float)(w.y >> 8) * 0x1.0p-24f;
  /* cospi(2 u2), not cos(2 pi u2): the argument stays exact */
  return sqrt(-2.0f * log(u1)) * cospi(2.0f * u2);
}

#ifdef FUSECL_FP64
double fusecl_uniform_d(ulong i, ulong seed)
{
  const uint4 w = fusecl_philox_block(i, seed);
  return (double)((((ulong)w.x << 32) | w.y) >> 11) * 0x1.0p-53;
}

double fusecl_normal_d(ulong i, ulong seed)
{
  const uint4 w = fusecl_philox_block(i, seed);
  const double u1 = (double)(((((ulong)w.x << 32) | w.y) >> 11) + 1ul) * 0x1.0p-53;
  const double u2 = (double)((((ulong)w.z << 32) | w.w) >> 11) * 0x1.0p-53;
  return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}
#endif
/* ---- end fusecl Philox ---- */
)CLC";
  return source;
}

}  // namespace fusecl::codegen

namespace fusecl::codegen {

std::string philox_opencl_vector_source(int width) {
  // The scalar functions above, over `width` consecutive indices at once: the
  // same integer rounds on uintN lanes, so each lane's words (and uniforms)
  // equal the scalar ones bit for bit.
  const std::string W = std::to_string(width);
  const std::string U = "uint" + W, L = "long" + W, F = "float" + W, D = "double" + W, UL = "ulong" + W;
  std::string s = "/* ---- fusecl Philox4x32-10 over " + W + " lanes ---- */\n";
  s += "void fusecl_philox_block" + W + "(" + L + " i, ulong seed, " + U + "* w0, " + U + "* w1, " + U + "* w2, " + U + "* w3)\n{\n";
  s += "  " + U + " c0 = convert_" + U + "(i), c1 = convert_" + U + "(i >> 32), c2 = (" + U + ")(0u), c3 = (" + U + ")(0u);\n";
  s += "  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);\n";
  s += "  for (int round = 0; round < 10; ++round) {\n";
  s += "    if (round > 0) {\n      k0 += 0x9E3779B9u;\n      k1 += 0xBB67AE85u;\n    }\n";
  s += "    const " + U + " hi0 = mul_hi((" + U + ")(0xD2511F53u), c0);\n";
  s += "    const " + U + " lo0 = (" + U + ")(0xD2511F53u) * c0;\n";
  s += "    const " + U + " hi1 = mul_hi((" + U + ")(0xCD9E8D57u), c2);\n";
  s += "    const " + U + " lo1 = (" + U + ")(0xCD9E8D57u) * c2;\n";
  s += "    const " + U + " n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;\n";
  s += "    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;\n  }\n";
  s += "  *w0 = c0; *w1 = c1; *w2 = c2; *w3 = c3;\n}\n";
  s += F + " fusecl_uniform_f" + W + "(" + L + " i, ulong seed)\n{\n";
  s += "  " + U + " w0, w1, w2, w3;\n  fusecl_philox_block" + W + "(i, seed, &w0, &w1, &w2, &w3);\n";
  s += "  return convert_" + F + "(w0 >> 8) * 0x1.0p-24f;\n}\n";
  s += F + " fusecl_normal_f" + W + "(" + L + " i, ulong seed)\n{\n";
  s += "  " + U + " w0, w1, w2, w3;\n  fusecl_philox_block" + W + "(i, seed, &w0, &w1, &w2, &w3);\n";
  s += "  const " + F + " u1 = convert_" + F + "((w0 >> 8) + 1u) * 0x1.0p-24f;\n";
  s += "  const " + F + " u2 = convert_" + F + "(w1 >> 8) * 0x1.0p-24f;\n";
  s += "  return sqrt(-2.0f * log(u1)) * cospi(2.0f * u2);\n}\n";
  s += "#ifdef FUSECL_FP64\n";
  s += D + " fusecl_uniform_d" + W + "(" + L + " i, ulong seed)\n{\n";
  s += "  " + U + " w0, w1, w2, w3;\n  fusecl_philox_block" + W + "(i, seed, &w0, &w1, &w2, &w3);\n";
  s += "  return convert_" + D + "(((convert_" + UL + "(w0) << 32) | convert_" + UL + "(w1)) >> 11) * 0x1.0p-53;\n}\n";
  s += D + " fusecl_normal_d" + W + "(" + L + " i, ulong seed)\n{\n";
  s += "  " + U + " w0, w1, w2, w3;\n  fusecl_philox_block" + W + "(i, seed, &w0, &w1, &w2, &w3);\n";
  s += "  const " + D + " u1 = convert_" + D + "((((convert_" + UL + "(w0) << 32) | convert_" + UL + "(w1)) >> 11) + 1ul) * 0x1.0p-53;\n";
  s += "  const " + D + " u2 = convert_" + D + "(((convert_" + UL + "(w2) << 32) | convert_" + UL + "(w3)) >> 11) * 0x1.0p-53;\n";
  s += "  return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);\n}\n";
  s += "#endif\n";
  return s;
}

}  // namespace fusecl::codegen
