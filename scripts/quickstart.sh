#!/usr/bin/env bash
# From a fresh Debian 12 checkout to a running fusecl, in one command:
#
#   scripts/quickstart.sh demo    install missing packages, build (Release, in
#                                 build/), run build/examples/demo, then fusecl
#                                 against NumPy and numexpr (compare.sh --short)
#   scripts/quickstart.sh test    same build (plus oclgrind), then run the whole
#                                 test suite with ctest; exits non-zero if any
#                                 test fails
#   scripts/quickstart.sh sanitize  the tests again, built with AddressSanitizer
#                                 and UndefinedBehaviorSanitizer in build-asan/
#   scripts/quickstart.sh tsan    the tests tagged [threads] or [devices], built
#                                 with ThreadSanitizer in build-tsan/
#   scripts/quickstart.sh bench   same build (plus gnuplot, NumPy, numexpr), then bench/compare.sh;
#                                 further arguments go to compare.sh
#
# Builds use every core (nproc). Re-running only rebuilds what changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'quickstart: %s\n' "$*"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

jobs=$(nproc)

# The sanitizer trees' test cases share the Release tree's kernel cache where
# `test` has filled it (tests/CMakeLists.txt says why), else their own.
# Passed every time, so that a tree configured earlier follows build/.
kernel_cache_for() {
  if [[ -d build/test-kernel-cache ]]; then
    printf '%s' "-DFUSECL_TEST_KERNEL_CACHE=$PWD/build/test-kernel-cache"
  else
    printf '%s' "-DFUSECL_TEST_KERNEL_CACHE=$PWD/$1/test-kernel-cache"
  fi
}

# Options are passed every time so that a build/ configured differently
# earlier (say, Debug or without tests) is brought back to what this
# command needs instead of silently giving another result.
build() {
  build_in build Release "$@"
}
build_in() {
  local dir=$1 type=$2
  shift 2
  log "configuring $dir/ ($type)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" "$@"
  log "building with $jobs job(s)"
  cmake --build "$dir" -j"$jobs"
}

command=${1:-}
if (($# > 0)); then shift; fi

case "$command" in
  demo)
    [[ -f examples/demo.cpp ]] || die "examples/demo.cpp does not exist in this checkout; nothing was done."
    ./scripts/setup.sh --numpy  # the short comparison times NumPy and numexpr beside fusecl
    build -DFUSECL_BUILD_EXAMPLES=ON
    log "running build/examples/demo"
    ./build/examples/demo "$@"
    log "running the short benchmark comparison (bench/compare.sh --short)"
    bench/compare.sh --short
    ;;
  test)
    ./scripts/setup.sh --test
    build -DFUSECL_BUILD_TESTS=ON
    log "running the tests with $jobs job(s)"
    # --no-tests=error: a build that found no tests must not pass as green.
    ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs"
    ;;
  sanitize)
    ./scripts/setup.sh --test
    # RelWithDebInfo: optimized (the suite runs in minutes, not tens of
    # minutes) with the line numbers the sanitizers' reports need.
    build_in build-asan RelWithDebInfo -DFUSECL_SANITIZE=ON -DFUSECL_BUILD_TESTS=ON \
      -DFUSECL_BUILD_BENCH=OFF -DFUSECL_BUILD_EXAMPLES=OFF "$(kernel_cache_for build-asan)"
    log "running the tests under the sanitizers with $jobs job(s)"
    ctest --test-dir build-asan --output-on-failure --no-tests=error -j"$jobs"
    ;;
  tsan)
    ./scripts/setup.sh --test
    # A tree of its own: ThreadSanitizer cannot be combined with ASan in one
    # build. RelWithDebInfo for the same reason as sanitize's.
    build_in build-tsan RelWithDebInfo -DFUSECL_SANITIZE=thread -DFUSECL_BUILD_TESTS=ON \
      -DFUSECL_BUILD_BENCH=OFF -DFUSECL_BUILD_EXAMPLES=OFF "$(kernel_cache_for build-tsan)"
    # Only the tests that run fusecl from several threads or on several
    # devices, where races can be; they still run through ctest, which gives
    # them TSAN_OPTIONS with tests/tsan.supp (tests/CMakeTests.cmake). ctest
    # selects by name, so the tag expression becomes an exact-name regex (each
    # regex character in a name escaped).
    tags='[threads],[devices]'
    # Catch2 2 exits with the number of tests it listed, so its status says
    # nothing; an empty list is the failure to catch.
    names=$(build-tsan/tests/fusecl_tests --list-test-names-only "$tags" | sed '/^$/d' || true)
    [[ -n "$names" ]] || die "no test case is tagged $tags"
    regex="^($(sed 's/[][\\.*+?^$(){}|]/\\&/g' <<<"$names" | paste -sd '|'))\$"
    log "running the tests tagged $tags under ThreadSanitizer with $jobs job(s)"
    ctest --test-dir build-tsan --output-on-failure --no-tests=error -j"$jobs" -R "$regex"
    ;;
  bench)
    [[ -f bench/compare.sh ]] ||
      die "bench/compare.sh does not exist yet; it comes with the benchmarks. Nothing was done."
    ./scripts/setup.sh --bench
    build -DFUSECL_BUILD_BENCH=ON
    log "running bench/compare.sh $*"
    bash bench/compare.sh "$@"
    ;;
  -h|--help)
    usage
    ;;
  *)
    usage >&2
    if [[ -n "$command" ]]; then die "unknown command '$command'"; fi
    die "expected a command: demo, test, sanitize, tsan or bench"
    ;;
esac
