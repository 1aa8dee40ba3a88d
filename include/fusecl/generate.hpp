// Arrays that are computed, never uploaded: constants, ranges, the identity
// and random numbers are generated inside the kernel that consumes them.
// Each takes the device it lives on last (default: this thread's
// default_device()).
#pragma once

#include "fusecl/array.hpp"

#include <optional>

namespace fusecl {

namespace detail {
NodePtr make_full(DType dtype, std::uint64_t bits, const Shape& shape, const Device& dev);
NodePtr make_arange(DType dtype, double start, double stop, double step, const Device& dev);
NodePtr make_linspace(DType dtype, double start, double stop, std::int64_t num, bool endpoint, const Device& dev);
NodePtr make_eye(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t k, const Device& dev);
NodePtr make_random(DType dtype, GenKind kind, const Shape& shape, std::uint64_t seed, const Device& dev);
}  // namespace detail

/// An array of `shape` whose every element is `value` (a kernel argument: no upload).
template <class T>
Array<T> full(const Shape& shape, T value, const Device& dev = default_device()) {
  return Array<T>(detail::make_full(dtype_of_v<T>, detail::bits_of(value), shape, dev));
}
template <class T>
Array<T> zeros(const Shape& shape, const Device& dev = default_device()) { return full<T>(shape, T(0), dev); }
template <class T>
Array<T> ones(const Shape& shape, const Device& dev = default_device()) { return full<T>(shape, T(1), dev); }

/// start, start + step, ... up to but excluding stop (NumPy's arange; length ceil((stop - start) / step)).
template <class T>
Array<T> arange(double start, double stop, double step = 1, const Device& dev = default_device()) {
  static_assert(!std::is_same_v<T, bool>, "fusecl::arange: bool is not a range type");
  return Array<T>(detail::make_arange(dtype_of_v<T>, start, stop, step, dev));
}
template <class T>
Array<T> arange(double stop) { return arange<T>(0, stop, 1); }
template <class T>
Array<T> arange(double stop, const Device& dev) { return arange<T>(0, stop, 1, dev); }

/// num evenly spaced values from start to stop (inclusive unless endpoint is false).
template <class T>
Array<T> linspace(double start, double stop, std::int64_t num = 50, bool endpoint = true,
                  const Device& dev = default_device()) {
  static_assert(std::is_floating_point_v<T>, "fusecl::linspace: float or double");
  return Array<T>(detail::make_linspace(dtype_of_v<T>, start, stop, num, endpoint, dev));
}

/// rows x cols (cols omitted: square) with ones on diagonal k (0: main, > 0: above, < 0: below).
template <class T>
Array<T> eye(std::int64_t rows, std::optional<std::int64_t> cols = std::nullopt, std::int64_t k = 0,
             const Device& dev = default_device()) {
  return Array<T>(detail::make_eye(dtype_of_v<T>, rows, cols ? *cols : rows, k, dev));
}

namespace random {
/// Uniform in [0, 1), from Philox4x32-10 keyed by seed and counted by element
/// index: the same seed gives the same numbers on every device and vector width.
template <class T>
Array<T> uniform(const Shape& shape, std::uint64_t seed, const Device& dev = default_device()) {
  static_assert(std::is_floating_point_v<T>, "fusecl::random::uniform: float or double");
  return Array<T>(detail::make_random(dtype_of_v<T>, GenKind::Uniform, shape, seed, dev));
}
/// Standard normal (Box-Muller on the same Philox stream).
template <class T>
Array<T> normal(const Shape& shape, std::uint64_t seed, const Device& dev = default_device()) {
  static_assert(std::is_floating_point_v<T>, "fusecl::random::normal: float or double");
  return Array<T>(detail::make_random(dtype_of_v<T>, GenKind::Normal, shape, seed, dev));
}
}  // namespace random

}  // namespace fusecl
