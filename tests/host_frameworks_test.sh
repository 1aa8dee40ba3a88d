#!/usr/bin/env bash
# ctest's numpy_harness_agrees_with_fusecl: bench/host_frameworks.py --short
# runs fusecl-bench small and NumPy and numexpr on the same cases, and must find
# every result in agreement with fusecl's; then a fusecl result altered by one
# part in a thousand must make the check fail (so the check can fail at all).
# No timing is judged. Exits 77 (ctest's SKIP_RETURN_CODE) without NumPy.
#   tests/host_frameworks_test.sh PATH/TO/fusecl-bench SOURCE_DIR
set -euo pipefail
bench=${1:?usage: host_frameworks_test.sh FUSECL_BENCH SOURCE_DIR}
src=${2:?usage: host_frameworks_test.sh FUSECL_BENCH SOURCE_DIR}

python=
for candidate in ${FUSECL_PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [[ -z "$python" ]]; then
  echo "SKIP: no python3 here imports NumPy (tried ${FUSECL_PYTHON:+$FUSECL_PYTHON, }/usr/bin/python3, python3);" \
       "Debian: apt-get install python3-numpy python3-numexpr (scripts/setup.sh --bench)"
  exit 77
fi

echo "== NumPy and numexpr against fusecl, all thirteen workloads ($python)"
"$python" "$src/bench/host_frameworks.py" --short --bench "$bench"

echo "== a wrong fusecl result must fail the check"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bench" --min_log2=10 --max_log2=10 '--benchmark_filter=^BM_sqrt_sin_exp/fused_device/' --benchmark_min_time=0.01 \
  --benchmark_format=json --benchmark_out="$tmp/run.json" --check_out="$tmp/check.jsonl" >/dev/null
# Scale the first sample of the first result by 1.001, far past the tolerance (1e-5).
"$python" - "$tmp/check.jsonl" <<'PY'
import json, sys
line = json.loads(open(sys.argv[1]).readline())
line["results"][0]["samples"][0] = line["results"][0]["samples"][0] * 1.001 + 1e-3
open(sys.argv[1], "w").write(json.dumps(line) + "\n")
PY
if "$python" "$src/bench/host_frameworks.py" --like "$tmp/run.json" --check "$tmp/check.jsonl" --min-time 0 \
     >"$tmp/out.txt" 2>&1; then
  cat "$tmp/out.txt"
  echo "FAIL: the harness accepted a result that differs from fusecl's"
  exit 1
fi
cat "$tmp/out.txt"
grep -q "wrong answer" "$tmp/out.txt" || { echo "FAIL: no 'wrong answer' in the harness's output"; exit 1; }
echo "ok: the altered result was caught"
