// Bridges between fusecl arrays and the dense host reference (host_array.hpp)
// for the view, reduction, generator and concatenation tests.
#pragma once

#include "support/each_check.hpp"
#include "support/host_array.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace fusecl::test {

template <class T>
Array<T> to_device(const HostArray<T>& h) {
  return from_host(h.data, Shape(h.shape));
}

template <class T>
HostArray<T> to_reference(const Array<T>& a) {
  return HostArray<T>{a.shape().to_vector(), a.to_host()};
}

/// a and b hold the same bits, element by element (NaN payloads and zeros' signs too).
template <class T>
void require_same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  // One assertion for the array (one per element costs more than the kernel).
  for (std::size_t i = 0; i < a.size(); ++i)
    REQUIRE_EACH(std::memcmp(&a[i], &b[i], sizeof(T)) == 0, "element " << i << " of " << a.size());
  SUCCEED("the same bits in all " << a.size() << " elements");
}

/// Index of the first element where got and want differ (exactly; NaN equals
/// NaN), or -1 if the arrays agree in shape and values (-2 for a shape mismatch).
template <class T>
std::int64_t first_mismatch(const Shape& got_shape, const std::vector<T>& got, const HostArray<T>& want) {
  if (got_shape.to_vector() != want.shape || got.size() != want.data.size()) return -2;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T g = got[i], w = want.data[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(g) && std::isnan(w)) continue;
    }
    if (!(g == w)) return std::int64_t(i);
  }
  return -1;
}

template <class T>
std::string describe_mismatch(const Shape& got_shape, const std::vector<T>& got, const HostArray<T>& want) {
  const auto i = first_mismatch(got_shape, got, want);
  if (i == -1) return "equal";
  if (i == -2) return "shape " + got_shape.str() + " (" + std::to_string(got.size()) + " values), want " + dims_str(want.shape);
  return "element " + std::to_string(i) + ": got " + std::to_string(double(got[std::size_t(i)])) + ", want " +
         std::to_string(double(want.data[std::size_t(i)]));
}

/// Checks a device result against the host reference, element by element
/// (Catch2 assertions: include this from test files only).
template <class T>
void require_matches(const Array<T>& got, const HostArray<T>& want) {
  const auto values = got.to_host();
  INFO("device " << got.shape().str() << " vs reference " << dims_str(want.shape) << ": "
                 << describe_mismatch(got.shape(), values, want));
  REQUIRE(first_mismatch(got.shape(), values, want) == -1);
}

/// The message of the ShapeError f throws ("<no ShapeError>" if none).
template <class F>
std::string shape_error_message(F&& f) {
  try {
    f();
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "<no ShapeError>";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace fusecl::test
