#!/usr/bin/env bash
# Session 50: compensated sums in 4 chains a work-item on CPUs (the default)
# against one (FUSECL_REDUCE_CHAINS=1, as before), the 2-core PoCL machine,
# interleaved, 3 rounds: sum_squares (a group-per-output sum) and row_norm
# (a row kernel's loop), with softmax and mean_std (neither takes chains) as
# controls. Run from the repository root after building build-bundle;
# prints fusecl-bench's lines under "## round R chains C".
set -u
B=${BUILD:-build-bundle}/bench/fusecl-bench
for r in 1 2 3; do for c in 1 4; do
  echo "## round $r chains $c"
  FUSECL_REDUCE_CHAINS=$c FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-chains timeout 300 $B --min_log2=16 --max_log2=22 --log2_step=3 \
    --benchmark_filter='^BM_(sum_squares|row_norm|softmax|mean_std)/fused_device/' --benchmark_min_time=0.3 2>&1 | grep '^BM_'
done; done
