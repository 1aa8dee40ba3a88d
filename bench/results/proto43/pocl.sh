#!/usr/bin/env bash
# Forty-third session: x + transpose(y) on the PoCL CPU device, the blocks in
# registers (default) against local-memory tiles (FUSECL_TILE_REGISTERS=0),
# interleaved rounds, each with its own kernel cache warmed first; then NumPy
# and numexpr on the same cases (bench/host_frameworks.py --like), checked
# against fusecl's results. Run from the repository root with a Release build
# in build-bundle/. Output: bench/results/proto43/raw/.
set -eu
B=build-bundle/bench/fusecl-bench
R=bench/results/proto43/raw
mkdir -p $R
F='^BM_(copy/|(transpose_add|chain2|saxpy)/fused_device/)'
run() {  # $1: label, $2: FUSECL_TILE_REGISTERS
  FUSECL_DEVICE=pocl FUSECL_TILE_REGISTERS=$2 FUSECL_CACHE_DIR=/tmp/kc-proto43-$2 $B --min_log2=16 --max_log2=22 \
    --log2_step=3 --benchmark_filter="$F" --benchmark_min_time=0.3 2>/dev/null | grep '^BM_' | awk -v l="$1" '{print l, $1, $2, $3}'
}
run warm 1 > /dev/null; run warm 0 > /dev/null
for r in 1 2 3; do run "registers-$r" 1; run "local-$r" 0; done | tee $R/pocl-rounds.txt
FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-proto43-1 $B --min_log2=16 --max_log2=22 --log2_step=3 \
  --benchmark_filter='^BM_transpose_add/fused_device/' --benchmark_min_time=0.3 --benchmark_out_format=json \
  --benchmark_out=$R/pocl-run.json --check_out=$R/pocl-check.jsonl > /dev/null 2>&1
/usr/bin/python3 bench/host_frameworks.py --like $R/pocl-run.json --check $R/pocl-check.jsonl --min-time 0.3 \
  --out $R/pocl-host.json 2>&1 | tail -5
/usr/bin/python3 - $R/pocl-host.json <<'PY' | tee $R/pocl-host.txt
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print(b["workload"], b["framework"], "2^%d" % b["log2"], "%.1f us" % (b["time_s"] * 1e6), b["calls"], "calls")
PY
