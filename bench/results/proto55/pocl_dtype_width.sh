#!/usr/bin/env bash
# Fifty-fifth session: a CPU's (PoCL) short rows of other dtypes in vectors of
# other widths. Reductions over rows of M (2^22 elements), three interleaved
# rounds; PROBE_RULE is the build's probe, PROBE_EXP the same with the width
# rule switchable off (EXP_NORULE=1, an experiment build, not committed).
#   f64: FUSECL_VECTOR_BYTES 64 / 32 / 16 (8 / 4 / 2 lanes; the rule never applies: 8 lanes)
#   i8, u8, i16: the rule's 8 lanes, no rule (16 lanes), 4 lanes (VECTOR_BYTES 4 or 8)
set -u
RULE=${PROBE_RULE:-/tmp/probe-rule}
EXP=${PROBE_EXP:-/tmp/probe-exp}
export FUSECL_DEVICE=pocl FUSECL_TUNE=0 FUSECL_CACHE_DIR=${CACHE:-/tmp/kc-dtype} FUSECL_CACHE_MAX_BYTES=8G
MS="17 24 33 40 48 56 64 96 128"
cases() {  # dtype ops
  local dt=$1; shift
  for op in "$@"; do for m in $MS; do echo "$op:$((4194304 / m))x$m:1:$dt"; done; done
}
for r in 1 2 3; do
  FUSECL_VECTOR_BYTES=64 $RULE $(cases f64 sum max argmax) | sed "s/^/r$r f64-8 /"
  FUSECL_VECTOR_BYTES=32 $RULE $(cases f64 sum max argmax) | sed "s/^/r$r f64-4 /"
  FUSECL_VECTOR_BYTES=16 $RULE $(cases f64 sum max argmax) | sed "s/^/r$r f64-2 /"
  for dt in i8 u8 i16; do
    $RULE $(cases $dt sum max) | sed "s/^/r$r $dt-rule /"
    EXP_NORULE=1 $EXP $(cases $dt sum max) | sed "s/^/r$r $dt-16 /"
    vb=4; [ $dt = i16 ] && vb=8
    FUSECL_VECTOR_BYTES=$vb $RULE $(cases $dt sum max) | sed "s/^/r$r $dt-4 /"
  done
done
