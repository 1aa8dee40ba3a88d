#include "runtime/env_settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace fusecl::rt {

namespace {

void warn(const DiagnosticSink& sink, const char* name, std::string_view value, const std::string& problem,
          const std::string& used) {
  sink("fusecl: warning: " + std::string(name) + "='" + std::string(value) + "' " + problem + "; using " + used);
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view env_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string_view(v) : std::string_view();
}

long long int_setting(const IntSetting& s, const DiagnosticSink& sink) {
  const std::string_view raw = env_value(s.name);
  const std::string_view v = trim(raw);
  if (v.empty()) return s.fallback;
  const std::string fallback = std::to_string(s.fallback) + (*s.meaning ? std::string(" (") + s.meaning + ")" : "");
  const std::string range = "a whole number from " + std::to_string(s.lo) + " to " + std::to_string(s.hi);
  long long n = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec == std::errc::result_out_of_range && v.front() != '-') {
    warn(sink, s.name, raw, "is more than " + std::to_string(s.hi), std::to_string(s.hi) + ", the most allowed");
    return s.hi;
  }
  if (r.ec != std::errc() || r.ptr != v.data() + v.size()) {
    warn(sink, s.name, raw, "is not " + range, fallback);
    return s.fallback;
  }
  if (n > s.hi) {
    warn(sink, s.name, raw, "is more than " + std::to_string(s.hi), std::to_string(s.hi) + ", the most allowed");
    return s.hi;
  }
  if (n < s.lo) {
    warn(sink, s.name, raw, "is not " + range, fallback);
    return s.fallback;
  }
  if (s.power_of_two && (n & (n - 1)) != 0) {
    warn(sink, s.name, raw, "is not a power of two (" + range + ")", fallback);
    return s.fallback;
  }
  return n;
}

bool switch_setting(const char* name, bool fallback, const DiagnosticSink& sink) {
  const std::string_view raw = env_value(name);
  const std::string v = lower(trim(raw));
  if (v.empty()) return fallback;
  if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "off" || v == "false" || v == "no") return false;
  warn(sink, name, raw, "is not one of 1, on, true, yes, 0, off, false, no", fallback ? "1 (on)" : "0 (off)");
  return fallback;
}

std::optional<std::uint64_t> byte_size_setting(const char* name, std::string_view fallback_text,
                                               const DiagnosticSink& sink) {
  const std::string_view raw = env_value(name);
  const std::string_view v = trim(raw);
  if (v.empty()) return std::nullopt;
  if (auto bytes = parse_byte_size(v)) return bytes;
  warn(sink, name, raw, "is not a size like 268435456, 512M or 2G", std::string(fallback_text));
  return std::nullopt;
}

}  // namespace fusecl::rt
