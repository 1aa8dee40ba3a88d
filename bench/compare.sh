#!/usr/bin/env bash
# Runs fusecl-bench on one device and turns its results into tables and a chart.
#
#   bench/compare.sh [DEVICE [MAX_LOG2 [FILTER]]]
#       DEVICE    FUSECL_DEVICE value: cpu, gpu, P:D or part of a device name;
#                 'default' or '' lets fusecl choose (the first GPU, else the CPU)
#       MAX_LOG2  largest size, 2^MAX_LOG2 elements ('' = 22 on CPU devices, 26 on others)
#       FILTER    --benchmark_filter regex over BM_<workload>/<way>/<log2> ('' = all)
#     Then bench/host_frameworks.py times NumPy and numexpr on the host at the
#     same workloads and sizes, on the same inputs, and checks their results
#     against fusecl's. Keeps the JSON as bench/results/<device-slug>.json and
#     <device-slug>.host.json (replacing that device's earlier run, filtered or
#     not), rewrites bench/RESULTS.md from every file in bench/results/, draws
#     bench/speedup_<device-slug>.png (speedup over NumPy by size) and prints the
#     summary at the largest size.
#   bench/compare.sh --frameworks [DEVICE [MAX_LOG2 [FILTER]]]
#       The same, then bench/gpu_frameworks.py (CuPy, cupy.fuse, torch,
#       torch.compile on CUDA) at the same workloads and sizes, kept as
#       bench/results/<device-slug>.frameworks.json: extra columns in the tables.
#   bench/compare.sh --short [DEVICE]
#       The README's demo, under a minute on a CPU device: four workloads at
#       2^16..2^20 against NumPy and numexpr, the summary table printed; nothing
#       in the checkout is changed.
#
# NumPy and numexpr run under the first of $FUSECL_PYTHON, python3, /usr/bin/python3
# that can import NumPy (Debian: python3-numpy, python3-numexpr; scripts/setup.sh
# --bench installs them). Without one, the NumPy columns are left out with a
# warning. Exits 1 if NumPy's or numexpr's results disagree with fusecl's.
#
# Environment: FUSECL_BENCH_MIN_TIME (seconds per benchmark; default 0.1, 0.02
# with --short), FUSECL_BENCH_MIN_LOG2 and FUSECL_BENCH_LOG2_STEP (sizes),
# FUSECL_BENCH_BIN (default build/bench/fusecl-bench, built in Release if missing).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'compare: %s\n' "$*" >&2; }
die() { printf 'compare: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,36s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

# The command as typed, quoted so that it can be pasted back.
invocation="bench/compare.sh"
for arg in "$@"; do invocation+=" $(printf '%q' "$arg")"; done

short=0
frameworks=0
positional=()
for arg in "$@"; do
  case "$arg" in
    --short) short=1 ;;
    --frameworks) frameworks=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) usage >&2; die "unknown option '$arg'" ;;
    *) positional+=("$arg") ;;
  esac
done
((${#positional[@]} <= 3)) || { usage >&2; die "expected at most DEVICE MAX_LOG2 FILTER"; }
device=${positional[0]:-}
max_log2=${positional[1]:-}
filter=${positional[2]:-}
[[ "$device" == default ]] && device=
[[ -z "$max_log2" || "$max_log2" =~ ^[0-9]+$ ]] || die "MAX_LOG2 must be a whole number, got '$max_log2'"
((short == 0 || frameworks == 0)) || die "--short and --frameworks do not go together"

command -v python3 >/dev/null || die "python3 is needed for bench/report.py"

# A python3 that imports NumPy: on Debian, python3 on PATH may be another
# installation (pyenv, a venv) without the Debian packages.
numpy_python=
for candidate in ${FUSECL_PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then
    numpy_python=$candidate
    break
  fi
done
[[ -n "$numpy_python" ]] || log "warning: no python3 here imports NumPy (tried ${FUSECL_PYTHON:+$FUSECL_PYTHON, }python3, /usr/bin/python3): no NumPy or numexpr columns. Debian: scripts/setup.sh --bench, or apt-get install python3-numpy python3-numexpr"

bin=${FUSECL_BENCH_BIN:-build/bench/fusecl-bench}
if [[ ! -x "$bin" ]]; then
  [[ -z "${FUSECL_BENCH_BIN:-}" ]] || die "FUSECL_BENCH_BIN=$bin is not an executable"
  log "$bin is missing: building it (Release)"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFUSECL_BUILD_BENCH=ON >&2
  cmake --build build -j"$(nproc)" --target fusecl-bench >&2
fi
if [[ -f build/CMakeCache.txt && "$bin" == build/* ]]; then
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' build/CMakeCache.txt)
  [[ "$build_type" == Release ]] ||
    log "warning: build/ is a '${build_type:-unset}' build; timings of a non-Release build mean little"
fi

args=(--benchmark_out_format=json)
if ((short)); then
  # Enough to show the effect (a memory-bound chain, a transcendental one, a
  # long one, a reduction) at sizes where a CPU device is past launch cost.
  args+=(--min_log2=16 --max_log2=20 --log2_step=2
         "--benchmark_filter=^BM_(copy|chain2|sqrt_sin_exp|poly20|sum_squares)/"
         "--benchmark_min_time=${FUSECL_BENCH_MIN_TIME:-0.02}")
else
  args+=("--benchmark_min_time=${FUSECL_BENCH_MIN_TIME:-0.1}")
  [[ -n "$max_log2" ]] && args+=("--max_log2=$max_log2")
  [[ -n "$filter" ]] && args+=("--benchmark_filter=$filter")
fi
[[ -n "$device" ]] && export FUSECL_DEVICE="$device"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log "running $bin ${args[*]}${device:+ with FUSECL_DEVICE=$device}"
"$bin" "${args[@]}" --benchmark_out="$tmp/run.json" --check_out="$tmp/check.jsonl" >&2

# NumPy and numexpr right after fusecl, on the same cases, checked against its results.
status=0
if [[ -n "$numpy_python" ]]; then
  log "running bench/host_frameworks.py ($numpy_python) at the same workloads and sizes"
  "$numpy_python" bench/host_frameworks.py --like "$tmp/run.json" --check "$tmp/check.jsonl" \
    --min-time "${FUSECL_BENCH_MIN_TIME:-$( ((short)) && echo 0.02 || echo 0.1)}" --out "$tmp/run.host.json" >&2 ||
    { status=$?; log "error: NumPy's or numexpr's results disagree with fusecl's (see above and the Errors section)"; }
fi

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- . ':!bench/results' ':!bench/RESULTS.md' ':!bench/*.png' 2>/dev/null; then
  commit+=" (with uncommitted changes)"
fi
python3 bench/report.py stamp "$tmp/run.json" "compare_command=$invocation" "git_commit=$commit"

if ((short)); then
  shown=("$tmp/run.json")
  [[ -f "$tmp/run.host.json" ]] && shown+=("$tmp/run.host.json")
  python3 bench/report.py table --summary-only "${shown[@]}"
  exit "$status"
fi

slug=$(python3 bench/report.py slug "$tmp/run.json")
mkdir -p bench/results
mv "$tmp/run.json" "bench/results/$slug.json"
log "kept bench/results/$slug.json"
# A NumPy file from an earlier run must not be shown beside this run's fusecl times.
rm -f "bench/results/$slug.host.json"
if [[ -f "$tmp/run.host.json" ]]; then
  mv "$tmp/run.host.json" "bench/results/$slug.host.json"
  log "kept bench/results/$slug.host.json"
fi

if ((frameworks)); then
  log "running bench/gpu_frameworks.py at the same workloads and sizes"
  "${numpy_python:-python3}" bench/gpu_frameworks.py --like "bench/results/$slug.json" --check "$tmp/check.jsonl" \
    --min-time "${FUSECL_BENCH_MIN_TIME:-0.1}" --out "bench/results/$slug.frameworks.json" >&2
  log "kept bench/results/$slug.frameworks.json"
fi

python3 bench/report.py table --out bench/RESULTS.md --plot-dir bench bench/results/*.json
if command -v gnuplot >/dev/null; then
  log "wrote bench/RESULTS.md and bench/speedup_$slug.png"
else
  log "wrote bench/RESULTS.md (no chart: gnuplot is missing; scripts/setup.sh --bench installs it)"
fi
shown=("bench/results/$slug.json")
for extra in host frameworks; do
  [[ -f "bench/results/$slug.$extra.json" ]] && shown+=("bench/results/$slug.$extra.json")
done
python3 bench/report.py table --summary-only "${shown[@]}"
exit "$status"
