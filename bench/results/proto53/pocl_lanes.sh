#!/usr/bin/env bash
# Fifty-third session: lone reductions over short rows on PoCL, a lane a row
# against a work-item a row (FUSECL_ROW_LANES=0, which for a lone reduction
# changes only that), 2^22 floats, interleaved rounds. $1: fusecl-axis-probe,
# $2: rounds, $3: expressions, $4: row lengths. Run so:
#   bash pocl_lanes.sh PROBE 3 var "2 3 4 10 16 17 20 31 32 33"
#   bash pocl_lanes.sh PROBE 3 "argmax argmin" "2 3 10 16 17 31 32 33"
set -u
probe=$1; rounds=$2; exprs=$3; lengths=$4
export FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-proto53} FUSECL_CACHE_MAX_BYTES=8G
N=4194304
for round in $(seq "$rounds"); do
  for e in $exprs; do
    for m in $lengths; do
      for L in 0 1; do
        echo -n "round $round lanes=$L "
        FUSECL_ROW_LANES=$L "$probe" "$e:$((N / m))x$m:1" 2>&1 | tail -1
      done
    done
  done
done
