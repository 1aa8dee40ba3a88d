#!/usr/bin/env bash
# Fifty-third session: argmax / argmin over short rows on PoCL, a lane a row
# (render_reduce.cpp's lanes_rows) against a work-item a row (FUSECL_ROW_LANES=0,
# which for a lone reduction changes only that), 2^22 floats, interleaved rounds.
# $1: fusecl-axis-probe, $2: rounds, $3: expressions (default "argmax argmin").
set -u
probe=$1; rounds=${2:-3}; exprs=${3:-argmax argmin}
export FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-proto53} FUSECL_CACHE_MAX_BYTES=8G
N=4194304
for round in $(seq "$rounds"); do
  for e in $exprs; do
    for m in 2 3 10 16 17 31 32 33; do
      for L in 0 1; do
        echo -n "round $round lanes=$L "
        FUSECL_ROW_LANES=$L "$probe" "$e:$((N / m))x$m:1" 2>&1 | tail -1
      done
    done
  done
done
