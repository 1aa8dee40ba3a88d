#!/usr/bin/env bash
# Issue 14's table on a lent NVIDIA GPU machine: fusecl on the GPU beside NumPy
# (and numexpr, if installed) on the host's CPU and CuPy, cupy.fuse, torch eager
# and torch.compile on the GPU, all in one run, on the same inputs, every result
# checked against fusecl's; and the first run of a new program against NumPy.
# Everything goes under $OUT; it finishes within 8 minutes (each step has a time
# limit, and a step cut short keeps what it measured).
#
# Run from the repository root, with a bundle made by scripts/make_bundle.sh in
# carry/bundle (BUNDLE=... for another folder):
#   cmake -S . -B build-bundle -DCMAKE_BUILD_TYPE=Release -DFUSECL_PORTABLE_BUNDLE=ON -DFUSECL_BUILD_TESTS=OFF
#   cmake --build build-bundle -j2 --target fusecl-bench fusecl-first-result fusecl-info
#   scripts/make_bundle.sh build-bundle carry/bundle
# then, on the GPU machine:  bash bench/gpu_issue14.sh
#
# fusecl on PoCL runs last, where fusecl-info lists a PoCL device (the lent
# H200 machines have one), on the same sizes as the GPU run. Settings (env):
# GPU_DEVICE (FUSECL_DEVICE value, default nvidia), MIN_LOG2 (16), MAX_LOG2 (26),
# LOG2_STEP (5), MIN_TIME (0.05 s per case), PYTHON (python3).
set -u
root=$PWD
bundle=$(cd "${BUNDLE:-carry/bundle}" 2>/dev/null && pwd) || { echo "gpu_issue14: no bundle at ${BUNDLE:-carry/bundle}" >&2; exit 1; }
out=${OUT:?gpu_issue14: OUT must name the folder for the results}
py=${PYTHON:-python3}
min_log2=${MIN_LOG2:-16} max_log2=${MAX_LOG2:-26} step=${LOG2_STEP:-5} min_time=${MIN_TIME:-0.05}
export FUSECL_DEVICE=${GPU_DEVICE:-nvidia}
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FUSECL_CACHE_DIR=/tmp/gpu_issue14-kernel-cache
mkdir -p "$out/results" /tmp/gpu_issue14
t_start=$(date +%s)
log() { echo "gpu_issue14 [$(( $(date +%s) - t_start )) s]: $*" | tee -a "$out/log.txt" >&2; }
# A run stopped by its time limit leaves Google Benchmark's JSON unterminated: close it.
close_json() {
  "$py" - "$1" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
try:
    json.loads(text)
except ValueError:
    text = text.rstrip().rstrip(",") + "\n  ]\n}\n"
    json.loads(text)
    open(sys.argv[1], "w").write(text)
    print("gpu_issue14: closed a JSON file cut short", file=sys.stderr)
EOF
}

# NVIDIA's OpenCL driver, registered with the ICD loader (the machine has the
# library but no registration); skipped where it cannot be written (not root).
if [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ] && mkdir -p /etc/OpenCL/vendors 2>/dev/null; then
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi

{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
  nproc; grep -m1 'model name' /proc/cpuinfo; cat /proc/loadavg
  "$py" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)' 2>&1
  for m in numexpr cupy torch; do "$py" -c "import $m; print('$m', $m.__version__)" 2>&1 | tail -1; done
  "$bundle/bin/fusecl-info" 2>&1
} > "$out/env.txt"
log "environment in env.txt"

# 1. fusecl on the GPU: device eager, fused on the device, fused host to host,
#    and the copy kernel. The C++ loop way is left out (minutes at 2^26, and it
#    is not what a user would pick); it still computes the reference every fusecl
#    result is checked against.
run=/tmp/gpu_issue14/run.json check=/tmp/gpu_issue14/check.jsonl
log "fusecl-bench on $FUSECL_DEVICE, 2^$min_log2..2^$max_log2 step $step"
timeout 130 "$bundle/bin/fusecl-bench" --min_log2="$min_log2" --max_log2="$max_log2" --log2_step="$step" \
  '--benchmark_filter=^BM_(copy/|[a-z0-9_]+/(device_eager|fused_device|fused_e2e)/)' \
  --benchmark_min_time="$min_time" --benchmark_out_format=json --benchmark_out="$run" --check_out="$check" \
  > "$out/fusecl-bench.txt" 2>&1
log "fusecl-bench: status $? (124: stopped by its time limit)"
close_json "$run"
python3 bench/report.py stamp "$run" "compare_command=bash bench/gpu_issue14.sh (MIN_LOG2=$min_log2 MAX_LOG2=$max_log2 LOG2_STEP=$step MIN_TIME=$min_time)" \
  "git_commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
slug=$(python3 bench/report.py slug "$run")
cp "$run" "$out/results/$slug.json"
cp "$check" "$out/results/$slug.check.jsonl"

# 2. NumPy (and numexpr, if there) on the host CPU, same cases and inputs.
log "NumPy and numexpr on the host CPU"
timeout 100 "$py" bench/host_frameworks.py --like "$run" --check "$check" --min-time "$min_time" \
  --out "$out/results/$slug.host.json" > "$out/host_frameworks.txt" 2>&1
log "host_frameworks.py: status $? (1: a result disagrees with fusecl's; 124: time limit)"

# 3. CuPy, cupy.fuse, torch, torch.compile on the GPU, same cases and inputs.
log "CuPy, cupy.fuse, torch, torch.compile"
timeout 170 "$py" bench/gpu_frameworks.py --like "$run" --check "$check" --min-time "$min_time" \
  --out "$out/results/$slug.frameworks.json" > "$out/gpu_frameworks.txt" 2>&1
log "gpu_frameworks.py: status $? (124: time limit; the cases measured are kept)"

# 4. The first run of a new program (empty caches) and the second, against NumPy.
log "first run of a new program"
{
  echo "## First run of a new program against NumPy, $slug (issue 14)"
  echo
  FUSECL_PYTHON=$py timeout 50 bench/first_result/run.sh --user "$bundle/bin/fusecl-first-result" "$FUSECL_DEVICE" 3 \
    2> "$out/first_run.txt"
  echo
  echo "The machine's kernel cache folders are fresh for each program's first run: a new program's kernels are in"
  echo "neither fusecl's nor the driver's cache (NVIDIA's CUDA_CACHE_PATH), both on as shipped."
} > "$out/results/$slug.first_run_vs_numpy.md"
log "first run: done"

# 5. fusecl on the host's CPU cores through PoCL, where the machine has it, on
#    the same cases and sizes (so NumPy's timings above apply to it too). Last:
#    the GPU table does not wait on it.
pocl_json=""
if "$bundle/bin/fusecl-info" 2>/dev/null | grep -q 'Portable Computing Language'; then
  log "fusecl-bench on PoCL (the host's CPU)"
  pocl_run=/tmp/gpu_issue14/pocl.json
  FUSECL_DEVICE=pocl timeout "${POCL_SECONDS:-80}" "$bundle/bin/fusecl-bench" --min_log2="$min_log2" --max_log2="$max_log2" \
    --log2_step="$step" '--benchmark_filter=^BM_(copy/|[a-z0-9_]+/(fused_device|fused_e2e)/)' \
    --benchmark_min_time="$min_time" --benchmark_out_format=json --benchmark_out="$pocl_run" > "$out/fusecl-bench-pocl.txt" 2>&1
  log "fusecl-bench on PoCL: status $? (124: stopped by its time limit)"
  close_json "$pocl_run"
  python3 bench/report.py stamp "$pocl_run" "compare_command=bash bench/gpu_issue14.sh (PoCL step)" \
    "machine=the $(nproc)-core host of the GPU machine" \
    "git_commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  pocl_slug=$(python3 bench/report.py slug "$pocl_run")
  cp "$pocl_run" "$out/results/$pocl_slug.json"
  cp "$out/results/$slug.host.json" "$out/results/$pocl_slug.host.json" 2>/dev/null
  pocl_json="$out/results/$pocl_slug.json"
  pocl_note="fusecl on PoCL (the same host's CPU cores through OpenCL) is in results/$pocl_slug.json, beside the same NumPy run."
else
  pocl_note="fusecl on PoCL is not in this table: fusecl-info lists no PoCL device on this machine."
fi

# 6. What the run left out, and the report.
cat > "$out/results/$slug.notes-issue14.md" <<EOF
## $slug: what this run left out (issue 14)

$pocl_note
The C++ loop way was not timed (it still computed the reference fusecl's results were checked against).
EOF
# (report.py appends the .md files of the results folder: the first-run table and the notes.)
python3 bench/report.py table --out "$out/RESULTS-gpu.md" --plot-dir "$out" "$out/results/$slug.json" \
  $(ls "$out/results/$slug".host.json "$out/results/$slug".frameworks.json 2>/dev/null) >> "$out/log.txt" 2>&1
log "wrote RESULTS-gpu.md (copy results/* into bench/results/ and run bench/report.py there for the chart)"
python3 bench/report.py table --summary-only "$out/results/$slug.json" \
  $(ls "$out/results/$slug".host.json "$out/results/$slug".frameworks.json 2>/dev/null) 2>/dev/null | tail -30
if [ -n "$pocl_json" ]; then
  python3 bench/report.py table --out "$out/RESULTS-pocl.md" --plot-dir "$out" "$pocl_json" "${pocl_json%.json}.host.json" \
    >> "$out/log.txt" 2>&1
  python3 bench/report.py table --summary-only "$pocl_json" "${pocl_json%.json}.host.json" 2>/dev/null | tail -15
fi
