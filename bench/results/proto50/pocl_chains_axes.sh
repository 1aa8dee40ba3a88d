#!/usr/bin/env bash
# Session 50: the CPU's column and lanes forms of row kernels with 4
# compensated chains (the default) against one (FUSECL_REDUCE_CHAINS=1), the
# 2-core PoCL machine, 2^22 floats, interleaved, 3 rounds: softmax and layer
# norm over axis 0 of 2048 x 2048 and 256 x 16384 (the column form), over
# rows of 10 and 20 (the lanes form), and over rows of 16 and 1024 (the
# general form's loop: one vector, no chains; 64 vectors). fusecl-axis-probe's lines under "## round R chains C".
set -u
P=${BUILD:-build-bundle}/bench/fusecl-axis-probe
C=""
for e in softmax layer_norm; do
  C="$C $e:2048x2048:0 $e:256x16384:0"
  for m in 10 16 20 1024; do C="$C $e:$(( (1 << 22) / m ))x$m:1"; done
done
for r in 1 2 3; do for c in 1 4; do
  echo "## round $r chains $c"
  FUSECL_REDUCE_CHAINS=$c FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-chains timeout 300 $P $C 2>&1
done; done
