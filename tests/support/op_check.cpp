#include "support/op_check.hpp"

#include "support/ulp.hpp"

#include "src/launch.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <set>
#include <utility>

namespace fusecl::test {

std::size_t with_tail(std::size_t n) {
  while (n % 16 != 13) ++n;
  return n;
}

std::uint64_t case_seed(std::uint64_t base, const std::string& name) {
  // FNV-1a of the name, then a splitmix64 step mixing in the base seed:
  // fixed arithmetic, so the same everywhere.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  std::uint64_t z = base + h + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

InputOptions device_input_options() {
  InputOptions opt;
  opt.denormals = device().denormals;
  return opt;
}

bool dtype_available(DType t) { return t != DType::Float64 || device().fp64; }

namespace {

bool is_zero(const Value& v) { return is_float(v.dtype()) && v.as<double>() == 0.0; }

bool is_subnormal(const Value& v) {
  if (v.dtype() == DType::Float32) return std::fpclassify(v.as<float>()) == FP_SUBNORMAL;
  if (v.dtype() == DType::Float64) return std::fpclassify(v.as<double>()) == FP_SUBNORMAL;
  return false;
}

}  // namespace

bool value_matches(DType t, const Value& got, const Value& want, Tolerance tol) {
  if (got.dtype() != t || want.dtype() != t) return false;
  const bool flush = !device().denormals;
  if (!is_float(t)) return got == want;
  if (got == want) return true;  // bit-exact (all NaNs equal)
  if (flush && is_subnormal(want) && is_zero(got)) return true;
  if (tol.ulps == 0) {
    // Exact op: only the zero-sign leeway where the caller allows it.
    return tol.zero_sign_free && is_zero(got) && is_zero(want);
  }
  return close_enough(t, got, want, tol.ulps, flush, tol.floor);
}

Comparison compare_values(const std::string& what, DType t, const std::vector<Value>& got,
                          const std::vector<Value>& want, Tolerance tol,
                          const std::function<std::string(std::size_t)>& describe, const std::vector<char>* skip,
                          const Excuse& excuse) {
  Comparison c;
  if (got.size() != want.size()) {
    c.failure = what + ": device gave " + std::to_string(got.size()) + " values, reference " + std::to_string(want.size());
    return c;
  }
  std::size_t bad = 0, excused = 0;
  std::string first, reasons;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (skip && (*skip)[i]) continue;
    if (value_matches(t, got[i], want[i], tol)) continue;
    if (const char* why = excuse ? excuse(i, got[i]) : nullptr) {
      if (++excused == 1) reasons = std::string(why) + "; e.g. [" + std::to_string(i) + "] " + describe(i) + " -> device " +
                                    got[i].to_string() + ", reference " + want[i].to_string();
      continue;
    }
    if (++bad <= 8)
      first += "\n    [" + std::to_string(i) + "] " + describe(i) + " -> device " + got[i].to_string() + ", reference " +
               want[i].to_string();
  }
  if (excused > 0)
    c.excused = what + ": " + std::to_string(excused) + " element(s) off by a known device defect: " + reasons;
  if (bad == 0) return c;
  char tolerance[64];
  std::snprintf(tolerance, sizeof tolerance, "%g ulp", tol.ulps);
  c.failure = what + ": " + std::to_string(bad) + " of " + std::to_string(got.size()) + " elements differ (tolerance " +
              tolerance + (tol.ulps == 0 && !tol.zero_sign_free && is_float(t) ? ", signed zeros exact" : "") + ")" +
              first + (bad > 8 ? "\n    ..." : "");
  return c;
}

namespace {

bool strict_device() {
  const char* v = std::getenv("FUSECL_TEST_STRICT_DEVICE");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

bool on_pocl() { return device().platform_name.find("Portable Computing Language") != std::string::npos; }

}  // namespace

const char* known_device_defect(Op op, DType t, const std::vector<const std::vector<Value>*>& args, std::size_t i,
                                const Value& got) {
  static const bool active = !strict_device() && on_pocl();
  if (!active || args.empty()) return nullptr;
  const std::vector<Value>& x = *args[0];
  // (PoCL 3.1's float64 pow on a double8 is wrong in lanes 4..7 for
  // subnormal operands, and its fmod in some lanes: fusecl computes pow on
  // double4 halves and % and floor_divide without fmod, so neither is excused.)
  // PoCL 3.1, float64 exp (scalar and vector): exp(709.78271289338397), the
  // largest double whose exp is finite (1.7976931348622732e308), gives inf.
  //   out[0] = exp(in[0]);  // in[0] = 709.78271289338397
  if (op == Op::Exp && t == DType::Float64 && got.dtype() == DType::Float64 && std::isinf(got.as<double>())) {
    const double v = x[i].as<double>();
    if (v > 709.78 && v < 709.79) return "PoCL float64 exp overflows to inf just below log(DBL_MAX)";
  }
  return nullptr;
}

std::vector<std::size_t> lane_blocks(std::size_t n) {
  std::vector<std::size_t> idx;
  idx.reserve(16 * n + 7);
  for (std::size_t i = 0; i < n; ++i) idx.insert(idx.end(), 16, i);
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 7); ++i) idx.push_back(i);
  return idx;
}

std::vector<Value> moderate_values(DType t, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Value> out;
  out.reserve(n);
  if (t == DType::Bool) return std::vector<Value>(n, Value(true));
  if (!is_float(t)) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto magnitude = static_cast<std::int64_t>(rng() % 16) + 1;  // [1, 16]
      const bool negative = kind_of(t) == Kind::Signed && (rng() & 1);
      out.push_back(Value::of(t, negative ? -magnitude : magnitude));
    }
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) {
    double magnitude = 0;
    switch (rng() % 3) {
      case 0: {
        const double mantissa = 1.0 + static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [1, 2)
        magnitude = std::ldexp(mantissa, static_cast<int>(rng() % 34) - 30);            // [2^-30, 16)
        break;
      }
      case 1: magnitude = static_cast<double>(rng() % 63 + 1) * 0.25; break;  // [1/4, 16)
      default: magnitude = static_cast<double>(rng() % 16 + 1); break;        // [1, 16]
    }
    out.push_back(Value::of(t, (rng() & 1) ? -magnitude : magnitude));
  }
  return out;
}

VectorWidth::VectorWidth(int element_bytes, int width) { detail::set_vector_bytes(element_bytes * width); }
VectorWidth::~VectorWidth() { detail::set_vector_bytes(0); }

std::string Batch::evaluate() {
  const Stats before = stats();
  try {
    detail::evaluate_nodes(nodes_);
    finish();
    kernels_ = stats().kernels_launched - before.kernels_launched;
    return "";
  } catch (const std::exception& e) {
    std::string report = std::string("evaluating ") + std::to_string(nodes_.size()) + " outputs together threw: " + e.what();
    // Pinpoint: each output on its own (a kernel each; slow, failures only,
    // and once per distinct error: later runs of the same kernel say so).
    static std::set<std::string> diagnosed;
    if (!diagnosed.insert(e.what()).second) return report + "\n  (outputs that fail alone: as reported above)";
    for (const Entry& en : entries_) {
      try {
        detail::evaluate_nodes({en.node});
        finish();
      } catch (const std::exception& e1) {
        report += "\n  alone, " + en.name + " (" + std::string(dtype_name(en.dtype)) + ") throws: " + e1.what();
      }
    }
    return report;
  }
}

std::string describe_inputs(const std::vector<std::pair<const char*, const std::vector<Value>*>>& inputs,
                            std::size_t i) {
  std::string s;
  for (const auto& [name, values] : inputs) {
    if (!s.empty()) s += ' ';
    s += std::string(name) + "=" + (*values)[i].to_string();
  }
  return s;
}

}  // namespace fusecl::test
