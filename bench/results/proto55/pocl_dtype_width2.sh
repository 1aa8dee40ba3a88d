#!/usr/bin/env bash
# Fifty-fifth session, second pass over pocl_dtype_width.sh's open cells, five
# interleaved rounds: max (and sum) of float64 over rows of 48 to 4096 and
# over 2^22 in 8 / 4 lanes; sum and max of int8 / int16 over rows of 17 to
# 56 with the width rule (8 lanes) and without (16).
set -u
RULE=${PROBE_RULE:-/tmp/probe-rule}
EXP=${PROBE_EXP:-/tmp/probe-exp}
export FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_DIR=${CACHE:-/tmp/kc-dtype} FUSECL_CACHE_MAX_BYTES=8G
cases() {  # dtype "lengths" ops
  local dt=$1 ms=$2; shift 2
  for op in "$@"; do for m in $ms; do echo "$op:$((4194304 / m))x$m:1:$dt"; done; done
}
for r in 1 2 3 4 5; do
  F64=$(cases f64 "48 64 128 256 1024 4096" max sum argmax)
  FUSECL_VECTOR_BYTES=64 $RULE $F64 max:1x4194304:1:f64 | sed "s/^/r$r f64-8 /"
  FUSECL_VECTOR_BYTES=32 $RULE $F64 max:1x4194304:1:f64 | sed "s/^/r$r f64-4 /"
  for dt in i8 i16 u8; do
    $RULE $(cases $dt "17 24 33 40 48 56" sum max) | sed "s/^/r$r $dt-rule /"
    EXP_NORULE=1 $EXP $(cases $dt "17 24 33 40 48 56" sum max) | sed "s/^/r$r $dt-16 /"
  done
done
