// A dense host array and the view, broadcasting and reduction rules of NumPy
// written from their definitions, for the view, reduction, generator and
// concatenation tests. Every operation here produces a new dense C-order
// array by mapping output indices to input indices: there are no strides and
// no offsets, so the reference shares no layout arithmetic with the library
// (src/views.cpp) and cannot share its mistakes.
//
// Slices follow CPython's PySlice_AdjustIndices / PySlice_GetIndicesEx, a
// different formulation of the same rule than the library's clamp.
#pragma once

#include "fusecl/views.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusecl::test {

using Dims = std::vector<std::int64_t>;

std::int64_t numel(const Dims& shape);
/// NumPy's spelling, "(2, 3)", "(5,)", "()" (as fusecl's error messages write shapes).
std::string dims_str(const Dims& shape);
/// Calls f(index) for every multi-index of `shape`, in C order.
void for_each_index(const Dims& shape, const std::function<void(const Dims&)>& f);
/// The C-order position of `index` in `shape`.
std::int64_t flat_index(const Dims& shape, const Dims& index);
/// An axis in [-ndim, ndim) made non-negative; throws std::out_of_range otherwise.
int norm_axis(int axis, int ndim);

/// What Python's `range(length)[start:stop:step]` selects: `count` elements,
/// the first at `start`, then every `step`.
struct ResolvedSlice {
  std::int64_t start, step, count;
};
ResolvedSlice resolve_slice(const Slice& s, std::int64_t length);

/// NumPy's broadcast shape of a and b; throws std::invalid_argument if they do not broadcast.
Dims broadcast_dims(const Dims& a, const Dims& b);

// ---- seeded randomness from the engine's raw output (portable across standard libraries) ----

/// Uniform integer in [lo, hi] (modulo bias is irrelevant for tests).
std::int64_t rand_int(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi);
/// Uniform double in [0, 1), 53 random bits.
double rand_unit(std::mt19937_64& rng);

/// A random shape of 0..max_ndim dimensions with at most max_elements
/// elements; dimensions are mostly 1..max_dim, sometimes 1, and with
/// probability zero_chance one of them is 0.
Dims random_dims(std::mt19937_64& rng, int max_ndim, std::int64_t max_elements, std::int64_t max_dim = 6,
                 double zero_chance = 0.1);

// ---- the array -------------------------------------------------------------------------

template <class T>
struct HostArray {
  Dims shape;
  std::vector<T> data;  // C order, numel(shape) elements

  T at(const Dims& index) const { return data[std::size_t(flat_index(shape, index))]; }
  int ndim() const { return int(shape.size()); }
};

/// The array of `shape` whose element at index i is f(i).
template <class T, class F>
HostArray<T> h_generate(const Dims& shape, F&& f) {
  HostArray<T> out{shape, {}};
  out.data.reserve(std::size_t(numel(shape)));
  for_each_index(shape, [&](const Dims& i) { out.data.push_back(static_cast<T>(f(i))); });
  return out;
}

/// numpy.arange(n).reshape(shape) cast to T plus `base`: every element says where it came from.
template <class T>
HostArray<T> h_iota(const Dims& shape, double base = 0) {
  std::int64_t k = 0;
  return h_generate<T>(shape, [&](const Dims&) { return static_cast<T>(base + double(k++)); });
}

template <class T>
HostArray<T> h_permute(const HostArray<T>& a, const std::vector<int>& axes_in) {
  const int n = a.ndim();
  if (int(axes_in.size()) != n) throw std::invalid_argument("h_permute: wrong number of axes");
  std::vector<int> axes;
  for (int x : axes_in) axes.push_back(norm_axis(x, n));
  Dims shape;
  for (int x : axes) shape.push_back(a.shape[std::size_t(x)]);
  return h_generate<T>(shape, [&](const Dims& i) {
    Dims src(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) src[std::size_t(axes[std::size_t(k)])] = i[std::size_t(k)];
    return a.at(src);
  });
}

template <class T>
HostArray<T> h_transpose(const HostArray<T>& a) {
  std::vector<int> axes;
  for (int k = a.ndim() - 1; k >= 0; --k) axes.push_back(k);
  return h_permute(a, axes);
}

template <class T>
HostArray<T> h_slice(const HostArray<T>& a, const std::vector<Slice>& spec) {
  const int n = a.ndim();
  if (int(spec.size()) > n) throw std::invalid_argument("h_slice: too many indices");
  std::vector<ResolvedSlice> r;
  Dims shape;
  for (int k = 0; k < n; ++k) {
    r.push_back(resolve_slice(k < int(spec.size()) ? spec[std::size_t(k)] : Slice{}, a.shape[std::size_t(k)]));
    shape.push_back(r.back().count);
  }
  return h_generate<T>(shape, [&](const Dims& i) {
    Dims src(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < std::size_t(n); ++k) src[k] = r[k].start + i[k] * r[k].step;
    return a.at(src);
  });
}

template <class T>
HostArray<T> h_flip(const HostArray<T>& a, std::optional<int> axis = std::nullopt) {
  const int only = axis ? norm_axis(*axis, a.ndim()) : -1;
  return h_generate<T>(a.shape, [&](const Dims& i) {
    Dims src = i;
    for (std::size_t k = 0; k < src.size(); ++k)
      if (only < 0 || int(k) == only) src[k] = a.shape[k] - 1 - i[k];
    return a.at(src);
  });
}

/// Same elements in C order, new shape (with at most one -1, as numpy.reshape).
template <class T>
HostArray<T> h_reshape(const HostArray<T>& a, Dims shape) {
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) infer = int(k);
    else known *= shape[k];
  }
  if (infer >= 0) shape[std::size_t(infer)] = known == 0 ? 0 : numel(a.shape) / known;
  if (numel(shape) != numel(a.shape)) throw std::invalid_argument("h_reshape: size mismatch");
  return HostArray<T>{shape, a.data};
}

template <class T>
HostArray<T> h_expand_dims(const HostArray<T>& a, int axis) {
  Dims s = a.shape;
  s.insert(s.begin() + norm_axis(axis, a.ndim() + 1), 1);
  return HostArray<T>{s, a.data};
}

/// Drops size-1 dimensions (all of them, or only `axis`, which must have size 1).
template <class T>
HostArray<T> h_squeeze(const HostArray<T>& a, std::optional<int> axis = std::nullopt) {
  const int only = axis ? norm_axis(*axis, a.ndim()) : -1;
  if (axis && a.shape[std::size_t(only)] != 1) throw std::invalid_argument("h_squeeze: axis is not of size 1");
  Dims s;
  for (int k = 0; k < a.ndim(); ++k)
    if (!(a.shape[std::size_t(k)] == 1 && (only < 0 || k == only))) s.push_back(a.shape[std::size_t(k)]);
  return HostArray<T>{s, a.data};
}

template <class T>
HostArray<T> h_broadcast_to(const HostArray<T>& a, const Dims& shape) {
  const int lead = int(shape.size()) - a.ndim();
  if (lead < 0) throw std::invalid_argument("h_broadcast_to: fewer dimensions");
  for (int k = 0; k < a.ndim(); ++k)
    if (a.shape[std::size_t(k)] != 1 && a.shape[std::size_t(k)] != shape[std::size_t(lead + k)])
      throw std::invalid_argument("h_broadcast_to: incompatible");
  return h_generate<T>(shape, [&](const Dims& i) {
    Dims src(a.shape.size());
    for (std::size_t k = 0; k < src.size(); ++k) src[k] = a.shape[k] == 1 ? 0 : i[std::size_t(lead) + k];
    return a.at(src);
  });
}

/// f(a_elem, b_elem) with NumPy broadcasting, as R.
template <class R, class A, class B, class F>
HostArray<R> h_map2(const HostArray<A>& a, const HostArray<B>& b, F&& f) {
  const Dims shape = broadcast_dims(a.shape, b.shape);
  const HostArray<A> ab = h_broadcast_to(a, shape);
  const HostArray<B> bb = h_broadcast_to(b, shape);
  HostArray<R> out{shape, {}};
  for (std::size_t k = 0; k < ab.data.size(); ++k) out.data.push_back(static_cast<R>(f(ab.data[k], bb.data[k])));
  return out;
}

template <class R, class A, class F>
HostArray<R> h_map(const HostArray<A>& a, F&& f) {
  HostArray<R> out{a.shape, {}};
  for (std::size_t k = 0; k < a.data.size(); ++k) out.data.push_back(static_cast<R>(f(a.data[k])));
  return out;
}

/// Reduces `axes` (any order, negative allowed; empty with all_axes: every
/// axis) by f, which receives the reduced elements in C order of the reduced
/// axes (so an arg-reduction's position in that list is NumPy's index).
template <class R, class T, class F>
HostArray<R> h_reduce(const HostArray<T>& a, std::vector<int> axes, bool all_axes, bool keepdims, F&& f) {
  const int n = a.ndim();
  std::vector<bool> red(std::size_t(n), all_axes);
  for (int x : axes) red[std::size_t(norm_axis(x, n))] = true;
  Dims out_shape, kept_dims, red_dims;
  for (int k = 0; k < n; ++k) {
    const auto d = a.shape[std::size_t(k)];
    if (red[std::size_t(k)]) {
      red_dims.push_back(d);
      if (keepdims) out_shape.push_back(1);
    } else {
      kept_dims.push_back(d);
      out_shape.push_back(d);
    }
  }
  HostArray<R> out{out_shape, {}};
  std::vector<T> values;
  for_each_index(kept_dims, [&](const Dims& o) {
    values.clear();
    for_each_index(red_dims, [&](const Dims& r) {
      Dims src(static_cast<std::size_t>(n));
      std::size_t ko = 0, kr = 0;
      for (std::size_t k = 0; k < std::size_t(n); ++k) src[k] = red[k] ? r[kr++] : o[ko++];
      values.push_back(a.at(src));
    });
    out.data.push_back(static_cast<R>(f(values)));
  });
  return out;
}

/// numpy.concatenate along `axis` (all inputs of one dtype here).
template <class T>
HostArray<T> h_concatenate(const std::vector<HostArray<T>>& xs, int axis) {
  const int n = xs.front().ndim();
  const int a = norm_axis(axis, n);
  Dims shape = xs.front().shape;
  shape[std::size_t(a)] = 0;
  for (const auto& x : xs) shape[std::size_t(a)] += x.shape[std::size_t(a)];
  return h_generate<T>(shape, [&](const Dims& i) {
    Dims src = i;
    for (const auto& x : xs) {
      if (src[std::size_t(a)] < x.shape[std::size_t(a)]) return x.at(src);
      src[std::size_t(a)] -= x.shape[std::size_t(a)];
    }
    throw std::logic_error("h_concatenate: index past the end");
  });
}

}  // namespace fusecl::test
