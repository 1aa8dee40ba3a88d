#include "support/random_inputs.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace fusecl::test {

namespace {

void add_unique(std::vector<Value>& list, const Value& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

// A uniform index below n (n > 0) from raw engine output. The modulo bias is
// at most n / 2^64, irrelevant here, and the result is the same everywhere.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t n) { return rng() % n; }

template <class T>
std::vector<T> float_edges() {
  using L = std::numeric_limits<T>;
  const T max = L::max(), min = L::min(), tiny = L::denorm_min(), eps = L::epsilon();
  const T pi = std::numbers::pi_v<T>;
  const T digits_pow = std::ldexp(T(1), L::digits);  // 2^24 / 2^53: integers stop being exact above
  return {
      T(0), -T(0), T(1), T(-1), T(2), T(-2), T(3), T(-3), T(0.5), T(-0.5), T(0.1), T(-0.1),
      // Halfway cases for round-half-to-even, and truncation targets of casts.
      T(1.5), T(-1.5), T(2.5), T(-2.5), T(255.5), T(-128.5), T(256), T(65536),
      // Neighbours of 1 (log1p, acos, atanh and pow edges) and of -1.
      T(1) + eps, T(1) - eps / 2, T(-1) + eps / 2, T(-1) - eps,
      // Limits of the normal and subnormal ranges.
      max, -max, min, -min, tiny, -tiny, min - tiny, -(min - tiny),
      L::infinity(), -L::infinity(), L::quiet_NaN(),
      // Where exp overflows to inf and underflows past the normals / to 0.
      std::log(max), std::nextafter(std::log(max), L::infinity()), std::log(min), std::log(tiny),
      std::nextafter(std::log(tiny), -L::infinity()),
      // Trigonometric landmarks.
      pi / 2, -pi / 2, pi, -pi,
      // Integer boundaries: exactness, and the ranges of int32 / int64 / uint64.
      digits_pow, digits_pow + 2, -digits_pow, std::ldexp(T(1), 31), -std::ldexp(T(1), 31), std::ldexp(T(1), 63),
      -std::ldexp(T(1), 63), std::ldexp(T(1), 64),
  };
}

template <class T>
bool allowed_float(T x, const InputOptions& opt) {
  if (!opt.nan_inf && !std::isfinite(x)) return false;
  if (!opt.denormals && std::fpclassify(x) == FP_SUBNORMAL) return false;
  return true;
}

std::vector<Value> integer_edges(DType t) {
  const int w = size_of(t) * 8;
  const bool sgn = kind_of(t) == Kind::Signed;
  const std::uint64_t max = sgn ? (std::uint64_t{1} << (w - 1)) - 1 : w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
  const std::uint64_t min = sgn ? std::uint64_t{1} << (w - 1) : 0;
  const std::uint64_t ww = static_cast<std::uint64_t>(w);
  std::vector<std::uint64_t> bits = {0, 1, 2, 3, max, max - 1, min, min + 1,
                                     // Shift counts around the bit width.
                                     ww - 1, ww, ww + 1};
  if (sgn) {
    const std::uint64_t minus = ~std::uint64_t{0};  // -1
    bits.insert(bits.end(), {minus, minus - 1, 0 - ww});
  } else {
    bits.insert(bits.end(), {max / 2, max / 2 + 1});
  }
  std::vector<Value> out;
  for (std::uint64_t b : bits) add_unique(out, Value::of_bits(t, b));
  return out;
}

template <class T>
T random_float_bits(std::mt19937_64& rng) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(rng() >> 32));
  } else {
    return std::bit_cast<double>(rng());
  }
}

template <class T>
Value random_float(std::mt19937_64& rng, const InputOptions& opt) {
  if (opt.range) {
    const auto [lo, hi] = *opt.range;
    // 53 random bits as a fraction in [0, 1), stretched in long double so
    // that even [-max, max] does not overflow on the way.
    const long double u = static_cast<long double>(rng() >> 11) * 0x1.0p-53L;
    const long double x = static_cast<long double>(lo) + u * (static_cast<long double>(hi) - lo);
    return Value(static_cast<T>(x));
  }
  for (;;) {  // redraw the (rare) patterns the options exclude
    const T x = random_float_bits<T>(rng);
    if (allowed_float(x, opt)) return Value(x);
  }
}

Value random_integer(DType t, std::mt19937_64& rng, const InputOptions& opt) {
  if (!opt.range) return Value::of_bits(t, rng());  // the low bits: uniform over t
  // The range clipped to t (a cast would wrap out-of-range bounds instead).
  auto clipped = [t](double d) {
    const int w = size_of(t) * 8;
    const bool sgn = kind_of(t) == Kind::Signed;
    const double top = std::ldexp(1.0, sgn ? w - 1 : w), bottom = sgn ? -top : 0.0;
    if (d >= top) return Value::of_bits(t, sgn ? (std::uint64_t{1} << (w - 1)) - 1 : ~std::uint64_t{0});
    if (d < bottom) return Value::of_bits(t, sgn ? std::uint64_t{1} << (w - 1) : 0);
    return Value::of(t, d);
  };
  const std::uint64_t lo = clipped(opt.range->first).int_bits();
  const std::uint64_t hi = clipped(opt.range->second).int_bits();
  const std::uint64_t span = hi - lo + 1;  // modular: 0 means all 2^64 values
  const std::uint64_t r = rng();
  return Value::of_bits(t, lo + (span == 0 ? r : r % span));
}

}  // namespace

std::vector<Value> edge_values(DType t, const InputOptions& opt) {
  std::vector<Value> out;
  switch (kind_of(t)) {
    case Kind::Bool:
      return {Value(false), Value(true)};
    case Kind::Signed:
    case Kind::Unsigned:
      return integer_edges(t);
    case Kind::Float:
      break;
  }
  if (t == DType::Float32) {
    for (float x : float_edges<float>()) {
      if (allowed_float(x, opt)) add_unique(out, Value(x));
    }
  } else {
    for (double x : float_edges<double>()) {
      if (allowed_float(x, opt)) add_unique(out, Value(x));
    }
  }
  return out;
}

Value random_value(DType t, std::mt19937_64& rng, const InputOptions& opt) {
  switch (kind_of(t)) {
    case Kind::Bool: return Value((rng() & 1) != 0);
    case Kind::Signed: case Kind::Unsigned: return random_integer(t, rng, opt);
    case Kind::Float: break;
  }
  return t == DType::Float32 ? random_float<float>(rng, opt) : random_float<double>(rng, opt);
}

std::vector<Value> random_values(DType t, std::size_t n, std::uint64_t seed, const InputOptions& opt) {
  std::mt19937_64 rng(seed);
  const std::vector<Value> edges = edge_values(t, opt);
  std::vector<Value> out;
  out.reserve(n);
  const double share = std::clamp(opt.edge_fraction, 0.0, 1.0);
  const auto n_edges = edges.empty() ? std::size_t{0} : static_cast<std::size_t>(std::llround(share * n));
  const std::size_t start = edges.empty() ? 0 : below(rng, edges.size());
  for (std::size_t i = 0; i < n_edges; ++i) out.push_back(edges[(start + i) % edges.size()]);
  while (out.size() < n) out.push_back(random_value(t, rng, opt));
  // Fisher-Yates on raw engine output (std::shuffle's order is not portable).
  for (std::size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[below(rng, i)]);
  return out;
}

std::pair<std::vector<Value>, std::vector<Value>> edge_pairs(DType a, DType b, const InputOptions& opt) {
  const std::vector<Value> xs = edge_values(a, opt), ys = edge_values(b, opt);
  std::pair<std::vector<Value>, std::vector<Value>> out;
  out.first.reserve(xs.size() * ys.size());
  out.second.reserve(xs.size() * ys.size());
  for (const Value& x : xs) {
    for (const Value& y : ys) {
      out.first.push_back(x);
      out.second.push_back(y);
    }
  }
  return out;
}

std::uint64_t test_seed(std::uint64_t fallback) {
  const char* env = std::getenv("FUSECL_TEST_SEED");
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(env, &end, 0);
  // A typo must not silently run the default inputs instead.
  if (end == nullptr || *end != '\0') throw std::invalid_argument("FUSECL_TEST_SEED=" + std::string(env) + " is not a number");
  return seed;
}

std::string seed_message(std::uint64_t seed) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "inputs from seed 0x%llx; rerun with FUSECL_TEST_SEED=0x%llx",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  return buf;
}

}  // namespace fusecl::test
