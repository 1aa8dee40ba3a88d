// Reflection of the kernel plan's plain-data structs through Boost.Hana, so
// that code which must see every field (the plan's signature, the test that
// changes each field in turn) walks them generically instead of listing them
// by hand, where a new field could be forgotten.
//
// Hana learns a struct's fields from BOOST_HANA_ADAPT_STRUCT, itself a list;
// reflects_every_field<T>() is the compile-time check that the list names
// every field of T exactly once, so forgetting one fails the build.
// (BOOST_HANA_DEFINE_STRUCT, which declares the fields itself, cannot give
// them default member initializers, which the plan structs rely on.)
#pragma once

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/set.hpp>
#include <boost/hana/transform.hpp>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fusecl::codegen {

namespace reflection_detail {

// Stands for an initializer of any one field (used only unevaluated): an
// aggregate brace-initialized with n of these exists exactly when it has at
// least n fields. It converts rather than being brace-elided into a field that
// is itself an aggregate, so nested structs count as one field.
struct AnyField {
  template <class T>
  operator T() const;
};

template <class T, std::size_t... I>
constexpr bool initializable_with(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyField{})...}; };
}

template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
  if constexpr (initializable_with<T>(std::make_index_sequence<N + 1>{}))
    return field_count<T, N + 1>();
  else
    return N;
}

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
inline constexpr bool always_false = false;

}  // namespace reflection_detail

/// Whether T is an aggregate whose hana adaptation names each of its fields
/// once: as many distinct names as the aggregate takes initializers. A field
/// left out of the list, a base class or a name listed twice all make it false.
template <class T>
constexpr bool reflects_every_field() {
  namespace hana = boost::hana;
  if constexpr (!std::is_aggregate_v<T> || !hana::Struct<T>::value) {
    return false;
  } else {
    using Names = decltype(hana::transform(hana::accessors<T>(), hana::first));
    constexpr std::size_t listed = decltype(hana::length(std::declval<Names>()))::value;
    constexpr std::size_t distinct = decltype(hana::length(hana::to_set(std::declval<Names>())))::value;
    return listed == distinct && listed == reflection_detail::field_count<T>();
  }
}

// The byte encoding of reflected values (append_reflected below). Written in
// two passes, the length and then the bytes straight into place, because the
// signature is computed on every launch: appending each field to a string on
// its own is several times slower for large kernel bodies.
namespace reflection_detail {

template <class T>
constexpr bool is_scalar_field = std::is_enum_v<T> || std::is_integral_v<T>;

// The encoded length of every T, or 0 where it depends on the value (T holds a vector).
template <class T>
constexpr std::size_t fixed_size() {
  namespace hana = boost::hana;
  if constexpr (is_scalar_field<T>) {
    return sizeof(T);
  } else if constexpr (hana::Struct<T>::value) {
    std::size_t sum = 0;
    bool fixed = true;
    hana::for_each(hana::accessors<T>(), [&](auto field) {
      using F = std::remove_cvref_t<decltype(hana::second(field)(std::declval<const T&>()))>;
      fixed = fixed && fixed_size<F>() != 0;
      sum += fixed_size<F>();
    });
    return fixed ? sum : 0;
  } else {
    return 0;
  }
}

template <class T>
std::size_t encoded_size(const T& v) {
  namespace hana = boost::hana;
  if constexpr (fixed_size<T>() != 0) {
    return fixed_size<T>();
  } else if constexpr (hana::Struct<T>::value) {
    static_assert(reflects_every_field<T>(), "the hana adaptation must list every field");
    std::size_t sum = 0;
    hana::for_each(hana::accessors<T>(), [&](auto field) { sum += encoded_size(hana::second(field)(v)); });
    return sum;
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    std::size_t sum = sizeof(std::uint32_t);
    if constexpr (fixed_size<E>() != 0)
      sum += v.size() * fixed_size<E>();
    else
      for (const E& e : v) sum += encoded_size(e);
    return sum;
  } else {
    static_assert(always_false<T>, "no byte encoding for this field type");
  }
}

template <class T>
char* encode(char* out, const T& v) {
  namespace hana = boost::hana;
  if constexpr (is_scalar_field<T>) {
    std::memcpy(out, &v, sizeof v);
    return out + sizeof v;
  } else if constexpr (hana::Struct<T>::value) {
    static_assert(reflects_every_field<T>(), "the hana adaptation must list every field");
    hana::for_each(hana::accessors<T>(), [&](auto field) { out = encode(out, hana::second(field)(v)); });
    return out;
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    // Lengths are far below 2^32: a plan's vectors are bounded by its instruction count.
    out = encode(out, std::uint32_t(v.size()));
    // Integers and enums: their bytes at once, the same as one by one
    // (std::vector<bool> has no data()).
    if constexpr (is_scalar_field<E> && !std::is_same_v<E, bool>) {
      if (!v.empty()) std::memcpy(out, v.data(), v.size() * sizeof(E));
      return out + v.size() * sizeof(E);
    } else {
      for (const E& e : v) out = encode(out, e);
      return out;
    }
  } else {
    static_assert(always_false<T>, "no byte encoding for this field type");
  }
}

}  // namespace reflection_detail

/// Appends v's bytes to `out`: a hana-reflected struct as each of its fields in
/// the adaptation's order, a vector as its length then its elements, enums
/// and integers (bool included) as their bytes in the host's byte order. Every
/// field's width is fixed by its type and every vector carries its length, so
/// different values of one type give different bytes: nothing two adjacent
/// fields hold can be mistaken for a split elsewhere. Any other field type is
/// a compile error, to be given an encoding here, not bytes of whatever it
/// points to.
template <class T>
void append_reflected(std::string& out, const T& v) {
  const std::size_t start = out.size();
  const std::size_t size = reflection_detail::encoded_size(v);
  out.resize(start + size);
  [[maybe_unused]] char* end = reflection_detail::encode(out.data() + start, v);
  assert(end == out.data() + out.size());
}

}  // namespace fusecl::codegen
