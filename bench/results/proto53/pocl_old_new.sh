#!/usr/bin/env bash
# Fifty-third session: fusecl-axis-probe cases on PoCL, two builds' probes
# interleaved, 2^22 floats. $1: the old probe, $2: the new one, $3: rounds,
# the rest: cases (expression:shape:axis). Run so:
#   argmin/argmax in vectors (73c5686) against a group a row (eda4339):
#     CASES="argmax:127100x33:1 argmax:65536x64:1 argmax:16384x256:1 argmax:4096x1024:1 argmax:4x1048576:1 argmax:4194304:0" (and argmin)
#   max met in halves (af64afe) against eda4339:
#     max over 127100x33 87381x48 65536x64 16384x256 4096x1024 4x1048576, and 4194304:0
#   tails as one vector (2fe5e8f) against eda4339: sum and max over 104857x40 87381x48 41943x100 4194x1000 4096x1024
set -u
old=$1; new=$2; rounds=$3; shift 3
export FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=${FUSECL_CACHE_DIR:-/tmp/kc-proto53} FUSECL_CACHE_MAX_BYTES=8G
for round in $(seq "$rounds"); do
  for c in "$@"; do
    for which in old new; do
      echo -n "round $round $which "
      "${!which}" "$c" 2>&1 | tail -1
    done
  done
done
