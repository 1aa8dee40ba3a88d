#include "support/value.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>

namespace fusecl::test {

namespace {

int bit_width(DType t) { return size_of(t) * 8; }

std::uint64_t low_mask(int bits) { return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

// x86-64's cvttsd2si into `bits` (32 or 64) bits: truncation, or the minimum
// (the bit pattern 1000...0) for NaN and results outside the type, as bits.
std::uint64_t cvtt(double d, int bits) {
  const double lim = std::ldexp(1.0, bits - 1);
  if (!(d >= -lim && d < lim)) return std::uint64_t{1} << (bits - 1) | (bits == 32 ? ~low_mask(32) : 0);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::trunc(d)));
}

// The documented rule (README "Semantics"), written from the definition
// rather than copied from the library: int32 and int64 are cvtt32 and
// cvtt64; narrower types wrap cvtt32; uint32 wraps cvtt64; uint64 goes
// through cvtt64 of x - 2^63 from 2^63 up. The input is exactly a float32 or
// float64 value, and x - 2^63 is exact in either wherever it matters
// (2^63 <= x < 2^64; above, both land out of range).
Value float_to_int(double d, DType t) {
  switch (t) {
    case DType::Int64: return Value::of_bits(t, cvtt(d, 64));
    case DType::UInt32: return Value::of_bits(t, cvtt(d, 64));
    case DType::UInt64: {
      const double two63 = std::ldexp(1.0, 63);
      return Value::of_bits(t, d >= two63 ? cvtt(d - two63, 64) ^ (std::uint64_t{1} << 63) : cvtt(d, 64));
    }
    default: return Value::of_bits(t, cvtt(d, 32));  // int8, int16, int32, uint8, uint16
  }
}

}  // namespace

Value Value::of_bits(DType t, std::uint64_t bits) {
  switch (kind_of(t)) {
    case Kind::Bool:
      return Value(bits != 0);
    case Kind::Signed: {
      // Sign-extend the low w bits: move them to the top, then shift back
      // arithmetically (both well defined in C++20).
      const int spare = 64 - bit_width(t);
      return Value(t, Storage{static_cast<std::int64_t>(bits << spare) >> spare});
    }
    case Kind::Unsigned:
      return Value(t, Storage{bits & low_mask(bit_width(t))});
    case Kind::Float:
      break;
  }
  throw std::invalid_argument("Value::of_bits: " + std::string(dtype_name(t)) + " is not an integer dtype");
}

bool Value::truthy() const {
  return std::visit([](auto v) { return v != 0; }, v_);
}

std::uint64_t Value::int_bits() const {
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<std::uint64_t>(*i);
  if (const auto* u = std::get_if<std::uint64_t>(&v_)) return *u;
  throw std::invalid_argument("Value::int_bits on " + to_string());
}

std::string Value::to_string() const {
  std::string body;
  if (dtype_ == DType::Bool) {
    body = truthy() ? "true" : "false";
  } else if (const auto* d = std::get_if<double>(&v_)) {
    if (std::isnan(*d)) {
      body = "nan";
    } else if (std::isinf(*d)) {
      body = *d < 0 ? "-inf" : "inf";
    } else {
      // Enough digits to round-trip the dtype, so two values that print the
      // same are the same.
      char buf[40];
      std::snprintf(buf, sizeof buf, dtype_ == DType::Float32 ? "%.9g" : "%.17g", *d);
      body = buf;
    }
  } else {
    body = std::visit([](auto v) { return std::to_string(v); }, v_);
  }
  return std::string(dtype_name(dtype_)) + "(" + body + ")";
}

bool operator==(const Value& a, const Value& b) {
  if (a.dtype_ != b.dtype_) return false;
  const auto* x = std::get_if<double>(&a.v_);
  const auto* y = std::get_if<double>(&b.v_);
  if (x && y) {
    if (std::isnan(*x) || std::isnan(*y)) return std::isnan(*x) && std::isnan(*y);
    return std::bit_cast<std::uint64_t>(*x) == std::bit_cast<std::uint64_t>(*y);
  }
  return a.v_ == b.v_;
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.to_string(); }

Value cast(Value x, DType to) {
  switch (kind_of(to)) {
    case Kind::Bool:
      return Value(x.truthy());
    case Kind::Signed:
    case Kind::Unsigned:
      if (is_float(x.dtype())) return float_to_int(x.as<double>(), to);
      return Value::of_bits(to, x.int_bits());
    case Kind::Float:
      break;
  }
  return to == DType::Float32 ? Value(x.as<float>()) : Value(x.as<double>());
}

}  // namespace fusecl::test
