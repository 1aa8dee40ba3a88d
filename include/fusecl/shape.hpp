// Shapes: NumPy's tuple of dimension sizes, as signed 64-bit integers.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace fusecl {

/// The most dimensions an array may have (NumPy allows 64; 8 covers practice
/// and keeps generated index arithmetic short).
inline constexpr int max_ndim = 8;

/// Every constructor checks the dimensions: at most max_ndim, none negative,
/// and the product of the nonzero ones within int64 (ShapeError "array is too
/// big" otherwise, as NumPy).
///
/// The dimensions sit in place (at most max_ndim of them): every graph node
/// has a shape, and a heap allocation per shape was a fifth of the cost of
/// building a graph.
class Shape {
 public:
  Shape() = default;  // a 0-d (scalar) shape: one element
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::vector<std::int64_t> dims);
  explicit Shape(std::span<const std::int64_t> dims);

  int ndim() const { return ndim_; }
  /// Number of elements: the product of the dimensions (1 for a 0-d shape).
  std::int64_t size() const;
  /// Dimension i; negative i counts from the end, as in NumPy.
  std::int64_t operator[](int i) const;
  std::span<const std::int64_t> dims() const { return {dims_.data(), std::size_t(ndim_)}; }
  std::vector<std::int64_t> to_vector() const { return {begin(), end()}; }
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + ndim_; }

  /// "(2, 3)", "(5,)", "()" — NumPy's spelling, used in error messages.
  std::string str() const;

  // The unused entries are always 0, so comparing all of them is right.
  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  void assign(std::span<const std::int64_t> dims);  // checks, then copies

  std::array<std::int64_t, max_ndim> dims_{};
  std::uint8_t ndim_ = 0;
};

/// Throws ShapeError ("array is too big", as NumPy) if s.size() elements of
/// `itemsize` bytes need more bytes than int64 counts.
void check_bytes(const Shape& s, int itemsize);

/// C-order (row-major) strides, in elements.
std::vector<std::int64_t> contiguous_strides(const Shape& s);

/// NumPy broadcasting of two shapes; throws ShapeError naming both.
Shape broadcast_shapes(const Shape& a, const Shape& b);

/// Normalizes an axis (negative counts from the end); throws ShapeError if out of range.
int normalize_axis(int axis, int ndim);

}  // namespace fusecl
