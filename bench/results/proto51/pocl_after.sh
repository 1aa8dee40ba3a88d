#!/usr/bin/env bash
# Session 51: the landed code (c2a153e) alone, 2 rounds, the cases the
# switch comparisons chose on (pocl_rows.sh, pocl_lanes.sh): plain
# reductions over rows and row kernels over rows of one and two vectors,
# 2^22 floats on the 2-core PoCL machine. Table: python3
# bench/results/proto51/table.py raw/pocl_after.txt (the "switch on" column).
set -u
P=${BUILD:-build-bundle}/bench/fusecl-axis-probe
C=""
for e in sum max var; do for m in 8 16 20 32 1024; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done; done
for e in softmax layer_norm normalize center softmax_ln; do for m in 16 32; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done; done
for r in 1 2; do
  echo "## round $r x 1"
  FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-after timeout 300 $P $C 2>&1
done
