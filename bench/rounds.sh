#!/usr/bin/env bash
# fusecl against NumPy and numexpr on a few workloads at one size, in rounds:
# each round runs fusecl-bench (fused_device, fused_e2e, host_view) and then
# host_frameworks.py on the same cases, so a machine whose load changes (a shared
# CI machine) hits both sides alike; the table gives each round's ratios and
# the median of the rounds. This is how issue 14's targets are read.
#   bench/rounds.sh [ROUNDS [LOG2 [WORKLOADS]]]
#       ROUNDS     default 3
#       LOG2       size 2^LOG2, default 22
#       WORKLOADS  regex of workload names, default 'sqrt_sin_exp|black_scholes'
# Environment: FUSECL_DEVICE, FUSECL_BENCH_BIN, FUSECL_BENCH_MIN_TIME (default
# 0.2), FUSECL_PYTHON (a python3 with NumPy). Prints Markdown; exits 1 if any
# NumPy or numexpr result disagrees with fusecl's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rounds=${1:-3} log2=${2:-22} workloads=${3:-'sqrt_sin_exp|black_scholes'}
bin=${FUSECL_BENCH_BIN:-build/bench/fusecl-bench}
min_time=${FUSECL_BENCH_MIN_TIME:-0.2}
[[ -x "$bin" ]] || { echo "rounds: $bin is not built (cmake --build build --target fusecl-bench)" >&2; exit 1; }
python=
for candidate in ${FUSECL_PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then python=$candidate; break; fi
done
[[ -n "$python" ]] || { echo "rounds: no python3 here imports NumPy (Debian: apt-get install python3-numpy python3-numexpr)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for r in $(seq "$rounds"); do
  echo "rounds: round $r of $rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$bin" --min_log2="$log2" --max_log2="$log2" "--benchmark_filter=^BM_($workloads)/(fused_device|fused_e2e|host_view)/" \
    --benchmark_min_time="$min_time" --benchmark_format=json --benchmark_out="$tmp/run$r.json" \
    --check_out="$tmp/check$r.jsonl" >/dev/null
  "$python" bench/host_frameworks.py --like "$tmp/run$r.json" --check "$tmp/check$r.jsonl" --min-time "$min_time" \
    --out "$tmp/host$r.json" 2>/dev/null || status=1
done
python3 - "$tmp" "$rounds" "bench/rounds.sh $*" <<'EOF'
import json, os, statistics, sys
tmp, rounds, command = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times = {}  # (workload, way) -> [seconds per round]
ctx = hctx = None
for r in range(1, rounds + 1):
    doc = json.load(open(os.path.join(tmp, f"run{r}.json")))
    ctx = ctx or doc["context"]
    for b in doc["benchmarks"]:
        w, way, _ = b["run_name"].split("/")[:3]
        if not b.get("error_occurred"):
            times.setdefault((w[3:], way), [None] * rounds)[r - 1] = b["real_time"] * {"us": 1e-6, "ms": 1e-3, "ns": 1e-9}[b["time_unit"]]
    host = json.load(open(os.path.join(tmp, f"host{r}.json")))
    hctx = hctx or host["context"]
    for b in host["benchmarks"]:
        times.setdefault((b["workload"], b["framework"]), [None] * rounds)[r - 1] = b.get("time_s")
print(f"{ctx['fusecl_device']}, {ctx['fusecl_platform']}, driver {ctx['fusecl_driver']}; {hctx['versions']}; "
      f"{ctx['date'][:10]}; {rounds} rounds, each fusecl-bench then host_frameworks.py; command: `{command}`\n")
print("| workload | ratio | " + " | ".join(f"round {r}" for r in range(1, rounds + 1)) + " | median |")
print("|---|---|" + "---:|" * (rounds + 1))
for w in dict.fromkeys(k[0] for k in times):
    for base in ("numpy", "numexpr"):
        for way, label in (("fused_device", "device"), ("fused_e2e", "e2e"), ("host_view", "host view")):
            a, b = times.get((w, base)), times.get((w, way))
            if not a or not b:
                continue
            ratios = [x / y if x and y else None for x, y in zip(a, b)]
            good = [x for x in ratios if x]
            cells = [f"{x:.2f}×" if x else "—" for x in ratios]
            print(f"| {w} | {base} / fusecl {label} | " + " | ".join(cells) + f" | {statistics.median(good):.2f}× |" if good else "")
print()
print("Median times (ms): " + "; ".join(f"{w} {way} {statistics.median([x for x in v if x]) * 1e3:.2f}"
                                          for (w, way), v in times.items() if any(v)))
EOF
exit "$status"
