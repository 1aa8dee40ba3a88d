#!/usr/bin/env bash
# Fifty-fifth session: the build before the half-vector rule for float max/min
# (OLD) against the build with it (NEW), three interleaved rounds on PoCL,
# 2^22 elements; 8 rows of 2^19 and one row of 2^22 keep full vectors.
set -u
OLD=${OLD:-/tmp/probe-rule} NEW=${NEW:-/tmp/probe-new55}
export FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_MAX_BYTES=8G
C=""
for dt in f32 f64; do for op in max min; do for m in 40 64 128 1024 4096 524288 4194304; do C="$C $op:$((4194304 / m))x$m:1:$dt"; done; done; done
for r in 1 2 3; do
  FUSECL_CACHE_DIR=/tmp/kc-old55 $OLD $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new55 $NEW $C | sed "s/^/r$r new /"
done
