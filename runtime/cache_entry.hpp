// The disk cache's key and the byte format of one entry file. Pure: no OpenCL,
// and no file system beyond reading one file.
//
// Entry file (all integers little-endian):
//
//   offset  size  field
//        0     8  magic "FCLKBIN\0"
//        8     4  format version (entry_format_version)
//       12     4  header length H: bytes before the payload, this table included
//       16    16  key: XXH3-128, canonical (big-endian) byte order
//       32     8  payload length P
//       40     8  XXH3-64 of the payload
//       48     -  metadata, three strings, each u32 length + bytes:
//                 device name, kernel name, driver version (for listing only)
//      H-8     8  XXH3-64 of bytes [0, H-8): the header's own checksum
//        H     P  payload: the program binary exactly as CL_PROGRAM_BINARIES gave it
//
// A file is a valid entry only if every field checks out and its size is exactly H + P,
// so truncation, extension, a flipped bit anywhere and a file that belongs to another
// key are all detected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fusecl::rt {

/// Bump when the entry layout or the key derivation changes; old entries then simply miss.
inline constexpr std::uint32_t entry_format_version = 1;

/// fusecl's own version (FUSECL_VERSION), part of every key so that a new library
/// never loads binaries an older one made.
std::string_view library_version();

struct CacheKey {
  unsigned char bytes[16] = {};
  /// 32 lowercase hex digits; the entry's file name without ".bin".
  std::string hex() const;
  friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

/// Everything the compiled binary depends on. Each field enters the hash with its
/// length in front, so no two different inputs can run together into the same bytes.
struct KeyInputs {
  std::string source, options;
  std::string platform_name, platform_version;
  std::string device_name, device_version, driver_version;
  std::uint32_t format_version = entry_format_version;
  std::string library = std::string(library_version());
};

CacheKey cache_key(const KeyInputs& in);

/// Parses 32 hex digits (either case); false for anything else.
bool parse_key_hex(std::string_view hex, CacheKey& out);

/// Shown by `fusecl-cache list`; not part of the key.
struct EntryMetadata {
  std::string device_name, kernel_name, driver_version;
};

/// The complete bytes of an entry file for `payload`. Metadata strings longer than
/// 4 KiB are cut (they are for display only).
std::vector<unsigned char> encode_entry(const CacheKey& key, const EntryMetadata& meta,
                                        std::span<const unsigned char> payload);

struct EntryHeader {
  CacheKey key;
  std::uint32_t header_length = 0;
  std::uint64_t payload_length = 0;
  std::uint64_t payload_hash = 0;
  EntryMetadata meta;
};

/// What reading an entry file found.
struct EntryRead {
  std::string error;  // empty when the entry is whole; else why it is not ("truncated", ...)
  bool missing = false;  // there is no file at all: a plain miss, not damage
  EntryHeader header;
  std::vector<unsigned char> payload;  // filled only when read_entry is asked for it
  std::uint64_t file_bytes = 0;
  explicit operator bool() const { return error.empty(); }
};

enum class ReadPayload { No, Yes };

/// Opens `path` (never following a symbolic link: an entry is always a plain file)
/// and checks it. With ReadPayload::No only the header is read and checked; the size
/// is still compared against the header, but the payload checksum is not verified.
/// `expected` is the key the file name promises; a header with another key is an error.
/// Never throws for bad files; errno-style failures become the error text.
EntryRead read_entry(const std::filesystem::path& path, const CacheKey& expected, ReadPayload what);

}  // namespace fusecl::rt
