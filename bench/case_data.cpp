#include "bench/case_data.hpp"

#include <utility>

namespace fusecl_bench {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

void fill_uniform(host::HostArray<float>& out, float lo, float hi, std::uint64_t seed) {
  std::uint64_t state = seed;
  float* o = out.data();
  const std::int64_t n = out.size();
  const float span = hi - lo;
  for (std::int64_t i = 0; i < n; ++i) {
    // The top 24 bits give a float in [0, 1) exactly.
    const float u = float(splitmix64(state) >> 40) * 0x1.0p-24f;
    o[i] = lo + span * u;
  }
}

void replace_held_case(std::function<void()> release_new) {
  static std::function<void()> release_held;
  if (release_held) release_held();
  release_held = std::move(release_new);
}

}  // namespace fusecl_bench
