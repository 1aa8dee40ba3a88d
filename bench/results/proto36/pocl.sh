#!/usr/bin/env bash
# PoCL (session 36): b13e7b7 (OLD, a build of it) against this build (NEW),
# interleaved, three rounds, 2^22 floats: kernels whose coordinates divide
# (softmax's output from kept statistics and reductions over a middle axis,
# a 4-D broadcast through softmax_out over axis 2) and the row kernels of
# the column form (untouched on CPUs: a work-item a vector of columns).
set -u
export FUSECL_DEVICE=pocl FUSECL_TUNE=0
C="softmax_out:64x256x256:1 softmax_out:16x512x512:1 softmax_out:8x8x256x256:2 sum:64x256x256:1 var:64x256x256:1 max:64x256x256:1 \
softmax:64x256x256:1 layer_norm:64x256x256:1 softmax:4096x1024:0 layer_norm:128x32768:0"
for r in 1 2 3; do
  for v in old new; do
    b=$OLD; [ $v = new ] && b=$NEW
    echo "## $v X=0, round $r"
    FUSECL_CACHE_DIR=/tmp/kc-pocl36-$v timeout 300 $b $C 2>&1
  done
done
