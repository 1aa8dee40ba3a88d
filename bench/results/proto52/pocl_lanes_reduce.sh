#!/usr/bin/env bash
# Session 52: lone reductions over short rows on the 2-core PoCL machine,
# a lane a row (scheduler.cpp's rows_in_lanes) against the forms before
# (a work-item a row in scalars, or in vectors with a scalar tail), in one
# binary: FUSECL_LANES_MOST (a temporary switch of this session, rows of at
# most that many vectors in lanes; 0: none) chose the form. 2^22 floats,
# rounds interleaved. $1: the probe; $2: rounds.
set -u
probe=${1:-build-bundle/bench/fusecl-axis-probe}
rounds=${2:-3}
export FUSECL_TUNE=0 FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-p52}
for r in $(seq "$rounds"); do
  for m in 2 3 4 5 8 10 12 15 16 17 20 24 31 32; do
    rows=$(( 4194304 / m ))
    for most in 2 0; do
      for op in ${OPS:-sum max sum_exp}; do
        t=$(FUSECL_LANES_MOST=$most "$probe" "$op:${rows}x$m:1" 2>&1 | grep 'us per call' | sed 's/.*axis 1: *\([0-9.]*\) us.*/\1/')
        echo "round=$r m=$m most=$most op=$op us=$t"
      done
    done
  done
done
