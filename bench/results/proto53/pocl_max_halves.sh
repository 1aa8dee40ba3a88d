#!/usr/bin/env bash
# Fifty-third session: max / min over rows longer than lanes take and over the
# whole array on PoCL, a work-item's vector met in halves (render_reduce.cpp's
# lanes_in_halves) against a lane at a time through the NaN-propagating helper
# (eda4339), 2^22 floats, the two probes interleaved.
# $1: old fusecl-axis-probe, $2: new, $3: rounds.
set -u
old=$1; new=$2; rounds=${3:-3}
export FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-proto53} FUSECL_CACHE_MAX_BYTES=8G
N=4194304
for round in $(seq "$rounds"); do
  for e in max; do
    for c in "$((N / 33))x33:1" "$((N / 48))x48:1" "$((N / 64))x64:1" "$((N / 256))x256:1" "$((N / 1024))x1024:1" "4x$((N / 4)):1" "$N:0"; do
      for which in old new; do
        echo -n "round $round $which "
        "${!which}" "$e:$c" 2>&1 | tail -1
      done
    done
  done
done
