#!/usr/bin/env bash
# Fifty-fifth session: argmax / argmin of 1- and 2-byte integers on PoCL, the
# build before they compare as int32 (OLD: a value at a time) against the
# build after (NEW: int vectors beside int indices), three interleaved rounds,
# 2^22 elements.
set -u
OLD=${OLD:-/tmp/probe-rule} NEW=${NEW:-/tmp/probe-arg55}
export FUSECL_DEVICE=${DEVICE:-pocl} FUSECL_TUNE=0 FUSECL_CACHE_MAX_BYTES=8G
C=""
for dt in u8 i8 i16; do for op in argmax argmin; do for m in 40 1024 4194304; do C="$C $op:$((4194304 / m))x$m:1:$dt"; done; done; done
for r in 1 2 3; do
  FUSECL_CACHE_DIR=/tmp/kc-old55 $OLD $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new55 $NEW $C | sed "s/^/r$r new /"
done
