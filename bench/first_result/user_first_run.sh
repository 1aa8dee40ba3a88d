#!/usr/bin/env bash
# bench/first_result/run.sh --user: the first and second run of a new program,
# fusecl against NumPy, in seconds to first result (see run.sh for the why).
#   bench/first_result/user_first_run.sh PATH/TO/fusecl-first-result [FUSECL_DEVICE] [runs] [ELEMENTS]
# NumPy runs under $FUSECL_PYTHON, else the first of python3 and /usr/bin/python3 that imports it.
set -euo pipefail
prog=${1:?usage: user_first_run.sh PATH/TO/fusecl-first-result [device] [runs] [elements]}
device=${2:-}
runs=${3:-3}
elements=${4:-1048576}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -n "$device" ] && export FUSECL_DEVICE=$device
python=
for candidate in ${FUSECL_PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then python=$candidate; break; fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
field() { sed -n "s/.*\"$1\": \"\\{0,1\\}\([^,\"}]*\).*/\1/p"; }
now() { date +%s%N; }

# run_timed OUTVAR CMD...: runs CMD, its JSON line into $line, wall seconds into $wall.
line= wall=
run_timed() {
  local t0 t1
  t0=$(now)
  line=$("$@")
  t1=$(now)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
  echo "$wall s: $line" >&2
}

info=$(FUSECL_CACHE=off "$prog" 1024 2>/dev/null | head -1)
echo "fusecl: $(echo "$info" | field device), driver $(echo "$info" | field driver); NumPy: $(
  [ -n "$python" ] && "$python" -c 'import numpy; print("numpy", numpy.__version__)' || echo "not found")"
echo "$(date -u +%FT%TZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $elements float32 elements;" \
     "second run = median of $runs; command: bench/first_result/run.sh --user $*"
echo
echo "Seconds from starting the program to its exit (what a user waits), and in brackets inside the process from"
echo "the start of main (or of the script, before \`import numpy\`) to the result."
echo
echo "| program | fusecl first run | fusecl second run | NumPy first run | NumPy second run | fusecl kernels built (first) / loaded (second) | same checksum |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
for program in demo ten; do
  # A new program: nothing of it in fusecl's cache or in the driver's.
  envs=(FUSECL_CACHE_DIR="$tmp/fusecl-$program" POCL_CACHE_DIR="$tmp/pocl-$program" CUDA_CACHE_PATH="$tmp/nv-$program")
  run_timed env "${envs[@]}" "$prog" "$elements" "$program"
  first="$wall ($(awk -v m="$(echo "$line" | field total_ms)" 'BEGIN{printf "%.3f", m / 1e3}'))"
  built=$(echo "$line" | field programs_built)
  fvalue=$(echo "$line" | field value)
  walls=() inside=()
  for _ in $(seq "$runs"); do
    run_timed env "${envs[@]}" "$prog" "$elements" "$program"
    walls+=("$wall"); inside+=("$(echo "$line" | field total_ms)")
  done
  loaded=$(echo "$line" | field programs_loaded)
  second="$(printf '%s\n' "${walls[@]}" | median) ($(printf '%s\n' "${inside[@]}" | median | awk '{printf "%.3f", $1 / 1e3}'))"
  np_first="—" np_second="—" same="NumPy not found"
  if [ -n "$python" ]; then
    run_timed "$python" "$here/numpy_first_result.py" "$elements" "$program"
    np_first="$wall ($(awk -v m="$(echo "$line" | field total_ms)" 'BEGIN{printf "%.3f", m / 1e3}'))"
    nvalue=$(echo "$line" | field value)
    walls=() inside=()
    for _ in $(seq "$runs"); do
      run_timed "$python" "$here/numpy_first_result.py" "$elements" "$program"
      walls+=("$wall"); inside+=("$(echo "$line" | field total_ms)")
    done
    np_second="$(printf '%s\n' "${walls[@]}" | median) ($(printf '%s\n' "${inside[@]}" | median | awk '{printf "%.3f", $1 / 1e3}'))"
    same=$(awk -v a="$fvalue" -v b="$nvalue" 'BEGIN{d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
      print (d <= 1e-5 * m + 1e-5) ? "yes (" a ")" : "NO: fusecl " a ", NumPy " b}')
  fi
  label=$([ "$program" = demo ] && echo "demo (\`sqrt(x*x+y*y)*sin(x)+exp(-y)*0.5\`)" || echo "ten-expression script")
  echo "| $label | $first | $second | $np_first | $np_second | $built / $loaded | $same |"
done
