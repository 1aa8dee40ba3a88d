#include "codegen/warp_shuffle.hpp"

#include "codegen/spelling.hpp"

namespace fusecl::codegen {

namespace {

// shfl.sync.down / .idx of 32 bits over the whole warp.
constexpr const char* kShuffleDown =
    "inline uint fcl_shfl_down(const uint v, const uint d) {\n"
    "  uint r;\n"
    "  asm volatile(\"shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(d));\n"
    "  return r;\n"
    "}\n";
constexpr const char* kShuffleIdx =
    "inline uint fcl_shfl_idx(const uint v, const uint l) {\n"
    "  uint r;\n"
    "  asm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(l));\n"
    "  return r;\n"
    "}\n";

// `lhs v;`, v the value x of a shufflable dtype t from lane `arg` through fn.
std::string shuffled(const std::string& lhs, DType t, const std::string& fn, const std::string& x, const std::string& arg) {
  const std::string T = cl_type(t);
  if (size_of(t) == 4) return lhs + " as_" + T + "(" + fn + "(as_uint(" + x + "), " + arg + "));";
  return lhs + " as_" + T + "((uint2)(" + fn + "(as_uint2(" + x + ").x, " + arg + "), " + fn + "(as_uint2(" + x + ").y, " + arg + ")));";
}

}  // namespace

bool shufflable(DType t) { return size_of(t) == 4 || size_of(t) == 8; }

std::string shuffle_down(HelperSet& h, DType t, const std::string& lhs, const std::string& x, const std::string& d) {
  return shuffled(lhs, t, h.use("fcl_shfl_down", kShuffleDown), x, d);
}

std::string shuffle_index(HelperSet& h, DType t, const std::string& lhs, const std::string& x, const std::string& l) {
  return shuffled(lhs, t, h.use("fcl_shfl_idx", kShuffleIdx), x, l);
}

}  // namespace fusecl::codegen
