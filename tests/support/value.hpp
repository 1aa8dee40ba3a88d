// One host scalar of any fusecl dtype, and NumPy's conversions between them.
// The reference evaluator (reference.hpp) works on these, so a test can hold
// the inputs and the expected output of any op without a template per dtype.
#pragma once

#include "fusecl/dtype.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <variant>

namespace fusecl::test {

/// A scalar of one dtype. Bool and signed values are held as int64, unsigned
/// ones as uint64 and floats as double (a float32 is a double that a float
/// represents exactly). The value always lies in its dtype's range.
class Value {
 public:
  /// bool false.
  Value() = default;

  /// Exactly `x`, with the dtype of its C++ type (long long maps like int64_t).
  template <class T>
    requires is_element_v<detail::canonical_t<T>>
  explicit Value(T x) : Value(store(detail::canonical_t<T>(x))) {}

  /// `x` converted to dtype `t` with NumPy's (C's) cast rules; see cast().
  template <class T>
  static Value of(DType t, T x);

  /// The integer dtype `t` (or bool) holding the low bits of `bits`, as a
  /// two's-complement wrap: of_bits(Int8, 0x80) is -128. For bool, nonzero.
  static Value of_bits(DType t, std::uint64_t bits);

  DType dtype() const { return dtype_; }

  /// The value converted to C++ type T with cast rules (float to int truncates;
  /// see cast() for what happens out of range).
  template <class T>
  T as() const;

  /// NumPy truthiness: nonzero; NaN is true, -0.0 false.
  bool truthy() const;

  /// For bool and integer dtypes: the value's two's-complement bits
  /// (sign-extended to 64 bits for signed dtypes).
  std::uint64_t int_bits() const;

  /// "int8(-128)", "float32(-0)", "float64(nan)", "bool(true)".
  std::string to_string() const;

  /// Same dtype and same value; floats compare by bit pattern except that all
  /// NaNs are equal, so +0.0 and -0.0 differ here (tests of signed zeros rely
  /// on that). Use close_enough() (ulp.hpp) for tolerant comparisons.
  friend bool operator==(const Value& a, const Value& b);

 private:
  using Storage = std::variant<std::int64_t, std::uint64_t, double>;
  Value(DType t, Storage s) : dtype_(t), v_(s) {}
  template <class T>
  static Value store(T x);

  DType dtype_ = DType::Bool;
  Storage v_{std::int64_t{0}};
};

std::ostream& operator<<(std::ostream& os, const Value& v);

/// `x` converted to dtype `to` as NumPy's astype (C conversions):
///  - to bool: nonzero (NaN is true);
///  - integer to integer: two's-complement wrap;
///  - to float: round to nearest even, directly from the integer (no detour
///    through double, which would round twice); float64 overflow gives inf;
///  - float to integer: truncation toward zero; NaN and values out of range,
///    which C leaves undefined, follow fusecl's documented rule (README
///    "Semantics"; NumPy's result on x86-64): int32 and int64 give their
///    minimum, int8, int16, uint8 and uint16 wrap the int32 result, uint32
///    wraps the int64 result, uint64 is the int64 result of x - 2^63 with the
///    top bit flipped from 2^63 up (NaN: 2^63, inf: 0, -1: 2^64 - 1).
Value cast(Value x, DType to);

// ---- template definitions ------------------------------------------------------------

template <class T>
Value Value::store(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return Value(dtype_of_v<T>, Storage{static_cast<double>(x)});
  } else if constexpr (std::is_same_v<T, bool> || std::is_signed_v<T>) {
    return Value(dtype_of_v<T>, Storage{static_cast<std::int64_t>(x)});
  } else {
    return Value(dtype_of_v<T>, Storage{static_cast<std::uint64_t>(x)});
  }
}

template <class T>
Value Value::of(DType t, T x) {
  return cast(Value(x), t);
}

template <class T>
T Value::as() const {
  using C = detail::canonical_t<T>;
  static_assert(is_element_v<C>, "Value::as<T>: T must be a fusecl element type");
  if constexpr (std::is_same_v<C, bool>) {
    return truthy();
  } else if constexpr (std::is_floating_point_v<C>) {
    // Directly from the stored type: int64 -> float must round once.
    return std::visit([](auto v) { return static_cast<C>(v); }, v_);
  } else {
    // cast() has already brought the value into C's range, so taking the
    // low bits is exact.
    return static_cast<C>(cast(*this, dtype_of_v<C>).int_bits());
  }
}

}  // namespace fusecl::test
