#!/usr/bin/env bash
# From a fresh Debian 12 checkout to a running fusecl, in one command:
#
#   scripts/quickstart.sh demo    install missing packages, build (Release, in
#                                 build/), run build/examples/demo
#   scripts/quickstart.sh test    same build (plus oclgrind), then run the whole
#                                 test suite with ctest; exits non-zero if any
#                                 test fails
#   scripts/quickstart.sh sanitize  the tests again, built with AddressSanitizer
#                                 and UndefinedBehaviorSanitizer in build-asan/
#   scripts/quickstart.sh bench   same build (plus gnuplot), then bench/compare.sh;
#                                 further arguments go to compare.sh
#
# Builds use every core (nproc). Re-running only rebuilds what changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'quickstart: %s\n' "$*"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

jobs=$(nproc)

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
    ./scripts/setup.sh
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
      -DFUSECL_BUILD_BENCH=OFF -DFUSECL_BUILD_EXAMPLES=OFF
    log "running the tests under the sanitizers with $jobs job(s)"
    ctest --test-dir build-asan --output-on-failure --no-tests=error -j"$jobs"
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
    die "expected a command: demo, test, sanitize or bench"
    ;;
esac
