#!/usr/bin/env bash
# Fifty-fifth session: max and min over rows of float32 / float64 on PoCL in
# full vectors (FUSECL_VECTOR_BYTES 64: 16 floats, 8 doubles) and in halves
# (32: 8 floats, 4 doubles), three interleaved rounds, 2^22 elements.
set -u
P=${PROBE:-/tmp/probe-rule}
export FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_DIR=${CACHE:-/tmp/kc-dtype} FUSECL_CACHE_MAX_BYTES=8G
C=""
for dt in f32 f64; do for op in max min; do for m in 64 128 1024 4096 4194304; do C="$C $op:$((4194304 / m))x$m:1:$dt"; done; done; done
for r in 1 2 3; do
  FUSECL_VECTOR_BYTES=64 $P $C | sed "s/^/r$r full /"
  FUSECL_VECTOR_BYTES=32 $P $C | sed "s/^/r$r half /"
done
