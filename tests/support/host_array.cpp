#include "support/host_array.hpp"

#include <algorithm>
#include <limits>

namespace fusecl::test {

std::int64_t numel(const Dims& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string dims_str(const Dims& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

void for_each_index(const Dims& shape, const std::function<void(const Dims&)>& f) {
  if (numel(shape) == 0) return;
  Dims i(shape.size(), 0);
  while (true) {
    f(i);
    int k = int(shape.size()) - 1;
    for (; k >= 0; --k) {
      if (++i[std::size_t(k)] < shape[std::size_t(k)]) break;
      i[std::size_t(k)] = 0;
    }
    if (k < 0) return;
  }
}

std::int64_t flat_index(const Dims& shape, const Dims& index) {
  std::int64_t p = 0;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (index[k] < 0 || index[k] >= shape[k]) throw std::out_of_range("flat_index: index out of range");
    p = p * shape[k] + index[k];
  }
  return p;
}

int norm_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) throw std::out_of_range("axis out of range");
  return axis < 0 ? axis + ndim : axis;
}

ResolvedSlice resolve_slice(const Slice& s, std::int64_t length) {
  // CPython: PySlice_Unpack (omitted start/stop become the extreme values for
  // the step's direction), then PySlice_AdjustIndices.
  if (s.step == 0) throw std::invalid_argument("resolve_slice: zero step");
  // PySlice_Unpack: a step below -PY_SSIZE_T_MAX becomes -PY_SSIZE_T_MAX (so that -step exists).
  const std::int64_t step = std::max(s.step, -std::numeric_limits<std::int64_t>::max());
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max() / 4;
  std::int64_t start = s.start ? *s.start : (step < 0 ? big : 0);
  std::int64_t stop = s.stop ? *s.stop : (step < 0 ? -big : big);
  if (start < 0) {
    start += length;
    if (start < 0) start = step < 0 ? -1 : 0;
  } else if (start >= length) {
    start = step < 0 ? length - 1 : length;
  }
  if (stop < 0) {
    stop += length;
    if (stop < 0) stop = step < 0 ? -1 : 0;
  } else if (stop >= length) {
    stop = step < 0 ? length - 1 : length;
  }
  std::int64_t count = 0;
  if (step < 0) {
    if (stop < start) count = (start - stop - 1) / (-step) + 1;
  } else {
    if (start < stop) count = (stop - start - 1) / step + 1;
  }
  return {start, step, count};
}

Dims broadcast_dims(const Dims& a, const Dims& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t da = k + a.size() >= n ? a[k + a.size() - n] : 1;
    const std::int64_t db = k + b.size() >= n ? b[k + b.size() - n] : 1;
    if (da != db && da != 1 && db != 1) throw std::invalid_argument("broadcast_dims: " + dims_str(a) + " " + dims_str(b));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

std::int64_t rand_int(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const std::uint64_t span = std::uint64_t(hi - lo) + 1;
  return lo + std::int64_t(rng() % span);
}

double rand_unit(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

Dims random_dims(std::mt19937_64& rng, int max_ndim, std::int64_t max_elements, std::int64_t max_dim, double zero_chance) {
  const int ndim = int(rand_int(rng, 0, max_ndim));
  Dims d;
  std::int64_t n = 1;
  for (int k = 0; k < ndim; ++k) {
    // A third of the dimensions are 1 (they exercise broadcasting and squeezing).
    std::int64_t x = rand_unit(rng) < 0.3 ? 1 : rand_int(rng, 2, max_dim);
    while (x > 1 && n * x > max_elements) --x;
    d.push_back(x);
    n *= x;
  }
  if (ndim > 0 && rand_unit(rng) < zero_chance) d[std::size_t(rand_int(rng, 0, ndim - 1))] = 0;
  return d;
}

}  // namespace fusecl::test
