#!/usr/bin/env bash
# Runs fusecl-bench on one device and turns its results into tables and a chart.
#
#   bench/compare.sh [DEVICE [MAX_LOG2 [FILTER]]]
#       DEVICE    FUSECL_DEVICE value: cpu, gpu, P:D or part of a device name;
#                 'default' or '' lets fusecl choose (the first GPU, else the CPU)
#       MAX_LOG2  largest size, 2^MAX_LOG2 elements ('' = 22 on CPU devices, 26 on others)
#       FILTER    --benchmark_filter regex over BM_<workload>/<way>/<log2> ('' = all)
#     Keeps the JSON as bench/results/<device-slug>.json (replacing that device's
#     earlier run, filtered or not), rewrites bench/RESULTS.md
#     from every file in bench/results/, draws bench/speedup_<device-slug>.png and
#     prints the summary at the largest size.
#   bench/compare.sh --frameworks [DEVICE [MAX_LOG2 [FILTER]]]
#       The same, then bench/gpu_frameworks.py (CuPy, cupy.fuse, torch,
#       torch.compile on CUDA) at the same workloads and sizes, kept as
#       bench/results/<device-slug>.frameworks.json: extra columns in the tables.
#   bench/compare.sh --short [DEVICE]
#       The README's demo, under a minute on a CPU device: four workloads at
#       2^16..2^20, the summary table printed; nothing in the checkout is changed.
#
# Environment: FUSECL_BENCH_MIN_TIME (seconds per benchmark; default 0.1, 0.02
# with --short), FUSECL_BENCH_MIN_LOG2 and FUSECL_BENCH_LOG2_STEP (sizes),
# FUSECL_BENCH_BIN (default build/bench/fusecl-bench, built in Release if missing).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'compare: %s\n' "$*" >&2; }
die() { printf 'compare: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,25s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

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
"$bin" "${args[@]}" --benchmark_out="$tmp/run.json" >&2

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD -- . ':!bench/results' ':!bench/RESULTS.md' ':!bench/*.png' 2>/dev/null; then
  commit+=" (with uncommitted changes)"
fi
python3 bench/report.py stamp "$tmp/run.json" "compare_command=$invocation" "git_commit=$commit"

if ((short)); then
  python3 bench/report.py table --summary-only "$tmp/run.json"
  exit 0
fi

slug=$(python3 bench/report.py slug "$tmp/run.json")
mkdir -p bench/results
mv "$tmp/run.json" "bench/results/$slug.json"
log "kept bench/results/$slug.json"

if ((frameworks)); then
  log "running bench/gpu_frameworks.py at the same workloads and sizes"
  python3 bench/gpu_frameworks.py --like "bench/results/$slug.json" \
    --min-time "${FUSECL_BENCH_MIN_TIME:-0.1}" --out "bench/results/$slug.frameworks.json" >&2
  log "kept bench/results/$slug.frameworks.json"
fi

python3 bench/report.py table --out bench/RESULTS.md --plot-dir bench bench/results/*.json
log "wrote bench/RESULTS.md and bench/speedup_$slug.png"
shown=("bench/results/$slug.json")
[[ -f "bench/results/$slug.frameworks.json" ]] && shown+=("bench/results/$slug.frameworks.json")
python3 bench/report.py table --summary-only "${shown[@]}"
