// Element types and NumPy 2 (NEP 50) type promotion.
//
// The promotion rules live in one constexpr function over the runtime enum, so
// the graph (which only knows DType values) and the typed C++ API (which needs
// a C++ type at compile time) cannot disagree: the compile-time aliases below
// are that same function evaluated in a constant expression and mapped back to
// a C++ type through a Boost.Hana table.
#pragma once

#include <boost/hana/at_key.hpp>
#include <boost/hana/contains.hpp>
#include <boost/hana/map.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/integral_constant.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace fusecl {

enum class DType : std::uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float32, Float64,
};
inline constexpr int dtype_count = 11;

enum class Kind : std::uint8_t { Bool, Signed, Unsigned, Float };

constexpr Kind kind_of(DType t) {
  switch (t) {
    case DType::Bool: return Kind::Bool;
    case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64: return Kind::Signed;
    case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: return Kind::Unsigned;
    default: return Kind::Float;
  }
}

constexpr int size_of(DType t) {
  switch (t) {
    case DType::Bool: case DType::Int8: case DType::UInt8: return 1;
    case DType::Int16: case DType::UInt16: return 2;
    case DType::Int32: case DType::UInt32: case DType::Float32: return 4;
    default: return 8;
  }
}

constexpr bool is_float(DType t) { return kind_of(t) == Kind::Float; }
constexpr bool is_integer(DType t) { return kind_of(t) == Kind::Signed || kind_of(t) == Kind::Unsigned; }

/// NumPy's name ("float32", "int64", "bool").
std::string_view dtype_name(DType t);

namespace detail {
constexpr DType signed_of_size(int bytes) {
  return bytes == 1 ? DType::Int8 : bytes == 2 ? DType::Int16 : bytes == 4 ? DType::Int32 : DType::Int64;
}
constexpr DType unsigned_of_size(int bytes) {
  return bytes == 1 ? DType::UInt8 : bytes == 2 ? DType::UInt16 : bytes == 4 ? DType::UInt32 : DType::UInt64;
}
}  // namespace detail

/// Array-with-array promotion (numpy.result_type of two dtypes).
constexpr DType promote(DType a, DType b) {
  if (a == b) return a;  // first: most operations combine one type, and this runs for each of them
  const Kind ka = kind_of(a), kb = kind_of(b);
  const int sa = size_of(a), sb = size_of(b);
  if (ka == Kind::Bool) return b;
  if (kb == Kind::Bool) return a;
  if (ka == Kind::Float || kb == Kind::Float) {
    if (ka == Kind::Float && kb == Kind::Float) return sa >= sb ? a : b;
    // float32 holds integers of up to 16 bits exactly; wider ones need float64.
    const DType f = ka == Kind::Float ? a : b;
    const int isize = ka == Kind::Float ? sb : sa;
    if (f == DType::Float64) return DType::Float64;
    return isize <= 2 ? DType::Float32 : DType::Float64;
  }
  if (ka == kb) return sa >= sb ? a : b;
  const int ssize = ka == Kind::Signed ? sa : sb;
  const int usize = ka == Kind::Unsigned ? sa : sb;
  if (ssize > usize) return detail::signed_of_size(ssize);
  if (usize < 8) return detail::signed_of_size(usize * 2);
  return DType::Float64;  // uint64 with any signed integer, as in NumPy
}

/// Kinds of C++ scalar, which NEP 50 treats as "weak" (like Python scalars):
/// they take the array's dtype unless their kind is higher.
enum class WeakKind : std::uint8_t { Bool, Int, Float };

constexpr DType promote_weak(DType array, WeakKind scalar) {
  const Kind k = kind_of(array);
  switch (scalar) {
    case WeakKind::Bool: return array;
    case WeakKind::Int: return k == Kind::Bool ? DType::Int64 : array;
    case WeakKind::Float: return k == Kind::Float ? array : DType::Float64;
  }
  return array;
}

/// The float type a math function (sqrt, sin, true division...) computes in for
/// an input of type t. NumPy gives float16 for 8-bit inputs; fusecl has no
/// float16 and uses float32 there (documented in README).
constexpr DType float_for(DType t) {
  if (is_float(t)) return t;
  return size_of(t) <= 2 ? DType::Float32 : DType::Float64;
}

// ---- C++ type <-> DType -------------------------------------------------------------

namespace detail {
namespace hana = boost::hana;
inline constexpr auto dtype_table = hana::make_map(
    hana::make_pair(hana::type_c<bool>, hana::int_c<int(DType::Bool)>),
    hana::make_pair(hana::type_c<std::int8_t>, hana::int_c<int(DType::Int8)>),
    hana::make_pair(hana::type_c<std::int16_t>, hana::int_c<int(DType::Int16)>),
    hana::make_pair(hana::type_c<std::int32_t>, hana::int_c<int(DType::Int32)>),
    hana::make_pair(hana::type_c<std::int64_t>, hana::int_c<int(DType::Int64)>),
    hana::make_pair(hana::type_c<std::uint8_t>, hana::int_c<int(DType::UInt8)>),
    hana::make_pair(hana::type_c<std::uint16_t>, hana::int_c<int(DType::UInt16)>),
    hana::make_pair(hana::type_c<std::uint32_t>, hana::int_c<int(DType::UInt32)>),
    hana::make_pair(hana::type_c<std::uint64_t>, hana::int_c<int(DType::UInt64)>),
    hana::make_pair(hana::type_c<float>, hana::int_c<int(DType::Float32)>),
    hana::make_pair(hana::type_c<double>, hana::int_c<int(DType::Float64)>));

inline constexpr auto type_table = hana::make_map(
    hana::make_pair(hana::int_c<int(DType::Bool)>, hana::type_c<bool>),
    hana::make_pair(hana::int_c<int(DType::Int8)>, hana::type_c<std::int8_t>),
    hana::make_pair(hana::int_c<int(DType::Int16)>, hana::type_c<std::int16_t>),
    hana::make_pair(hana::int_c<int(DType::Int32)>, hana::type_c<std::int32_t>),
    hana::make_pair(hana::int_c<int(DType::Int64)>, hana::type_c<std::int64_t>),
    hana::make_pair(hana::int_c<int(DType::UInt8)>, hana::type_c<std::uint8_t>),
    hana::make_pair(hana::int_c<int(DType::UInt16)>, hana::type_c<std::uint16_t>),
    hana::make_pair(hana::int_c<int(DType::UInt32)>, hana::type_c<std::uint32_t>),
    hana::make_pair(hana::int_c<int(DType::UInt64)>, hana::type_c<std::uint64_t>),
    hana::make_pair(hana::int_c<int(DType::Float32)>, hana::type_c<float>),
    hana::make_pair(hana::int_c<int(DType::Float64)>, hana::type_c<double>));

// `long long` and `long` are distinct C++ types but one of them is int64_t; map
// the other one too so that users' literals like 3LL just work.
template <class T>
using canonical_t = std::conditional_t<
    std::is_integral_v<T> && !std::is_same_v<T, bool>,
    std::conditional_t<std::is_signed_v<T>,
                       std::conditional_t<sizeof(T) == 1, std::int8_t,
                                          std::conditional_t<sizeof(T) == 2, std::int16_t,
                                                             std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>>>,
                       std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                          std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                             std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>>,
    T>;
}  // namespace detail

/// True for the element types fusecl arrays can hold.
template <class T>
inline constexpr bool is_element_v =
    decltype(boost::hana::contains(detail::dtype_table, boost::hana::type_c<std::remove_cv_t<T>>))::value;

template <class T>
inline constexpr DType dtype_of_v = DType(decltype(+detail::dtype_table[boost::hana::type_c<T>])::value);

template <DType D>
using type_of_t = typename decltype(+detail::type_table[boost::hana::int_c<int(D)>])::type;

template <class A, class B>
using promote_t = type_of_t<promote(dtype_of_v<A>, dtype_of_v<B>)>;

/// The weak kind of a C++ arithmetic scalar.
template <class S>
inline constexpr WeakKind weak_kind_v = std::is_same_v<S, bool>         ? WeakKind::Bool
                                        : std::is_floating_point_v<S> ? WeakKind::Float
                                                                      : WeakKind::Int;

template <class T, class S>
using promote_weak_t = type_of_t<promote_weak(dtype_of_v<T>, weak_kind_v<S>)>;

template <class T>
using float_for_t = type_of_t<float_for(dtype_of_v<T>)>;

}  // namespace fusecl
