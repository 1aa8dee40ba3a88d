#!/usr/bin/env bash
# Fifty-third session: reductions over rows that leave a vector tail on PoCL, the
# tail as one overlapping vector and a max's lanes met in halves (af64afe, 2fe5e8f) against
# eda4339, 2^22 floats, the two probes interleaved. $1: old probe, $2: new, $3: rounds.
set -u
old=$1; new=$2; rounds=${3:-3}
export FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-proto53} FUSECL_CACHE_MAX_BYTES=8G
N=4194304
for round in $(seq "$rounds"); do
  for e in sum max; do
    for c in "$((N / 40))x40:1" "$((N / 48))x48:1" "$((N / 100))x100:1" "$((N / 1000))x1000:1" "$((N / 1024))x1024:1"; do
      for which in old new; do
        echo -n "round $round $which "
        "${!which}" "$e:$c" 2>&1 | tail -1
      done
    done
  done
done
