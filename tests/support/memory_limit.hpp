// A device opened under a device memory limit, as a laptop card's user meets one.
#pragma once

#include <fusecl/fusecl.hpp>

#include <cstdlib>
#include <string>

namespace fusecl_test {

/// The default device opened again while FUSECL_DEVICE_MEMORY_LIMIT is
/// `limit` (each open_device reads it; the variable is restored at once).
inline fusecl::Device open_with_limit(const char* limit) {
  const char* before = std::getenv("FUSECL_DEVICE_MEMORY_LIMIT");
  const std::string saved = before ? before : "";
  ::setenv("FUSECL_DEVICE_MEMORY_LIMIT", limit, 1);
  fusecl::Device d = fusecl::open_device(fusecl::default_device().info().id());
  if (before) ::setenv("FUSECL_DEVICE_MEMORY_LIMIT", saved.c_str(), 1);
  else ::unsetenv("FUSECL_DEVICE_MEMORY_LIMIT");
  return d;
}

}  // namespace fusecl_test
