#include "bench/check_log.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace fusecl_bench {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::unique_ptr<std::FILE, FileCloser>& check_file() {
  static std::unique_ptr<std::FILE, FileCloser> file;
  return file;
}

// JSON has no NaN or infinity; null says "not a number" without breaking the file.
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

}  // namespace

void set_check_out(const std::string& path) {
  if (path.empty()) {
    check_file().reset();
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("--check_out: cannot write '" + path + "'");
  check_file().reset(f);
}

bool check_out_enabled() { return check_file() != nullptr; }

std::vector<std::int64_t> sample_indices(std::int64_t n) {
  constexpr std::int64_t k = 97;
  std::vector<std::int64_t> out;
  if (n <= 0) return out;
  if (n <= k) {
    for (std::int64_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (std::int64_t j = 0; j < k; ++j) out.push_back(j * (n - 1) / (k - 1));
  return out;
}

std::string fingerprint_json(const std::vector<double>& values) {
  double sum = 0, abs_sum = 0;
  for (double v : values) {
    sum += v;
    abs_sum += std::abs(v);
  }
  std::vector<std::string> samples;
  for (std::int64_t i : sample_indices(std::int64_t(values.size()))) samples.push_back(number(values[std::size_t(i)]));
  return "{\"n\": " + std::to_string(values.size()) + ", \"sum\": " + number(sum) + ", \"abs_sum\": " + number(abs_sum) +
         ", \"samples\": " + json_list(samples) + "}";
}

void write_check_line(const std::string& workload, int log2, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& results) {
  std::FILE* f = check_file().get();
  if (!f) return;
  const std::string line = "{\"workload\": " + json_string(workload) + ", \"log2\": " + std::to_string(log2) +
                           ", \"inputs\": " + json_list(inputs) + ", \"results\": " + json_list(results) + "}\n";
  if (std::fputs(line.c_str(), f) < 0 || std::fflush(f) != 0) throw std::runtime_error("--check_out: write failed");
}

}  // namespace fusecl_bench
