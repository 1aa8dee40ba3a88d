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

// The largest and smallest value of integer dtype t, as two's-complement bits.
std::uint64_t max_bits(DType t) {
  const int w = bit_width(t);
  return kind_of(t) == Kind::Signed ? low_mask(w - 1) : low_mask(w);
}
std::uint64_t min_bits(DType t) { return kind_of(t) == Kind::Signed ? std::uint64_t{1} << (bit_width(t) - 1) : 0; }

// Whether trunc(d) fits integer dtype t. The bounds are powers of two, exact
// in double, so the comparisons are exact too.
bool fits(double d, DType t) {
  if (!std::isfinite(d)) return false;
  const int w = bit_width(t);
  const double tr = std::trunc(d);
  if (kind_of(t) == Kind::Signed) return tr >= -std::ldexp(1.0, w - 1) && tr < std::ldexp(1.0, w - 1);
  return tr >= 0.0 && tr < std::ldexp(1.0, w);
}

Value float_to_int(double d, DType t) {
  if (std::isnan(d)) return Value::of_bits(t, 0);
  if (!fits(d, t)) return Value::of_bits(t, d < 0 ? min_bits(t) : max_bits(t));
  const double tr = std::trunc(d);
  return Value::of_bits(t, kind_of(t) == Kind::Signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(tr))
                                                      : static_cast<std::uint64_t>(tr));
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

bool cast_is_defined(Value x, DType to) {
  if (!is_integer(to) || !is_float(x.dtype())) return true;
  return fits(x.as<double>(), to);
}

}  // namespace fusecl::test
