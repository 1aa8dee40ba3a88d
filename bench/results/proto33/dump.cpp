#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "tests/support/device_rows.hpp"
#include "tests/support/schedule_run.hpp"
#include <fusecl/fusecl.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
using namespace fusecl;
int main(int argc, char** argv) {
  const std::string what = argv[1];
  const std::int64_t rows = std::atoll(argv[2]), m = std::atoll(argv[3]);
  auto x = from_host(std::vector<float>(std::size_t(rows * m), 0.5f), {rows, m});
  auto& dev = *x.node()->device;
  auto t = test::h200_tuning(dev, 256);
  t.row_reciprocal = true; if (getenv("STAGE")) t.row_stage = atoi(getenv("STAGE")); if (getenv("EPI")) t.elements_per_item = atoi(getenv("EPI")); if (getenv("NOSKEW")) t.row_skew = false; t.row_warp = std::getenv("WARP") ? std::atoi(std::getenv("WARP")) : 32;
  Array<float> y = x;
  if (what == "softmax") { auto e = exp(x - max(x, 1, true)); y = e / sum(e, 1, true); }
  else if (what == "ln") y = (x - mean(x, 1, true)) / sqrt(var(x, 1, true) + 1e-5f);
  auto s = test::schedule_with(y, t);
  for (auto& st : s.steps) { std::printf("%s\n", codegen::render(st.kernel.plan, "k").c_str()); }
}
