#!/usr/bin/env bash
# Session 51: row kernels over rows of one and two whole vectors (16 and 32
# floats) on the 2-core PoCL machine, 2^22 floats, the loop form (as before)
# against the lanes form (FUSECL_X_LANES=33, switches.patch), 3 rounds
# interleaved. Table: python3 bench/results/proto51/table.py raw/pocl_lanes.txt
set -u
P=${BUILD:-build-bundle}/bench/fusecl-axis-probe
C=""
for e in softmax layer_norm normalize center softmax_ln; do
  for m in 16 32; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done
done
for r in 1 2 3; do for x in 0 33; do
  echo "## round $r xl $x"
  if [ $x = 0 ]; then FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1
  else FUSECL_X_LANES=$x FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1; fi
done; done
