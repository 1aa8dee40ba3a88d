#!/usr/bin/env bash
# PoCL (this 2-core machine), session 35: the kept code (build-bundle)
# against call 1's bundle (carry/old: index32, and softmax's column pair
# a row at a time), and the kept code with FUSECL_INDEX32=0 against 1 (the
# thirty-fourth session's 32-bit coordinates, not timed on PoCL then),
# interleaved over three rounds, 2^22 floats.
set -u
export FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_DIR=/tmp/kc-pocl35
C="softmax:4096x1024:0 softmax:2048x2048:0 logsumexp:4096x1024:0 softmax:64x256x256:1 layer_norm:64x256x256:1 softmax:16x512x512:1 sum:64x256x256:1 layer_norm:4096x1024:0"
for r in 1 2 3; do
  for v in "old X=0" "new X=0" "new FUSECL_INDEX32=0"; do
    set -- $v
    p=build-bundle/bench/fusecl-axis-probe; [ "$1" = old ] && p=carry/old/bin/fusecl-axis-probe
    echo "## $1 $2, round $r"
    env $2 $p $C 2>&1
  done
done
# Then softmax and the layer norm over axis 1 of 64 x 256 x 256 again, 5 rounds.
for r in 1 2 3 4 5; do
  for v in "old X=0" "new X=0" "new FUSECL_INDEX32=0"; do
    set -- $v
    p=build-bundle/bench/fusecl-axis-probe; [ "$1" = old ] && p=carry/old/bin/fusecl-axis-probe
    echo "## $1 $2, round $r"
    env $2 $p softmax:64x256x256:1 layer_norm:64x256x256:1 2>&1
  done
done
