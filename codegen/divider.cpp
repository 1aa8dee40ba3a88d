#include "codegen/divider.hpp"

namespace fusecl::codegen {

Divider divider_of(std::int64_t d) {
  if (d <= 0 || d > (std::int64_t(1) << 31)) return {};
  std::uint32_t s = 0;
  while ((std::int64_t(1) << s) < d) ++s;
  const std::uint64_t magic = ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << s) - std::uint64_t(d))) / std::uint64_t(d) + 1;
  return {std::uint32_t(magic), s};
}

std::string emit_divide(const std::string& n, const std::string& dv) {
  return "((mul_hi(" + n + ", " + dv + ".x) + " + n + ") >> " + dv + ".y)";
}

}  // namespace fusecl::codegen
