#include "fusecl/shape.hpp"

#include "fusecl/error.hpp"

#include <algorithm>

namespace fusecl {

namespace {
[[noreturn]] void throw_too_big(std::span<const std::int64_t> dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  throw ShapeError("array is too big: shape " + s + (dims.size() == 1 ? ",)" : ")") +
                   " has more elements than a 64-bit index can count (2^63 - 1)");
}

void validate(std::span<const std::int64_t> dims) {
  if (dims.size() > static_cast<std::size_t>(max_ndim))
    throw ShapeError("fusecl supports at most " + std::to_string(max_ndim) + " dimensions, got " +
                     std::to_string(dims.size()));
  for (auto d : dims)
    if (d < 0) throw ShapeError("negative dimension " + std::to_string(d) + " in a shape");
  // As NumPy: the product of the nonzero dimensions must fit the index type,
  // even where a zero dimension makes the array empty.
  std::int64_t n = 1;
  for (auto d : dims)
    if (d != 0 && __builtin_mul_overflow(n, d, &n)) throw_too_big(dims);
}
}  // namespace

void Shape::assign(std::span<const std::int64_t> dims) {
  validate(dims);
  std::copy(dims.begin(), dims.end(), dims_.begin());
  ndim_ = static_cast<std::uint8_t>(dims.size());
}

Shape::Shape(std::initializer_list<std::int64_t> dims) { assign({dims.begin(), dims.size()}); }
Shape::Shape(std::vector<std::int64_t> dims) { assign(dims); }
Shape::Shape(std::span<const std::int64_t> dims) { assign(dims); }

std::int64_t Shape::size() const {
  // The constructors checked that the nonzero dimensions multiply without overflow.
  std::int64_t n = 1;
  for (auto d : dims()) {
    if (d == 0) return 0;
    n *= d;
  }
  return n;
}

void check_bytes(const Shape& s, int itemsize) {
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(s.size(), std::int64_t(itemsize), &bytes))
    throw ShapeError("array is too big: shape " + s.str() + " of " + std::to_string(itemsize) +
                     "-byte elements needs more than 2^63 - 1 bytes");
}

std::int64_t Shape::operator[](int i) const { return dims_[static_cast<std::size_t>(normalize_axis(i, ndim()))]; }

std::string Shape::str() const {
  std::string s = "(";
  for (int i = 0; i < ndim_; ++i) s += (i ? ", " : "") + std::to_string(dims_[std::size_t(i)]);
  if (ndim_ == 1) s += ",";
  return s + ")";
}

std::vector<std::int64_t> contiguous_strides(const Shape& s) {
  std::vector<std::int64_t> st(static_cast<std::size_t>(s.ndim()));
  std::int64_t acc = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    st[static_cast<std::size_t>(i)] = acc;
    acc *= std::max<std::int64_t>(s.dims()[static_cast<std::size_t>(i)], 1);
  }
  return st;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  // The common cases (equal shapes, a scalar operand) without building and validating a new one.
  if (b.ndim() == 0 || a == b) return a;
  if (a.ndim() == 0) return b;
  const int n = std::max(a.ndim(), b.ndim());
  std::array<std::int64_t, max_ndim> out{};
  for (int i = 0; i < n; ++i) {
    const int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    const std::int64_t da = ia >= 0 ? a.dims()[static_cast<std::size_t>(ia)] : 1;
    const std::int64_t db = ib >= 0 ? b.dims()[static_cast<std::size_t>(ib)] : 1;
    if (da != db && da != 1 && db != 1)
      throw ShapeError("operands could not be broadcast together with shapes " + a.str() + " " + b.str());
    out[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(std::span<const std::int64_t>(out.data(), std::size_t(n)));
}

int normalize_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    throw AxisError("axis " + std::to_string(axis) + " is out of bounds for an array of dimension " +
                     std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

}  // namespace fusecl
