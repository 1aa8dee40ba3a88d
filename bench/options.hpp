// Which array sizes the suite runs: flags of fusecl-bench, or the environment.
#pragma once

#include <string>
#include <vector>

namespace fusecl_bench {

struct Options {
  int min_log2 = 10;  // smallest size: 2^min_log2 elements
  int max_log2 = 22;  // largest size (the default depends on the device, see parse_options)
  int log2_step = 2;  // sizes min, min + step, ..., and always max itself
  std::string max_log2_source;  // how max_log2 was chosen, for the JSON context
  std::string check_out;        // where fused_device writes result fingerprints (check_log.hpp); empty: nowhere

  /// 2^k for every size the suite runs, smallest first.
  std::vector<int> log2_sizes() const;
};

/// Reads and removes fusecl-bench's own flags from argv (Google Benchmark's
/// have already been removed by benchmark::Initialize):
///
///   --min_log2=N   FUSECL_BENCH_MIN_LOG2   default 10
///   --max_log2=N   FUSECL_BENCH_MAX_LOG2   default 22 on CPU devices, 26 otherwise
///   --log2_step=N  FUSECL_BENCH_LOG2_STEP  default 2
///   --check_out=FILE  FUSECL_BENCH_CHECK_OUT  fingerprints of fusecl's results (check_log.hpp)
///
/// A flag wins over the variable. The largest size is lowered, with a note on
/// stderr, to what one device buffer can hold (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
/// Throws std::invalid_argument for a value that is not a whole number in range.
Options parse_options(int* argc, char** argv);

/// The usage text of those flags, for --help.
const char* options_help();

}  // namespace fusecl_bench
