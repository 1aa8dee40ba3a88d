// Reductions along one axis and what consumes them, timed on the device:
// softmax, layer norm and plain reductions of float32 arrays of any shape,
// to compare kernel layouts (and settings such as FUSECL_PAIR_KERNELS) on
// one machine. bench/torch_axis.py times the same cases in PyTorch.
//
//   fusecl-axis-probe CASE...      CASE: expression:shape:axis, e.g. softmax:8192x8192:0
//
// Expressions: softmax (exp(x - max) / sum), layer_norm ((x - mean) /
// sqrt(var + 1e-5)), max, sum, var (each over the axis, kept), logsumexp,
// sum_exp, softmax_ln (softmax of a layer-normed row), normalize (x / sum), center (x - mean),
// softmax_out and scale (see expression()), argmax, argmin, any and all. x is uniform
// in [-4, 4), generated on the device. Each case is built and evaluated 20
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s expression:shape:axis ...  (e.g. softmax:8192x8192:0)\n", argv[0]);
    return 2;
  }
  std::printf("# %s\n", default_device().info().name.c_str());
  for (int i = 1; i < argc; ++i) {
    std::string spec = argv[i];
    std::replace(spec.begin(), spec.end(), ':', ' ');
    std::istringstream in(spec);
    std::string name, shape_text;
    int axis = 0;
    in >> name >> shape_text >> axis;
    const auto f = evaluation(name);
    std::vector<std::int64_t> dims;
    std::replace(shape_text.begin(), shape_text.end(), 'x', ' ');
    std::istringstream ds(shape_text);
    for (std::int64_t d; ds >> d;) dims.push_back(d);
    if (!f || dims.empty() || axis < 0 || axis >= int(dims.size())) {
      std::fprintf(stderr, "bad case '%s'\n", argv[i]);
      return 2;
    }
    const Shape shape(dims);
    auto x = random::uniform<float>(shape, 7) * 8.0f - 4.0f;
    eval(x);
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
    std::printf("%-10s %-16s axis %d: %9.1f us per call (best round %9.1f), %llu kernels\n", name.c_str(), shape.str().c_str(), axis,
                rounds[2], rounds[0], (unsigned long long)kernels);
    std::fflush(stdout);
  }
  return 0;
}
