#!/usr/bin/env bash
# Session 50: compensated sums in 4 chains a work-item on CPUs (the default)
# against one (FUSECL_REDUCE_CHAINS=1, as before), the 2-core PoCL machine,
# interleaved, 3 rounds: sum_squares (a compensated float sum) at 2^16 to
# 2^22, eval and fuse(). Run from the repository root after building
# build-bundle; prints fusecl-bench's lines.
set -u
B=${BUILD:-build-bundle}/bench/fusecl-bench
for r in 1 2 3; do for c in 1 4; do
  echo "## round $r chains $c"
  FUSECL_REDUCE_CHAINS=$c FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-chains timeout 300 $B --min_log2=16 --max_log2=22 --log2_step=2 \
    --benchmark_filter='^BM_sum_squares/(fused_device|fuse_device)/' --benchmark_min_time=0.3 2>&1 | grep '^BM_'
done; done
