#!/usr/bin/env bash
# Session 52: row kernels over rows of 16 and 32 (the lanes form, whose
# kernel text this session left as it was) measured again beside the
# fifty-first session's figures, after a first reading 10-20% slower.
# $1: the probe, $2: rounds.
set -u
export FUSECL_TUNE=0 FUSECL_DEVICE=pocl
for r in $(seq "${2:-3}"); do
  FUSECL_CACHE_DIR=/tmp/kc-rows-new "$1" layer_norm:262144x16:1 softmax:262144x16:1 layer_norm:131072x32:1 softmax:131072x32:1 sum:419430x10:1 2>&1 |
    grep 'us per' | sed "s/^/round=$r build=new /"
done
