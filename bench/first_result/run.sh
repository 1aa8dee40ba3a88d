#!/usr/bin/env bash
# Cold against warm time to first result, each in a fresh process, under the
# driver-cache settings that matter:
#   PoCL:   POCL_KERNEL_CACHE=0 (PoCL caches nothing) and =1 (its own cache on)
#   NVIDIA: CUDA_CACHE_DISABLE=1 (no driver cache) and unset (its own cache on)
# and, for each, fusecl's disk cache on (cold: empty folder; warm: second run)
# against off (FUSECL_CACHE=off: only the driver's cache can help).
#   bench/first_result/run.sh PATH/TO/fusecl-first-result [FUSECL_DEVICE] [runs]
# Prints a Markdown table (the median of `runs` warm runs); the raw JSON lines go to stderr.
#
#   bench/first_result/run.sh --user PATH/TO/fusecl-first-result [FUSECL_DEVICE] [runs] [ELEMENTS]
# The first run of a new program as a user meets it, beside NumPy: the demo and
# a ten-expression script (first_result.cpp), each run as a fresh process with an
# empty fusecl cache folder and an empty driver cache folder (a new program's
# kernels are in neither) but every cache on as shipped; then the second run
# (median of `runs`). Seconds from starting the command to its exit, measured
# from outside, and inside the process to the result; the same programs in
# NumPy (numpy_first_result.py: interpreter start and `import numpy` included),
# and whether the two computed the same checksum.
set -euo pipefail
if [[ "${1:-}" == --user ]]; then
  shift
  exec "$(dirname "${BASH_SOURCE[0]}")/user_first_run.sh" "$@"
fi
prog=${1:?usage: run.sh PATH/TO/fusecl-first-result [device] [runs]}
device=${2:-}
runs=${3:-3}
[ -n "$device" ] && export FUSECL_DEVICE=$device
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
field() { sed -n "s/.*\"$1\": \"\\{0,1\\}\([^,\"}]*\).*/\1/p"; }

# time_runs LABEL ENV... : runs `runs` times (warm) after one cold run, in a fresh fusecl cache folder.
measure() {
  local label=$1; shift
  local dir="$tmp/cache-$RANDOM$RANDOM"
  # Each setting starts with empty fusecl and driver caches.
  rm -rf "$tmp/pocl" "$tmp/nv"
  local envs=(FUSECL_CACHE_DIR="$dir" POCL_CACHE_DIR="$tmp/pocl" CUDA_CACHE_PATH="$tmp/nv" "$@")
  local line warm_total=() warm_eval=()
  line=$(env "${envs[@]}" "$prog"); echo "$label cold: $line" >&2
  local cold_total cold_eval
  cold_total=$(echo "$line" | field total_ms)
  cold_eval=$(echo "$line" | field evaluate_ms)
  for _ in $(seq "$runs"); do
    line=$(env "${envs[@]}" "$prog"); echo "$label warm: $line" >&2
    warm_total+=("$(echo "$line" | field total_ms)")
    warm_eval+=("$(echo "$line" | field evaluate_ms)")
  done
  local wt we loaded
  wt=$(printf '%s\n' "${warm_total[@]}" | median)
  we=$(printf '%s\n' "${warm_eval[@]}" | median)
  loaded=$(echo "$line" | field programs_loaded)
  printf '| %s | %.1f | %.1f | %.1f | %.1f | %.1fx | %s |\n' "$label" "$cold_total" "$wt" "$cold_eval" "$we" \
    "$(awk -v c="$cold_eval" -v w="$we" 'BEGIN{print c / w}')" "$loaded"
}

info=$("$prog" 2>/dev/null | head -1)
echo "device: $(echo "$info" | field device), driver $(echo "$info" | field driver); $(date -u +%F); median of $runs warm runs"
echo
echo "total: from the start of main (device discovery, context, upload) to the result on the host;"
echo "evaluate: building or loading the kernel, running it, downloading (what a cache can save)."
echo
echo "| setting | cold total ms | warm total ms | cold evaluate ms | warm evaluate ms | evaluate cold/warm | warm run loaded from fusecl's cache |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
case "$(echo "$info" | field device)" in
  *NVIDIA*|*H100*|*H200*|*Tesla*|*GeForce*)
    measure "driver cache off (CUDA_CACHE_DISABLE=1), fusecl cache on" CUDA_CACHE_DISABLE=1
    measure "driver cache off (CUDA_CACHE_DISABLE=1), fusecl cache off" CUDA_CACHE_DISABLE=1 FUSECL_CACHE=off
    measure "driver cache on, fusecl cache on"
    measure "driver cache on, fusecl cache off (driver cache alone)" FUSECL_CACHE=off
    ;;
  *)
    measure "driver cache off (POCL_KERNEL_CACHE=0), fusecl cache on" POCL_KERNEL_CACHE=0
    measure "driver cache off (POCL_KERNEL_CACHE=0), fusecl cache off" POCL_KERNEL_CACHE=0 FUSECL_CACHE=off
    measure "driver cache on, fusecl cache on" POCL_KERNEL_CACHE=1
    measure "driver cache on, fusecl cache off (driver cache alone)" POCL_KERNEL_CACHE=1 FUSECL_CACHE=off
    ;;
esac
