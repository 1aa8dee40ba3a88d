// Reading fusecl's environment variables. A bad value is never silently
// ignored or clamped: it gets one warning on stderr that names the variable,
// the value and what is used instead. An empty value counts as unset.
#pragma once

#include "runtime/cache_settings.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fusecl::rt {

/// An integer setting from lo to hi; with `power_of_two`, only powers of two.
struct IntSetting {
  const char* name;
  long long fallback;  // used when unset, and (with a warning) when the value is bad
  long long lo, hi;
  bool power_of_two = false;
  const char* meaning = "";  // what the fallback is, for the warning: "the default", "the device's"
};

/// The setting's value. A value that is no whole number, or outside [lo, hi],
/// or not a power of two where one is wanted, is reported to `sink` and the
/// fallback is used, except that a number above hi is clamped to hi (with a
/// warning), since "as much as possible" is what such a value means.
long long int_setting(const IntSetting& s, const DiagnosticSink& sink = write_to_stderr);

/// An on/off switch: 1/on/true/yes or 0/off/false/no (any case); anything
/// else is reported and `fallback` is used.
bool switch_setting(const char* name, bool fallback, const DiagnosticSink& sink = write_to_stderr);

/// A byte count in FUSECL_CACHE_MAX_BYTES's syntax (268435456, 512M, 2G);
/// nullopt when unset or empty, or (with a warning saying `fallback_text`
/// is used) when malformed.
std::optional<std::uint64_t> byte_size_setting(const char* name, std::string_view fallback_text,
                                               const DiagnosticSink& sink = write_to_stderr);

/// The value of `name`, or an empty view when unset.
std::string_view env_value(const char* name);

/// `s` without leading and trailing white space.
std::string_view trim(std::string_view s);

}  // namespace fusecl::rt
