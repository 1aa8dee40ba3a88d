// Catch2's session, then the default device's queue drained before the
// process exits: PoCL compiles a kernel when it first runs, and a compile
// still going on at exit can abort in LLVM's teardown (README, Lifetime),
// which a run of many test cases in one process met ("Failed to create
// kernel compiler pass inline-kernels", or a segfault, after every case had
// passed). Listing the tests opens no device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (const int bad = session.applyCommandLine(argc, argv)) return bad;
  const int failed = session.run();
  const Catch::Config& c = session.config();
  if (c.listTests() || c.listTestNamesOnly() || c.listTags() || c.listReporters()) return failed;
  try {
    fusecl::finish();
  } catch (const std::exception& e) {
    // No device to drain (none at all): nothing is queued.
    (void)e;
  }
  return failed;
}
