#include "runtime/byte_size.hpp"

#include <array>
#include <cstdio>

namespace fusecl::rt {

std::string human_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 4> units = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = double(bytes) / 1024;
  std::size_t unit = 0;
  // 1023.996 KiB would print as "1024 KiB"; move up a unit before rounding can do that.
  while (value >= 1023.995 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  std::string s = text;
  // "1.00 GiB" reads as an approximation of something exact; say "1 GiB".
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s + " " + units[unit];
}

std::string exact_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return human_bytes(bytes);
  return human_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

}  // namespace fusecl::rt
