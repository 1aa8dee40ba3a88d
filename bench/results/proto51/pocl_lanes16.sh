#!/usr/bin/env bash
# Session 51, first look: row kernels over rows of 16, 32 and 48 floats on the
# 2-core PoCL machine, 2^22 floats, the loop form (as before) against the
# lanes form (FUSECL_X_LANES=64, switches.patch), 2 rounds.
set -u
P=${BUILD:-build-bundle}/bench/fusecl-axis-probe
C=""
for e in softmax layer_norm sum logsumexp; do
  for m in 16 32 48; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done
done
for r in 1 2; do for x in 0 64; do
  echo "## round $r xl $x"
  if [ $x = 0 ]; then FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1
  else FUSECL_X_LANES=$x FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-lanes timeout 300 $P $C 2>&1; fi
done; done
