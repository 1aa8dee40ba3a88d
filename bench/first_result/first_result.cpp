// Time to first result in a fresh process: from the start of main — device
// discovery, context, upload, kernel build or cache load, launch, download —
// to the answer on the host. Run it twice with one FUSECL_CACHE_DIR to see the
// disk cache (bench/first_result/run.sh does that under each driver setting).
// Prints one JSON object.
//
//   fusecl-first-result [ELEMENTS [demo|ten]]
//     demo  the README's expression over constant inputs (the default)
//     ten   a ten-expression script: ten different expressions of two inputs,
//           each read back to the host as a script would print it, so ten
//           kernel shapes (and more kernels: the reductions) to build on a
//           first run. numpy_first_result.py is the same script in NumPy;
//           "value" is a checksum both print, to show they computed the same.
#include <fusecl/fusecl.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Inputs that differ element by element (so that no device shortcut applies)
// and that numpy_first_result.py makes identically.
void ten_inputs(std::size_t n, std::vector<float>& hx, std::vector<float>& hy) {
  hx.resize(n);
  hy.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = float(i % 1000) / 250.0f - 2.0f;
    hy[i] = float(i % 777) / 388.5f - 1.0f;
  }
}

// The ten expressions; the checksum adds element n/3 of each array result and
// each reduction's value.
double ten_expressions(const fusecl::Array<float>& x, const fusecl::Array<float>& y, std::size_t n) {
  double check = 0;
  auto at = [&](const fusecl::Array<float>& a) { return double(a.to_host()[n / 3]); };
  auto scalar = [](const auto& a) { return double(a.to_host()[0]); };
  check += at(fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f);
  check += at(x * 2.0f + 1.0f);
  check += at(2.5f * x + y);
  check += scalar(fusecl::sum(x * x));
  check += scalar(fusecl::mean(y));
  check += at(fusecl::where(x > 0.0f, x, 0.1f * x));
  check += at(fusecl::tanh(x) * y);
  check += at(fusecl::clip(x, -1.0f, 1.0f));
  check += at(fusecl::log1p(fusecl::abs(x)));
  check += scalar(fusecl::max(x) - fusecl::min(y));
  return check;
}

}  // namespace

int main(int argc, char** argv) try {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = argc > 1 ? std::size_t(std::atoll(argv[1])) : 1 << 20;
  const std::string program = argc > 2 ? argv[2] : "demo";
  if (program != "demo" && program != "ten") {
    std::fprintf(stderr, "first_result: unknown program '%s' (demo or ten)\n", program.c_str());
    return 2;
  }
  std::vector<float> hx(n, 0.5f), hy(n, 1.5f);
  if (program == "ten") ten_inputs(n, hx, hy);
  auto x = fusecl::from_host(hx);
  auto y = fusecl::from_host(hy);
  const auto t_ready = std::chrono::steady_clock::now();
  double value = 0;
  if (program == "demo") {
    auto z = fusecl::sqrt(x * x + y * y) * fusecl::sin(x) + fusecl::exp(-y) * 0.5f;
    value = z.to_host()[0];
  } else {
    value = ten_expressions(x, y, n);
  }
  const auto t1 = std::chrono::steady_clock::now();
  const auto s = fusecl::stats();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("{\"program\": \"%s\", \"device\": \"%s\", \"driver\": \"%s\", \"elements\": %zu, \"total_ms\": %.2f, "
              "\"setup_ms\": %.2f, \"evaluate_ms\": %.2f, \"programs_built\": %llu, \"programs_loaded\": %llu, "
              "\"value\": %.6f}\n",
              program.c_str(), fusecl::device().name.c_str(), fusecl::device().driver_version.c_str(), n, ms(t0, t1),
              ms(t0, t_ready), ms(t_ready, t1), (unsigned long long)s.programs_built,
              (unsigned long long)s.programs_loaded, value);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "first_result: %s\n", e.what());
  return 1;
}
