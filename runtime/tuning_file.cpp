#include "runtime/tuning_file.hpp"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <system_error>
#include <vector>

namespace fusecl::rt {

namespace {

constexpr std::array<KnobSpec, knob_count> specs{{
    {"elementwise.vector_bytes", TuneClass::Elementwise, 1, 128, true, false},
    {"elementwise.local_size", TuneClass::Elementwise, 1, 1024, true, true},
    {"reduce.local_size", TuneClass::Reduce, 1, 1024, true, true},
    {"reduce.groups_per_unit", TuneClass::Reduce, 1, 64, false, false},
    {"row.elements_per_item", TuneClass::Row, 1, 64, true, false},
}};

// A tuning file is a dozen short lines; anything far larger is not one.
constexpr std::uintmax_t max_file_bytes = 64 * 1024;

// Description values go on one line each; a driver string with a line break
// in it must not break the file's layout.
std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

std::array<std::pair<const char*, std::string>, 4> description(const DeviceInfo& info) {
  return {{{"device", one_line(info.name)},
           {"vendor", one_line(info.vendor)},
           {"driver", one_line(info.driver_version)},
           {"opencl", one_line(info.version)}}};
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

int floor_pow2(std::size_t n) {
  int p = 1;
  while (std::size_t(p) * 2 <= n && p < (1 << 30)) p *= 2;
  return p;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

}  // namespace

const char* tune_class_name(TuneClass c) {
  switch (c) {
    case TuneClass::Elementwise: return "elementwise";
    case TuneClass::Reduce: return "reduce";
    case TuneClass::Row: return "row";
    case TuneClass::Count: break;
  }
  return "?";
}

const KnobSpec& knob_spec(Knob k) { return specs.at(std::size_t(k)); }

bool TunedValues::empty() const {
  return std::none_of(v.begin(), v.end(), [](const auto& x) { return x.has_value(); });
}

TunedValues default_values(const DeviceInfo& info) {
  const bool cpu = info.type == "CPU";
  const std::size_t max_group = std::max<std::size_t>(1, info.max_work_group_size);
  TunedValues d;
  // CPUs (PoCL) gain most from explicit wide vectors (one AVX-512 register,
  // or two AVX2 ones); GPUs want 16-byte loads per work-item.
  d[Knob::VectorBytes] = cpu ? 64 : 16;
  d[Knob::ElementwiseLocal] = floor_pow2(std::min<std::size_t>(256, max_group));
  // CPU work-groups run as loops on one core: small groups, one or two per core.
  d[Knob::ReduceLocal] = floor_pow2(std::min<std::size_t>(cpu ? 16 : 256, max_group));
  // GPUs: 4 groups of 256 per multiprocessor. 8 (full occupancy) measured no
  // better on an H200 (sum of 2^26 floats: 81.4 us against 77.6 us).
  d[Knob::GroupsPerUnit] = cpu ? 2 : 4;
  // On an H200 (rows of 1024, 2^26 floats, loads first and in 16-byte
  // vectors) 16 was best: softmax 143 us against 171 with 8 and 250 with 4,
  // layer norm 134 against 141 and 176 (bench/results/nvidia-h200.issue13-rows.md).
  // CPUs start at 4: a CPU work-group's work-items are a loop on one core.
  d[Knob::RowElements] = cpu ? 4 : 16;
  return d;
}

std::string knob_range_problem(Knob k, long long value, const DeviceInfo& info) {
  const KnobSpec& s = knob_spec(k);
  long long hi = s.hi;
  if (s.within_group && info.max_work_group_size > 0) hi = std::min<long long>(hi, (long long)info.max_work_group_size);
  const std::string range = (s.power_of_two ? "a power of two from " : "a whole number from ") + std::to_string(s.lo) +
                            " to " + std::to_string(hi);
  if (value < s.lo || value > hi || (s.power_of_two && (value & (value - 1)) != 0))
    return std::string(s.name) + " " + std::to_string(value) + " is out of range (" + range + ")";
  return {};
}

std::string tuning_key(const DeviceInfo& info) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  auto field = [&](const std::string& s) {
    // Length first, so that no two different descriptions run together into the same bytes.
    const std::uint64_t len = s.size();
    XXH3_64bits_update(&st, &len, sizeof len);
    XXH3_64bits_update(&st, s.data(), s.size());
  };
  field("fusecl-tuning " + std::to_string(tuning_format_version));
  for (const auto& [label, value] : description(info)) field(value);
  return hex64(XXH3_64bits_digest(&st));
}

std::filesystem::path tuning_path(const std::filesystem::path& cache_dir, const DeviceInfo& info) {
  return cache_dir / "tuning" / (tuning_key(info) + ".txt");
}

std::string format_tuning(const DeviceInfo& info, const TunedValues& values) {
  std::string text = "fusecl-tuning " + std::to_string(tuning_format_version) + "\n";
  for (const auto& [label, value] : description(info)) text += std::string(label) + " " + value + "\n";
  for (std::size_t k = 0; k < knob_count; ++k)
    if (values.v[k]) text += std::string(specs[k].name) + " " + std::to_string(*values.v[k]) + "\n";
  text += "checksum " + hex64(XXH3_64bits(text.data(), text.size())) + "\n";
  return text;
}

TuningRead parse_tuning(std::string_view text, const DeviceInfo& info) {
  TuningRead r;
  auto fail = [&](std::string why) {
    r.error = std::move(why);
    r.values = {};
    return r;
  };
  const std::string header = "fusecl-tuning ";
  if (text.empty()) return fail("is empty");
  if (!text.starts_with(header)) return fail("is not a fusecl tuning file (it does not start with 'fusecl-tuning')");
  const std::vector<std::string_view> lines = split_lines(text);
  if (lines.front() != header + std::to_string(tuning_format_version))
    return fail("is not format version " + std::to_string(tuning_format_version) + " ('" + std::string(lines.front()) + "')");

  // The checksum line is the last one and covers every byte before it.
  const std::string_view tag = "checksum ";
  const auto at = text.rfind("\n" + std::string(tag));
  if (at == std::string_view::npos || !text.ends_with("\n")) return fail("is truncated (it has no checksum line at its end)");
  const std::string_view sum = text.substr(at + 1 + tag.size(), text.size() - (at + 1 + tag.size()) - 1);
  const std::string_view body = text.substr(0, at + 1);
  if (sum.find('\n') != std::string_view::npos) return fail("is truncated or extended (lines follow its checksum line)");
  if (sum != hex64(XXH3_64bits(body.data(), body.size()))) return fail("has a bad checksum (it was changed or cut short)");

  const auto want = description(info);
  const std::vector<std::string_view> body_lines = split_lines(body);
  std::size_t i = 1;
  for (const auto& [label, value] : want) {
    const std::string expect = std::string(label) + " " + value;
    if (i >= body_lines.size() || body_lines[i] != expect)
      return fail("describes another device (line " + std::to_string(i + 1) + " is '" +
                  (i < body_lines.size() ? std::string(body_lines[i]) : std::string()) + "', this device's is '" +
                  expect + "')");
    ++i;
  }
  for (; i < body_lines.size(); ++i) {
    const std::string_view line = body_lines[i];
    const std::string where = "line " + std::to_string(i + 1) + " ('" + std::string(line) + "')";
    const auto space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const KnobSpec& s) { return name == s.name; });
    if (space == std::string_view::npos || spec == specs.end()) return fail(where + " is not a known setting");
    const std::string_view num = line.substr(space + 1);
    long long value = 0;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size()) return fail(where + " has no whole number");
    const Knob k = Knob(spec - specs.begin());
    if (r.values[k]) return fail(where + " repeats a setting");
    if (const std::string problem = knob_range_problem(k, value, info); !problem.empty()) return fail(problem);
    r.values[k] = int(value);
  }
  return r;
}

TuningRead read_tuning(const std::filesystem::path& path, const DeviceInfo& info) {
  TuningRead r;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    r.missing = true;
    return r;
  }
  if (!std::filesystem::is_regular_file(status)) {
    r.error = "is not a regular file";
    return r;
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    r.error = "cannot be read: " + ec.message();
    return r;
  }
  if (size > max_file_bytes) {
    r.error = "is too large to be a tuning file (" + std::to_string(size) + " bytes)";
    return r;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(std::size_t(size), '\0');
  if (!in || !in.read(text.data(), std::streamsize(text.size()))) {
    r.error = "cannot be read";
    return r;
  }
  return parse_tuning(text, info);
}

}  // namespace fusecl::rt
