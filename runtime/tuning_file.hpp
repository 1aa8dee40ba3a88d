// The measured launch settings of one device, as a small text file beside the
// kernel cache (<cache dir>/tuning/<key>.txt), so that a later process reuses
// them instead of measuring again. Pure: no OpenCL, and no file system beyond
// reading one file (DiskCache::store_text writes it).
//
//   fusecl-tuning 1
//   device pthread-skylake-avx512-AMD EPYC
//   vendor AuthenticAMD
//   driver 3.1+debian
//   opencl OpenCL 3.0 PoCL 3.1+debian ...
//   elementwise.vector_bytes 64
//   elementwise.local_size 256
//   checksum 5e0f3c1a9b2d4e67
//
// The key hashes the four description lines and the format version, so a
// driver update (or a new format) finds no file and measures again; the lines
// are in the file too, to be read by people and checked on load. A class's
// knobs are absent until that class has been measured. The checksum (XXH3-64
// of every byte before its line) turns truncation and stray edits into an
// ordinary "ignore and measure again".
#pragma once

#include "fusecl/device.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fusecl::rt {

/// Bump when the file's layout or a knob's meaning changes: old files then simply miss.
inline constexpr int tuning_format_version = 2;  // 2: row kernels load first, in vectors; row.elements_per_item 16 on GPUs

/// Kernel classes that are tuned separately, each the first time it is met.
enum class TuneClass : std::uint8_t { Elementwise, Reduce, Row, Count };
inline constexpr std::size_t tune_class_count = std::size_t(TuneClass::Count);
const char* tune_class_name(TuneClass c);

enum class Knob : std::uint8_t {
  VectorBytes,       // elementwise.vector_bytes: bytes per vector load
  ElementwiseLocal,  // elementwise.local_size: work-group size of elementwise kernels
  ReduceLocal,       // reduce.local_size: work-group size of reductions (and the bound of a row's group)
  GroupsPerUnit,     // reduce.groups_per_unit: work-groups per compute unit that fill the device
  RowElements,       // row.elements_per_item: elements each work-item of a row kernel aims at
  Count
};
inline constexpr std::size_t knob_count = std::size_t(Knob::Count);

struct KnobSpec {
  const char* name;  // "class.knob", as in the file
  TuneClass cls;
  long long lo, hi;
  bool power_of_two;
  bool within_group;  // at most the device's max work-group size
};
const KnobSpec& knob_spec(Knob k);

/// Knob values; absent ones are not measured (or not stored).
struct TunedValues {
  std::array<std::optional<int>, knob_count> v{};
  std::optional<int>& operator[](Knob k) { return v[std::size_t(k)]; }
  const std::optional<int>& operator[](Knob k) const { return v[std::size_t(k)]; }
  bool empty() const;
};

/// What fusecl uses on `info`'s device before (or without) measuring.
TunedValues default_values(const DeviceInfo& info);

/// Why `value` cannot be knob k's on `info`'s device, or empty when it can.
std::string knob_range_problem(Knob k, long long value, const DeviceInfo& info);

/// 16 lowercase hex digits: XXH3-64 of the format version and the device's
/// name, vendor, driver version and OpenCL version.
std::string tuning_key(const DeviceInfo& info);

/// <cache_dir>/tuning/<key>.txt
std::filesystem::path tuning_path(const std::filesystem::path& cache_dir, const DeviceInfo& info);

/// The file's text for `values` measured on `info`'s device.
std::string format_tuning(const DeviceInfo& info, const TunedValues& values);

/// What reading a tuning file found: `missing`, or `error` (why it cannot be
/// used: "has a bad checksum", ...), or the values.
struct TuningRead {
  bool missing = false;
  std::string error;
  TunedValues values;
  explicit operator bool() const { return !missing && error.empty(); }
};

TuningRead parse_tuning(std::string_view text, const DeviceInfo& info);

/// Reads and parses the file at `path`. Never throws.
TuningRead read_tuning(const std::filesystem::path& path, const DeviceInfo& info);

}  // namespace fusecl::rt
