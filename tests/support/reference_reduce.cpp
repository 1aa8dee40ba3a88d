// Reductions of the host reference evaluator (rules in reference.hpp).
#include "support/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace fusecl::test {

namespace {

using Wide = long double;

[[noreturn]] void reject(Op op, const std::string& why) {
  throw std::invalid_argument("ref_reduce(" + std::string(op_name(op)) + "): " + why);
}

// Sum of float values in long double with Neumaier's compensation, which
// keeps the rounding error of the whole sum near one long-double rounding
// whatever the order and cancellation. Infinities and NaN are tracked apart
// because the compensation term would turn inf - inf into NaN.
Wide float_sum(std::span<const Value> xs, DType out) {
  bool nan = false, pos_inf = false, neg_inf = false;
  Wide sum = 0, compensation = 0;
  bool first = true;
  for (const Value& x : xs) {
    const Wide y = cast(x, out).as<double>();
    if (std::isnan(y)) {
      nan = true;
    } else if (std::isinf(y)) {
      (y > 0 ? pos_inf : neg_inf) = true;
    } else if (first) {
      sum = y;  // start from the first element, not 0, so a sum of -0.0 stays -0.0
      first = false;
    } else {
      const Wide t = sum + y;
      compensation += std::fabs(sum) >= std::fabs(y) ? (sum - t) + y : (y - t) + sum;
      sum = t;
    }
  }
  if (nan || (pos_inf && neg_inf)) return std::numeric_limits<Wide>::quiet_NaN();
  if (pos_inf) return std::numeric_limits<Wide>::infinity();
  if (neg_inf) return -std::numeric_limits<Wide>::infinity();
  return compensation == 0 ? sum : sum + compensation;
}

Value wide_to(Wide w, DType out) {
  return out == DType::Float32 ? Value(static_cast<float>(w)) : Value(static_cast<double>(w));
}

Value sum(std::span<const Value> xs, DType out) {
  if (is_float(out)) return xs.empty() ? Value::of(out, 0) : wide_to(float_sum(xs, out), out);
  if (out == DType::Bool) return ref_reduce(Op::Any, xs, out);
  std::uint64_t acc = 0;
  for (const Value& x : xs) acc += cast(x, out).int_bits();
  return Value::of_bits(out, acc);
}

Value prod(std::span<const Value> xs, DType out) {
  if (is_float(out)) {
    if (xs.empty()) return Value::of(out, 1);
    Wide acc = cast(xs[0], out).as<double>();
    for (const Value& x : xs.subspan(1)) acc *= cast(x, out).as<double>();
    return wide_to(acc, out);
  }
  if (out == DType::Bool) return ref_reduce(Op::All, xs, out);
  std::uint64_t acc = 1;
  for (const Value& x : xs) acc *= cast(x, out).int_bits();
  return Value::of_bits(out, acc);
}

// Strict "a is more extreme than b" in their (shared) dtype, with NaN the
// most extreme of all, as np.argmin/np.argmax treat it.
bool more_extreme(Op op, const Value& a, const Value& b) {
  const bool want_less = op == Op::ArgMin;
  switch (kind_of(a.dtype())) {
    case Kind::Float: {
      const double x = a.as<double>(), y = b.as<double>();
      if (std::isnan(y)) return false;
      if (std::isnan(x)) return true;
      return want_less ? x < y : x > y;
    }
    case Kind::Unsigned: {
      const auto x = a.as<std::uint64_t>(), y = b.as<std::uint64_t>();
      return want_less ? x < y : x > y;
    }
    default: {
      const auto x = a.as<std::int64_t>(), y = b.as<std::int64_t>();
      return want_less ? x < y : x > y;
    }
  }
}

}  // namespace

Value ref_reduce(Op op, std::span<const Value> xs, DType out) {
  if (op_class(op) != OpClass::Reduce) reject(op, "not a reduction");
  for (const Value& x : xs) {
    if (x.dtype() != xs[0].dtype()) reject(op, "elements of different dtypes");
  }
  switch (op) {
    case Op::All:
    case Op::Any: {
      const bool all = op == Op::All;
      bool acc = all;
      for (const Value& x : xs) acc = all ? acc && x.truthy() : acc || x.truthy();
      return cast(Value(acc), out);
    }
    case Op::Sum: return sum(xs, out);
    case Op::Prod: return prod(xs, out);
    case Op::Mean: {
      if (!is_float(out)) reject(op, "needs a float out, not " + std::string(dtype_name(out)));
      if (xs.empty()) return wide_to(std::numeric_limits<Wide>::quiet_NaN(), out);
      return wide_to(float_sum(xs, out) / static_cast<Wide>(xs.size()), out);
    }
    case Op::Min:
    case Op::Max: {
      if (xs.empty()) reject(op, "empty input has no identity");
      // Fold with the elementwise op so that NaN and signed zeros behave
      // exactly as np.minimum/np.maximum do.
      const Op elementwise = op == Op::Min ? Op::Minimum : Op::Maximum;
      Value acc = cast(xs[0], out);
      for (const Value& x : xs.subspan(1)) acc = ref_binary(elementwise, acc, x, out);
      return acc;
    }
    case Op::ArgMin:
    case Op::ArgMax: {
      if (xs.empty()) reject(op, "empty input has no extreme");
      std::size_t best = 0;
      for (std::size_t i = 1; i < xs.size(); ++i) {
        if (more_extreme(op, xs[i], xs[best])) best = i;
      }
      return Value::of(out, static_cast<std::int64_t>(best));
    }
    default: break;
  }
  reject(op, "not a reduction");
}

}  // namespace fusecl::test
