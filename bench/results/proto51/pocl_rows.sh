#!/usr/bin/env bash
# Session 51: plain reductions over rows (sum, max, var) on the 2-core PoCL
# machine, 2^22 floats, a group of 16 work-items a row (as before) against a
# work-item a row, 16 rows a group (FUSECL_X_CPU_ROWS=1, switches.patch: what
# landed in 8485469), interleaved, 2 rounds; fusecl-axis-probe's lines under
# "## round R x X". Table: python3 bench/results/proto51/table.py raw/pocl_rows.txt
set -u
P=${BUILD:-build-bundle}/bench/fusecl-axis-probe
C=""
for e in sum max var; do
  for m in 10 16 20 32 64 128 1024 16384; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done
done
for r in 1 2; do for x in 0 1; do
  echo "## round $r x $x"
  if [ $x = 0 ]; then FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1
  else FUSECL_X_CPU_ROWS=1 FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1; fi
done; done
