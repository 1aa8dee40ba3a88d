#include "runtime/cache_entry.hpp"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#ifndef FUSECL_VERSION
#error "FUSECL_VERSION must be defined by the build (CMakeLists.txt does so for the library)"
#endif

namespace fusecl::rt {

namespace {

constexpr unsigned char magic[8] = {'F', 'C', 'L', 'K', 'B', 'I', 'N', '\0'};
constexpr std::size_t fixed_part = 48;  // magic .. payload hash
constexpr std::size_t min_header = fixed_part + 3 * 4 + 8;
constexpr std::size_t max_meta_string = 4096;
// Far above what encode_entry writes (3 strings of at most 4 KiB), so only a damaged
// length field can exceed it; bounds the allocation made for a header.
constexpr std::size_t max_header = 64 * 1024;

// Writes at a cursor into a buffer sized in advance (so the layout is fixed up front).
struct Writer {
  unsigned char* p;
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void bytes(const void* src, std::size_t n) {
    if (n) std::memcpy(p, src, n);
    p += n;
  }
};
std::uint32_t get_u32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void hash_field(XXH3_state_t& st, const void* data, std::size_t size) {
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(std::uint64_t(size) >> (8 * i));
  XXH3_128bits_update(&st, len, sizeof len);
  XXH3_128bits_update(&st, data, size);
}
void hash_field(XXH3_state_t& st, const std::string& s) { hash_field(st, s.data(), s.size()); }

// Reads exactly `size` bytes at `offset`; false on error or end of file.
bool read_at(int fd, void* dst, std::size_t size, std::uint64_t offset, std::string& error) {
  auto* p = static_cast<unsigned char*>(dst);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("read failed: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) {
      error = "truncated while reading (the file shrank)";
      return false;
    }
    p += n;
    size -= std::size_t(n);
    offset += std::uint64_t(n);
  }
  return true;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string_view library_version() { return FUSECL_VERSION; }

std::string CacheKey::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[2 * i] = digits[bytes[i] >> 4];
    s[2 * i + 1] = digits[bytes[i] & 15];
  }
  return s;
}

bool parse_key_hex(std::string_view hex, CacheKey& out) {
  if (hex.size() != 32) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  CacheKey k;
  for (int i = 0; i < 16; ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    k.bytes[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  out = k;
  return true;
}

CacheKey cache_key(const KeyInputs& in) {
  XXH3_state_t st;
  XXH3_INITSTATE(&st);
  XXH3_128bits_reset(&st);
  unsigned char fmt[4];
  for (int i = 0; i < 4; ++i) fmt[i] = static_cast<unsigned char>(in.format_version >> (8 * i));
  hash_field(st, fmt, sizeof fmt);
  hash_field(st, in.library);
  hash_field(st, in.platform_name);
  hash_field(st, in.platform_version);
  hash_field(st, in.device_name);
  hash_field(st, in.device_version);
  hash_field(st, in.driver_version);
  hash_field(st, in.options);
  hash_field(st, in.source);
  XXH128_canonical_t canon;
  XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(&st));
  CacheKey k;
  std::memcpy(k.bytes, canon.digest, sizeof k.bytes);
  return k;
}

std::vector<unsigned char> encode_entry(const CacheKey& key, const EntryMetadata& meta,
                                        std::span<const unsigned char> payload) {
  const std::string* strings[] = {&meta.device_name, &meta.kernel_name, &meta.driver_version};
  std::size_t header = min_header;
  for (const std::string* s : strings) header += std::min(s->size(), max_meta_string);
  std::vector<unsigned char> out(header + payload.size());

  Writer w{out.data()};
  w.bytes(magic, sizeof magic);
  w.u32(entry_format_version);
  w.u32(static_cast<std::uint32_t>(header));
  w.bytes(key.bytes, sizeof key.bytes);
  w.u64(payload.size());
  w.u64(XXH3_64bits(payload.data(), payload.size()));
  for (const std::string* s : strings) {
    const std::size_t n = std::min(s->size(), max_meta_string);
    w.u32(static_cast<std::uint32_t>(n));
    w.bytes(s->data(), n);
  }
  w.u64(XXH3_64bits(out.data(), header - 8));
  w.bytes(payload.data(), payload.size());
  return out;
}

EntryRead read_entry(const std::filesystem::path& path, const CacheKey& expected, ReadPayload what) {
  EntryRead r;
  // O_NONBLOCK: a FIFO planted under an entry's name must not hang the open; for the
  // regular files that pass the check below it changes nothing.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
  if (f.fd < 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      r.missing = true;
      r.error = "does not exist";
    } else if (e == ELOOP) {
      r.error = "is a symbolic link, not a cache entry";
    } else {
      r.error = std::string("cannot be opened: ") + std::strerror(e);
    }
    return r;
  }
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) {
    r.error = std::string("cannot be examined: ") + std::strerror(errno);
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    r.error = S_ISDIR(st.st_mode) ? "is a directory, not a cache entry" : "is not a regular file";
    return r;
  }
  r.file_bytes = std::uint64_t(st.st_size);
  if (r.file_bytes == 0) {
    r.error = "is empty (0 bytes)";
    return r;
  }
  if (r.file_bytes < min_header) {
    r.error = "is truncated (" + std::to_string(r.file_bytes) + " bytes, shorter than any header)";
    return r;
  }

  unsigned char fixed[fixed_part];
  if (!read_at(f.fd, fixed, sizeof fixed, 0, r.error)) return r;
  if (std::memcmp(fixed, magic, sizeof magic) != 0) {
    r.error = "is not a fusecl cache entry (wrong magic bytes)";
    return r;
  }
  if (const std::uint32_t v = get_u32(fixed + 8); v != entry_format_version) {
    r.error = "has entry format version " + std::to_string(v) + "; this fusecl reads version " +
              std::to_string(entry_format_version);
    return r;
  }
  EntryHeader& h = r.header;
  h.header_length = get_u32(fixed + 12);
  if (h.header_length < min_header || h.header_length > max_header) {
    r.error = "has a damaged header (header length " + std::to_string(h.header_length) + ")";
    return r;
  }
  if (r.file_bytes < h.header_length) {
    r.error = "is truncated (" + std::to_string(r.file_bytes) + " bytes, inside the header)";
    return r;
  }
  std::vector<unsigned char> header(h.header_length);
  std::memcpy(header.data(), fixed, fixed_part);
  if (!read_at(f.fd, header.data() + fixed_part, header.size() - fixed_part, fixed_part, r.error)) return r;
  if (XXH3_64bits(header.data(), header.size() - 8) != get_u64(header.data() + header.size() - 8)) {
    r.error = "has a damaged header (header checksum mismatch)";
    return r;
  }

  std::memcpy(h.key.bytes, header.data() + 16, 16);
  h.payload_length = get_u64(header.data() + 32);
  h.payload_hash = get_u64(header.data() + 40);
  std::size_t pos = fixed_part;
  const std::size_t meta_end = header.size() - 8;
  for (std::string* s : {&h.meta.device_name, &h.meta.kernel_name, &h.meta.driver_version}) {
    if (meta_end - pos < 4) {
      r.error = "has a damaged header (metadata runs past its end)";
      return r;
    }
    const std::uint32_t n = get_u32(header.data() + pos);
    pos += 4;
    if (n > meta_end - pos) {
      r.error = "has a damaged header (metadata runs past its end)";
      return r;
    }
    s->assign(reinterpret_cast<const char*>(header.data() + pos), n);
    pos += n;
  }
  if (pos != meta_end) {
    r.error = "has a damaged header (unexpected bytes after the metadata)";
    return r;
  }
  if (!(h.key == expected)) {
    r.error = "holds key " + h.key.hex() + ", not the key its file name says";
    return r;
  }
  // Compared as "bytes after the header" so that a damaged, huge length cannot overflow.
  const std::uint64_t after_header = r.file_bytes - h.header_length;
  if (after_header < h.payload_length) {
    r.error = "is truncated (" + std::to_string(after_header) + " payload bytes, the header promises " +
              std::to_string(h.payload_length) + ")";
    return r;
  }
  if (after_header > h.payload_length) {
    r.error = "has " + std::to_string(after_header - h.payload_length) + " stray bytes after the payload";
    return r;
  }
  if (what == ReadPayload::No) return r;

  r.payload.resize(h.payload_length);
  if (!read_at(f.fd, r.payload.data(), r.payload.size(), h.header_length, r.error)) {
    r.payload.clear();
    return r;
  }
  if (XXH3_64bits(r.payload.data(), r.payload.size()) != h.payload_hash) {
    r.error = "has a damaged payload (checksum mismatch)";
    r.payload.clear();
  }
  return r;
}

}  // namespace fusecl::rt
