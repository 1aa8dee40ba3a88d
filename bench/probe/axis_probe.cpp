// Reductions along one axis and what consumes them, timed on the device:
// softmax, layer norm and plain reductions of float32 arrays of any shape,
// to compare kernel layouts (and settings such as FUSECL_PAIR_KERNELS) on
// one machine. bench/torch_axis.py times the same cases in PyTorch.
//
//   fusecl-axis-probe CASE...      CASE: expression:shape:axis[:dtype], e.g. softmax:8192x8192:0
//
// Expressions: softmax (exp(x - max) / sum), layer_norm ((x - mean) /
// sqrt(var + 1e-5)), max, min, sum, var (each over the axis, kept), logsumexp,
// sum_exp, norm (sqrt(sum(x * x))), mean_scaled (mean * 2 + 1), rstd (1 /
// sqrt(var + 1e-5)), cv (std / mean, a moment kernel's two values), softmax_ln
// (softmax of a layer-normed row), normalize (x / sum), center (x - mean),
// softmax_out and scale (see expression()), argmax, argmin, any and all. x is uniform
// in [-4, 4), generated on the device. With a dtype other than f32 (f64, i32,
// i16, i8, u8), x is that array, cast from x * 16 (ints: truncated, so within
// [-64, 64), u8 within [0, 64)), and the plain reductions and argmax/argmin
// alone are offered: sum, max, min, var, mean_var (mean and var in one eval), argmax, argmin, to compare vector widths
// over other sizes of value. Each case is built and evaluated 20
// times, then the queue is finished; the median of 5 such rounds is the
// time per call (wall clock, host work included), printed with the kernels
// one evaluation launches.
#include <fusecl/fusecl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace fusecl;

namespace {

std::function<Array<float>(const Array<float>&, int)> expression(const std::string& name) {
  if (name == "softmax")
    return [](const Array<float>& x, int a) {
      const auto e = exp(x - max(x, a, true));
      return e / sum(e, a, true);
    };
  if (name == "layer_norm")
    return [](const Array<float>& x, int a) { return (x - mean(x, a, true)) / sqrt(var(x, a, true) + 1e-5f); };
  if (name == "softmax_ln")  // softmax of a layer-normed row
    return [](const Array<float>& x, int a) {
      const auto n = (x - mean(x, a, true)) / sqrt(var(x, a, true) + 1e-5f);
      const auto e = exp(n - max(n, a, true));
      return e / sum(e, a, true);
    };
  // One plain reduction and its use: a row's share and its deviation from the mean.
  if (name == "normalize") return [](const Array<float>& x, int a) { return x / sum(x, a, true); };
  if (name == "center") return [](const Array<float>& x, int a) { return x - mean(x, a, true); };
  if (name == "max") return [](const Array<float>& x, int a) { return max(x, a, true); };
  if (name == "min") return [](const Array<float>& x, int a) { return min(x, a, true); };
  if (name == "sum") return [](const Array<float>& x, int a) { return sum(x, a, true); };
  if (name == "var") return [](const Array<float>& x, int a) { return var(x, a, true); };
  // softmax's statistics alone (its pair kernel where rows are too long for
  // one kernel), and the same exp count without the running maximum.
  if (name == "logsumexp")
    return [](const Array<float>& x, int a) {
      const auto m = max(x, a, true);
      return log(sum(exp(x - m), a, true)) + m;
    };
  if (name == "sum_exp") return [](const Array<float>& x, int a) { return sum(exp(x), a, true); };
  // A reduction's consumer computed where it stores (src/reduce_finish.cpp;
  // FUSECL_REDUCE_FINISH=0: a kernel of its own): a norm, a scaled mean.
  if (name == "norm") return [](const Array<float>& x, int a) { return sqrt(sum(x * x, a, true)); };
  if (name == "mean_scaled") return [](const Array<float>& x, int a) { return mean(x, a, true) * 2.0f + 1.0f; };
  if (name == "rstd") return [](const Array<float>& x, int a) { return 1.0f / sqrt(var(x, a, true) + 1e-5f); };
  if (name == "cv") return [](const Array<float>& x, int a) { return stddev(x, a, true) / mean(x, a, true); };
  // softmax's output kernel alone, from statistics evaluated once per case
  // (its two-kernel form's second), and x * 2 beside it (the copy rate).
  if (name == "scale") return [](const Array<float>& x, int) { return x * 2.0f; };
  if (name == "softmax_out")
    return [](const Array<float>& x, int a) {
      // The statistics are evaluated once per shape and axis and kept (every
      // case's x of a shape holds the same values: the same seed).
      static std::vector<std::pair<Array<float>, Array<float>>> kept;
      static std::vector<std::pair<std::string, int>> keys;
      const std::pair<std::string, int> key{x.shape().str(), a};
      auto at = std::find(keys.begin(), keys.end(), key);
      if (at == keys.end()) {
        const auto m = max(x, a, true);
        const auto s = sum(exp(x - m), a, true);
        eval(m, s);
        keys.push_back(key);
        kept.emplace_back(m, s);
        at = keys.end() - 1;
      }
      const auto& [m, s] = kept[std::size_t(at - keys.begin())];
      return exp(x - m) / s;
    };
  return {};
}

// The case's evaluation: one of expression()'s, or an index reduction.
std::function<void(const Array<float>&, int)> evaluation(const std::string& name) {
  if (name == "argmax") return [](const Array<float>& x, int a) { eval(argmax(x, a, true)); };
  if (name == "argmin") return [](const Array<float>& x, int a) { eval(argmin(x, a, true)); };
  // Truth reductions: a few rows hold a value past 3.99 (any), most all values past -3.99 (all).
  if (name == "any") return [](const Array<float>& x, int a) { eval(any(x > 3.99f, a, true)); };
  if (name == "all") return [](const Array<float>& x, int a) { eval(all(x > -3.99f, a, true)); };
  if (auto f = expression(name)) return [f](const Array<float>& x, int a) { eval(f(x, a)); };
  return {};
}

// The plain reductions and index reductions over an array of T (the dtype field).
template <class T>
std::function<void(const Array<T>&, int)> typed_evaluation(const std::string& name) {
  if (name == "sum") return [](const Array<T>& x, int a) { eval(sum(x, a, true)); };
  if (name == "max") return [](const Array<T>& x, int a) { eval(max(x, a, true)); };
  if (name == "min") return [](const Array<T>& x, int a) { eval(min(x, a, true)); };
  if (name == "var") return [](const Array<T>& x, int a) { eval(var(x, a, true)); };
  // Both of them in one evaluation (one moment kernel where it takes them).
  if (name == "mean_var") return [](const Array<T>& x, int a) { eval(mean(x, a, true), var(x, a, true)); };
  if (name == "argmax") return [](const Array<T>& x, int a) { eval(argmax(x, a, true)); };
  if (name == "argmin") return [](const Array<T>& x, int a) { eval(argmin(x, a, true)); };
  return {};
}

// Times f over x (built and evaluated 20 times a round, 5 rounds) and prints the case's line.
template <class T, class F>
void time_case(const std::string& name, const std::string& dtype, const Array<T>& x, int axis, const F& f) {
  for (int w = 0; w < 3; ++w) f(x, axis);
  finish();
  reset_stats();
  f(x, axis);
  finish();
  const auto kernels = stats().kernels_launched;
  std::vector<double> rounds;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) f(x, axis);
    finish();
    const auto t1 = std::chrono::steady_clock::now();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 20);
  }
  std::sort(rounds.begin(), rounds.end());
  const std::string label = dtype == "f32" ? name : name + ":" + dtype;
  std::printf("%-10s %-16s axis %d: %9.1f us per call (best round %9.1f), %llu kernels\n", label.c_str(),
              x.shape().str().c_str(), axis, rounds[2], rounds[0], (unsigned long long)kernels);
  std::fflush(stdout);
}

// The case over x cast to T; false where the expression is not offered for other dtypes.
template <class T>
bool run_typed(const std::string& name, const std::string& dtype, const Array<float>& x, int axis) {
  const auto f = typed_evaluation<T>(name);
  if (!f) return false;
  const Array<T> xt = ((std::is_unsigned_v<T> ? abs(x) : x) * 16.0f).template astype<T>();
  eval(xt);
  time_case(name, dtype, xt, axis, f);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s expression:shape:axis[:dtype] ...  (e.g. softmax:8192x8192:0, sum:65536x40:1:i8)\n", argv[0]);
    return 2;
  }
  std::printf("# %s\n", default_device().info().name.c_str());
  for (int i = 1; i < argc; ++i) {
    std::string spec = argv[i];
    std::replace(spec.begin(), spec.end(), ':', ' ');
    std::istringstream in(spec);
    std::string name, shape_text, dtype = "f32";
    int axis = 0;
    in >> name >> shape_text >> axis;
    in >> dtype;
    std::vector<std::int64_t> dims;
    std::replace(shape_text.begin(), shape_text.end(), 'x', ' ');
    std::istringstream ds(shape_text);
    for (std::int64_t d; ds >> d;) dims.push_back(d);
    if (dims.empty() || axis < 0 || axis >= int(dims.size())) {
      std::fprintf(stderr, "bad case '%s'\n", argv[i]);
      return 2;
    }
    const Shape shape(dims);
    auto x = random::uniform<float>(shape, 7) * 8.0f - 4.0f;
    eval(x);
    bool ran = false;
    if (dtype == "f32") {
      if (const auto f = evaluation(name)) {
        time_case(name, dtype, x, axis, f);
        ran = true;
      }
    } else if (dtype == "f64") {
      ran = run_typed<double>(name, dtype, x, axis);
    } else if (dtype == "i32") {
      ran = run_typed<std::int32_t>(name, dtype, x, axis);
    } else if (dtype == "i16") {
      ran = run_typed<std::int16_t>(name, dtype, x, axis);
    } else if (dtype == "i8") {
      ran = run_typed<std::int8_t>(name, dtype, x, axis);
    } else if (dtype == "u8") {
      ran = run_typed<std::uint8_t>(name, dtype, x, axis);
    }
    if (!ran) {
      std::fprintf(stderr, "bad case '%s' (expression or dtype not offered)\n", argv[i]);
      return 2;
    }
  }
  return 0;
}
