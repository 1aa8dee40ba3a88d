#include "bench/options.hpp"

#include <fusecl/device.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace fusecl_bench {

namespace {

// The largest size any workload uses; 2^30 floats (4 GiB per array) is past
// what the suite is meant for and past what the C++ loop way can hold.
constexpr int kLimitLog2 = 30;

int parse_int(std::string_view what, std::string_view text, int lo, int hi) {
  int v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi)
    throw std::invalid_argument(std::string(what) + "=\"" + std::string(text) + "\": expected a whole number from " +
                                std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

// `--name=VALUE` from argv (the last one wins, as with Google Benchmark's
// flags); every occurrence is removed so that the remaining arguments can be
// checked for typos by benchmark::ReportUnrecognizedArguments.
std::optional<std::string> take_flag(int* argc, char** argv, std::string_view name) {
  std::optional<std::string> value;
  const std::string prefix = "--" + std::string(name) + "=";
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) value = argv[i] + prefix.size();
    else argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = nullptr;
  return value;
}

std::optional<int> setting(int* argc, char** argv, std::string_view flag, const char* env, int lo, int hi) {
  if (auto v = take_flag(argc, argv, flag)) return parse_int("--" + std::string(flag), *v, lo, hi);
  if (const char* e = std::getenv(env); e && *e) return parse_int(env, e, lo, hi);
  return std::nullopt;
}

}  // namespace

std::vector<int> Options::log2_sizes() const {
  std::vector<int> out;
  for (int k = min_log2; k < max_log2; k += log2_step) out.push_back(k);
  out.push_back(max_log2);  // the largest size is what the summary quotes: never skip it
  return out;
}

Options parse_options(int* argc, char** argv) {
  Options o;
  const auto min = setting(argc, argv, "min_log2", "FUSECL_BENCH_MIN_LOG2", 10, kLimitLog2);
  const auto max = setting(argc, argv, "max_log2", "FUSECL_BENCH_MAX_LOG2", 10, kLimitLog2);
  const auto step = setting(argc, argv, "log2_step", "FUSECL_BENCH_LOG2_STEP", 1, kLimitLog2);
  if (min) o.min_log2 = *min;
  if (auto v = take_flag(argc, argv, "check_out")) o.check_out = *v;
  else if (const char* e = std::getenv("FUSECL_BENCH_CHECK_OUT")) o.check_out = e;
  if (step) o.log2_step = *step;

  const auto& dev = fusecl::device();
  if (max) {
    o.max_log2 = *max;
    o.max_log2_source = "given";
  } else {
    // A CPU device shares the host's two or so cores with the C++ loop way
    // and is an order of magnitude slower than a GPU: 2^22 keeps a whole run
    // within minutes there, while GPUs only reach their bandwidth past 2^24.
    o.max_log2 = dev.type == "CPU" ? 22 : 26;
    o.max_log2_source = "default for a " + dev.type + " device";
  }
  // One float array must fit in one device buffer.
  while (o.max_log2 > 10 && (std::uint64_t(4) << o.max_log2) > dev.max_alloc_bytes) --o.max_log2;
  if (max && o.max_log2 != *max) {
    std::fprintf(stderr, "fusecl-bench: largest size lowered to 2^%d: device '%s' allocates at most %llu bytes at once\n",
                 o.max_log2, dev.name.c_str(), static_cast<unsigned long long>(dev.max_alloc_bytes));
    o.max_log2_source += ", lowered to the device's largest allocation";
  }
  if (o.min_log2 > o.max_log2) o.min_log2 = o.max_log2;
  return o;
}

const char* options_help() {
  return "fusecl-bench sizes (flags win over the environment):\n"
         "  --min_log2=N   (FUSECL_BENCH_MIN_LOG2)   smallest size 2^N elements, default 10\n"
         "  --max_log2=N   (FUSECL_BENCH_MAX_LOG2)   largest size 2^N, default 22 on CPU devices, 26 on others\n"
         "  --log2_step=N  (FUSECL_BENCH_LOG2_STEP)  sizes min, min+N, ..., and max; default 2\n"
         "  --check_out=FILE (FUSECL_BENCH_CHECK_OUT) write samples and sums of fusecl's results, one JSON\n"
         "                 line per case, for bench/host_frameworks.py to check NumPy and numexpr against\n"
         "Benchmarks are named BM_<workload>/<way>/<log2 size>; select them with --benchmark_filter.\n"
         "The device is chosen by FUSECL_DEVICE (see fusecl-info).\n\n";
}

}  // namespace fusecl_bench
