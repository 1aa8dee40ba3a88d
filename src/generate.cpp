// Generated arrays: leaves whose values are computed from the element index.
#include "fusecl/generate.hpp"

#include "src/device_state.hpp"
#include "src/node.hpp"
#include "src/views.hpp"

#include <cmath>

namespace fusecl::detail {

NodePtr make_full(DType dtype, std::uint64_t bits, const Shape& shape, const Device& dev) {
  return broadcast_scalar(make_scalar(dtype, bits), shape, dev.state());
}

NodePtr make_arange(DType dtype, double start, double stop, double step, const Device& dev) {
  if (step == 0 || !std::isfinite(step)) throw Error("arange: step must be finite and nonzero");
  const double len = std::ceil((stop - start) / step);
  if (!std::isfinite(len) || len > 9.2e18)
    throw Error("arange: the range from " + std::to_string(start) + " to " + std::to_string(stop) + " by " +
                std::to_string(step) + " has too many elements");
  GenParams g;
  g.kind = GenKind::Arange;
  g.start = start;
  g.step = step;
  return make_generate(dtype, Shape{len > 0 ? std::int64_t(len) : 0}, g, dev.state());
}

NodePtr make_linspace(DType dtype, double start, double stop, std::int64_t num, bool endpoint, const Device& dev) {
  if (num < 0) throw Error("linspace: number of samples, " + std::to_string(num) + ", must be non-negative");
  GenParams g;
  g.kind = GenKind::Linspace;
  g.start = start;
  const std::int64_t div = endpoint ? num - 1 : num;
  g.step = div > 0 ? (stop - start) / double(div) : 0;
  // The kernel returns `stop` at index count - 1 (count is the array's size);
  // with one sample, or without the endpoint, that element is start + i * step.
  g.stop = !endpoint ? start + double(num - 1) * g.step : (num == 1 ? start : stop);
  return make_generate(dtype, Shape{num}, g, dev.state());
}

NodePtr make_eye(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t k, const Device& dev) {
  if (rows < 0 || cols < 0)
    throw ShapeError("eye: negative dimensions are not allowed (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  GenParams g;
  g.kind = GenKind::Eye;
  g.k = k;
  return make_generate(dtype, Shape{rows, cols}, g, dev.state());
}

NodePtr make_random(DType dtype, GenKind kind, const Shape& shape, std::uint64_t seed, const Device& dev) {
  GenParams g;
  g.kind = kind;
  g.seed = seed;
  return make_generate(dtype, shape, g, dev.state());
}

}  // namespace fusecl::detail
