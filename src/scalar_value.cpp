#include "src/scalar_value.hpp"

#include <cstdint>
#include <limits>
#include <sstream>
#include <type_traits>

namespace fusecl::detail {

namespace {
// Calls f with the value as its C++ type.
template <class F>
decltype(auto) visit_scalar(DType t, std::uint64_t bits, F&& f) {
  switch (t) {
    case DType::Bool: return f(from_bits<bool>(bits));
    case DType::Int8: return f(from_bits<std::int8_t>(bits));
    case DType::Int16: return f(from_bits<std::int16_t>(bits));
    case DType::Int32: return f(from_bits<std::int32_t>(bits));
    case DType::Int64: return f(from_bits<std::int64_t>(bits));
    case DType::UInt8: return f(from_bits<std::uint8_t>(bits));
    case DType::UInt16: return f(from_bits<std::uint16_t>(bits));
    case DType::UInt32: return f(from_bits<std::uint32_t>(bits));
    case DType::UInt64: return f(from_bits<std::uint64_t>(bits));
    case DType::Float32: return f(from_bits<float>(bits));
    case DType::Float64: break;
  }
  return f(from_bits<double>(bits));
}

// Float to integer: NumPy's result on x86-64, which the kernels give on every
// device (codegen/spelling.cpp float_to_int, README "Semantics"): truncation
// to int32 or int64 (cvttsd2si), the minimum for NaN and out-of-range values,
// wrapped to narrower types. C++ leaves those conversions undefined.
template <class F>
std::int32_t cvtt32(F v) {
  return v >= F(-0x1p31) && v < F(0x1p31) ? static_cast<std::int32_t>(v) : std::numeric_limits<std::int32_t>::min();
}
template <class F>
std::int64_t cvtt64(F v) {
  return v >= F(-0x1p63) && v < F(0x1p63) ? static_cast<std::int64_t>(v) : std::numeric_limits<std::int64_t>::min();
}

template <class To, class F>
To float_to_int(F v) {
  if constexpr (std::is_same_v<To, std::int32_t>) return cvtt32(v);
  else if constexpr (std::is_same_v<To, std::int64_t>) return cvtt64(v);
  else if constexpr (sizeof(To) <= 2) return static_cast<To>(static_cast<std::uint32_t>(cvtt32(v)));  // wraps
  else if constexpr (std::is_same_v<To, std::uint32_t>) return static_cast<To>(static_cast<std::uint64_t>(cvtt64(v)));
  else return v >= F(0x1p63) ? static_cast<std::uint64_t>(cvtt64(v - F(0x1p63))) ^ (std::uint64_t{1} << 63)
                             : static_cast<std::uint64_t>(cvtt64(v));
}

template <class To, class From>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) return v != From(0);
  else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) return float_to_int<To>(v);
  else return static_cast<To>(v);
}
}  // namespace

std::uint64_t cast_scalar_bits(DType from, std::uint64_t bits, DType to) {
  return visit_scalar(from, bits, [&](auto v) -> std::uint64_t {
    switch (to) {
      case DType::Bool: return to_bits(convert<bool>(v));
      case DType::Int8: return to_bits(convert<std::int8_t>(v));
      case DType::Int16: return to_bits(convert<std::int16_t>(v));
      case DType::Int32: return to_bits(convert<std::int32_t>(v));
      case DType::Int64: return to_bits(convert<std::int64_t>(v));
      case DType::UInt8: return to_bits(convert<std::uint8_t>(v));
      case DType::UInt16: return to_bits(convert<std::uint16_t>(v));
      case DType::UInt32: return to_bits(convert<std::uint32_t>(v));
      case DType::UInt64: return to_bits(convert<std::uint64_t>(v));
      case DType::Float32: return to_bits(convert<float>(v));
      case DType::Float64: break;
    }
    return to_bits(convert<double>(v));
  });
}

double scalar_as_double(DType t, std::uint64_t bits) {
  return visit_scalar(t, bits, [](auto v) { return static_cast<double>(v); });
}

std::string scalar_to_string(DType t, std::uint64_t bits) {
  return visit_scalar(t, bits, [](auto v) {
    std::ostringstream s;
    s.precision(17);
    if constexpr (sizeof(v) == 1 && !std::is_same_v<decltype(v), bool>) s << int(v);
    else if constexpr (std::is_same_v<decltype(v), bool>) s << (v ? "true" : "false");
    else s << v;
    return s.str();
  });
}

}  // namespace fusecl::detail
