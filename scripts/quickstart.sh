#!/usr/bin/env bash
# From a fresh Debian 12 checkout to a running fusecl, in one command:
#
#   scripts/quickstart.sh demo    install missing packages, build (Release, in
#                                 build/), run build/examples/demo
#   scripts/quickstart.sh test    same build (plus oclgrind), then run the whole
#                                 test suite with ctest; exits non-zero if any
#                                 test fails
#   scripts/quickstart.sh bench   same build (plus gnuplot), then bench/compare.sh;
#                                 further arguments go to compare.sh
#
# Builds use every core (nproc). Re-running only rebuilds what changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'quickstart: %s\n' "$*"; }
die() { printf 'quickstart: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

jobs=$(nproc)

# Options are passed every time so that a build/ configured differently
# earlier (say, Debug or without tests) is brought back to what this
# command needs instead of silently giving another result.
build() {
  log "configuring build/ (Release)"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
  log "building with $jobs job(s)"
  cmake --build build -j"$jobs"
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
    die "expected a command: demo, test or bench"
    ;;
esac
