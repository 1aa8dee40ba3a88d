// Byte counts as people read them, for error messages and fusecl-info.
#pragma once

#include <cstdint>
#include <string>

namespace fusecl::rt {

/// "3.82 GiB", "1 MiB", "512 KiB", "100 bytes": at most two decimals, binary units.
std::string human_bytes(std::uint64_t bytes);

/// "3.82 GiB (4097473536 bytes)": readable, with the exact count beside it.
std::string exact_bytes(std::uint64_t bytes);

}  // namespace fusecl::rt
