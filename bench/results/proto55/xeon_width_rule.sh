#!/usr/bin/env bash
# Fifty-fifth session: the fifty-fourth's width rule (a CPU's rows of fewer
# than 64 floats in vectors of 8, not 16) on the GPU machine's host CPU
# (PoCL 5.0): one experiment build of the probe with the rule switchable
# (EXP_NORULE=1: off), three interleaved rounds, 2^22 elements; rows of 64
# are the control (no rule either way).
set -u
export LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_MAX_BYTES=8G
P=${PROBE:-carry/new/bin/probe-exp55}
C=""
for op in sum max argmax var; do for m in 33 40 48 56 64; do C="$C $op:$((4194304 / m))x$m:1"; done; done
for op in sum max; do for m in 24 40; do C="$C $op:$((4194304 / m))x$m:1:u8 $op:$((4194304 / m))x$m:1:i16"; done; done
for r in 1 2 3; do
  FUSECL_CACHE_DIR=/tmp/kc-rule $P $C | sed "s/^/r$r rule /"
  EXP_NORULE=1 FUSECL_CACHE_DIR=/tmp/kc-norule $P $C | sed "s/^/r$r norule /"
done
