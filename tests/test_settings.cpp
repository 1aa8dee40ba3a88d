// fusecl's environment variables: a bad value gets exactly one warning that
// names the variable, the value and what is used instead; a good one none.
// Each setting is read once per process, so each case runs in a child process.
#include "support/cache_test_support.hpp"

#include <fusecl/fusecl.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using Catch::Matchers::Contains;
using fusecl::test::run_this_test_binary;

// The child: touches every setting (device, vector width, graph bound, fusion,
// pool, disk cache) and checks its answers.
TEST_CASE("settings child: evaluate with the environment as given", "[.settings_child]") {
  std::vector<float> h(1000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(i % 17) - 8.0f;
  auto x = fusecl::from_host(h);
  const auto y = (x * 2.0f + 1.0f).to_host();
  for (std::size_t i = 0; i < h.size(); ++i) REQUIRE(y[i] == h[i] * 2.0f + 1.0f);
  float expect = 0;
  for (float v : h) expect += v;
  CHECK(fusecl::sum(x).to_host()[0] == expect);
}

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

fusecl::test::CommandResult child(const std::string& env) {
  // The variables under test start unset, whatever the caller's environment holds.
  const std::string clean =
      "-u FUSECL_VECTOR_BYTES -u FUSECL_MAX_FUSED_OPS -u FUSECL_FUSION -u FUSECL_POOL_MAX_BYTES -u FUSECL_REDUCE_TWO_KERNELS ";
  return run_this_test_binary(clean + env, "[.settings_child]");
}

struct Bad {
  std::string var, value, problem, used;
};

}  // namespace

TEST_CASE("bad settings get one warning naming the variable, the value and what is used", "[settings]") {
  const std::vector<Bad> cases = {
      {"FUSECL_VECTOR_BYTES", "3", "is not a power of two", "; using "},
      {"FUSECL_VECTOR_BYTES", "abc", "is not a whole number from 1 to 128", "; using "},
      {"FUSECL_VECTOR_BYTES", "0", "is not a whole number from 1 to 128", "; using "},
      {"FUSECL_VECTOR_BYTES", "-8", "is not a whole number from 1 to 128", "; using "},
      {"FUSECL_VECTOR_BYTES", "1000", "is more than 128", "; using 128, the most allowed"},
      {"FUSECL_MAX_FUSED_OPS", "0", "is not a whole number from 2 to 4096", "; using 256 (the default)"},
      {"FUSECL_MAX_FUSED_OPS", "-1", "is not a whole number from 2 to 4096", "; using 256 (the default)"},
      {"FUSECL_MAX_FUSED_OPS", "abc", "is not a whole number from 2 to 4096", "; using 256 (the default)"},
      {"FUSECL_MAX_FUSED_OPS", "1000000000", "is more than 4096", "; using 4096, the most allowed"},
      {"FUSECL_MAX_FUSED_OPS", "99999999999999999999999", "is more than 4096", "; using 4096, the most allowed"},
      {"FUSECL_FUSION", "maybe", "is not one of 1, on, true, yes, 0, off, false, no", "; using 1 (on)"},
      {"FUSECL_REDUCE_TWO_KERNELS", "2", "is not one of 1, on, true, yes, 0, off, false, no", "; using 0 (off)"},
      {"FUSECL_POOL_MAX_BYTES", "lots", "is not a size like 268435456, 512M or 2G", ", a quarter of the device's memory"},
  };
  for (const Bad& c : cases) {
    INFO(c.var << "=" << c.value);
    const auto r = child(c.var + "=" + fusecl::test::shell_quote(c.value));
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
    const std::string head = "fusecl: warning: " + c.var + "='" + c.value + "' ";
    CHECK(count(r.err, head) == 1);
    CHECK_THAT(r.err, Contains(head + c.problem) && Contains(c.used));
    CHECK(count(r.err, "fusecl: warning:") == 1);
  }
}

TEST_CASE("good settings and empty ones give no warning", "[settings]") {
  for (const std::string env : {"FUSECL_VECTOR_BYTES=16", "FUSECL_VECTOR_BYTES=4", "FUSECL_MAX_FUSED_OPS=100",
                                "FUSECL_MAX_FUSED_OPS=4096", "FUSECL_FUSION=0", "FUSECL_FUSION=off", "FUSECL_FUSION=ON",
                                "FUSECL_POOL_MAX_BYTES=512M", "FUSECL_POOL_MAX_BYTES=0", "FUSECL_POOL_MAX_BYTES=",
                                "FUSECL_VECTOR_BYTES=", "FUSECL_MAX_FUSED_OPS=", "FUSECL_FUSION=", "FUSECL_REDUCE_TWO_KERNELS=1"}) {
    INFO(env);
    const auto r = child(env);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(count(r.err, "fusecl: warning:") == 0);
  }
}

TEST_CASE("an empty FUSECL_CACHE_DIR is reported and the default folder used", "[settings]") {
  fusecl::test::TempDir home;
  const auto r = child("-u XDG_CACHE_HOME FUSECL_CACHE_DIR= HOME=" + fusecl::test::shell_quote(home.path().string()));
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "fusecl: warning: FUSECL_CACHE_DIR is set but empty; using " +
                         (home.path() / ".cache" / "fusecl").string()) == 1);
}
