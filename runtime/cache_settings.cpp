#include "runtime/cache_settings.hpp"

#include "runtime/byte_size.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace fusecl::rt {

namespace {

std::string_view env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string_view(v) : std::string_view();
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

void warn(const DiagnosticSink& sink, const std::string& msg) { sink("fusecl: warning: " + msg); }

bool parse_flag(const char* name, const DiagnosticSink& sink) {
  const std::string v = lower(env(name));
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  warn(sink, std::string(name) + "='" + std::string(env(name)) + "' is not 0 or 1; using 0");
  return false;
}

// The home folder from the password database, for processes started without HOME
// (daemons, some CI runners).
std::string home_from_passwd() {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? std::size_t(size) : 16384);
  passwd pw{};
  passwd* result = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &result) != 0 || !result || !result->pw_dir) return {};
  return result->pw_dir;
}

}  // namespace

std::string_view cache_mode_name(CacheMode m) {
  switch (m) {
    case CacheMode::ReadWrite: return "read-write";
    case CacheMode::ReadOnly: return "read-only";
    case CacheMode::Off: return "off";
  }
  return "?";
}

void write_to_stderr(const std::string& line) {
  const std::string text = line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

std::filesystem::path default_cache_dir() {
  if (auto dir = env("FUSECL_CACHE_DIR"); !dir.empty()) return std::filesystem::path(dir);
  // The XDG base-directory spec says a relative XDG_CACHE_HOME is invalid and to be ignored.
  if (auto xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/')
    return std::filesystem::path(xdg) / "fusecl";
  std::string home(env("HOME"));
  if (home.empty()) home = home_from_passwd();
  if (home.empty()) return {};
  return std::filesystem::path(home) / ".cache" / "fusecl";
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    const unsigned digit = unsigned(text[i] - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) return std::nullopt;
  const std::string suffix = lower(text.substr(i));
  int shift = 0;
  if (suffix.empty() || suffix == "b") shift = 0;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib") shift = 10;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib") shift = 20;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib") shift = 30;
  else if (suffix == "t" || suffix == "tb" || suffix == "tib") shift = 40;
  else return std::nullopt;
  if (shift && value > (max >> shift)) return std::nullopt;
  return value << shift;
}

DiskCacheSettings settings_from_env(const DiagnosticSink& sink) {
  DiskCacheSettings s;
  s.sink = sink;

  const std::string mode = lower(env("FUSECL_CACHE"));
  s.mode_from_env = true;
  if (mode.empty()) s.mode_from_env = false;
  else if (mode == "on" || mode == "read-write" || mode == "1") s.mode = CacheMode::ReadWrite;
  else if (mode == "read-only" || mode == "readonly") s.mode = CacheMode::ReadOnly;
  else if (mode == "off" || mode == "0") s.mode = CacheMode::Off;
  else {
    s.mode_from_env = false;
    warn(sink, "FUSECL_CACHE='" + std::string(env("FUSECL_CACHE")) +
                   "' is not one of on, read-only, off; using on");
  }

  if (auto cap = env("FUSECL_CACHE_MAX_BYTES"); !cap.empty()) {
    if (auto bytes = parse_byte_size(cap)) s.max_bytes = *bytes, s.max_bytes_from_env = true;
    else
      warn(sink, "FUSECL_CACHE_MAX_BYTES='" + std::string(cap) +
                     "' is not a size like 268435456, 512M or 2G; using " + human_bytes(s.max_bytes));
  }

  s.save_source = parse_flag("FUSECL_CACHE_SAVE_SOURCE", sink);
  s.log = parse_flag("FUSECL_CACHE_LOG", sink);

  if (s.mode != CacheMode::Off) {
    s.dir = default_cache_dir();
    if (const char* d = std::getenv("FUSECL_CACHE_DIR"); d && !*d && !s.dir.empty())
      warn(sink, "FUSECL_CACHE_DIR is set but empty; using " + s.dir.string());
    if (s.dir.empty()) {
      warn(sink, "no cache folder: HOME is not set and the user has no home folder; "
                 "set FUSECL_CACHE_DIR. Running without the disk kernel cache");
      s.mode = CacheMode::Off;
    }
  }
  return s;
}

}  // namespace fusecl::rt
