#!/usr/bin/env bash
# Fifty-fourth session, PoCL (the 2-core AMD EPYC machine): a CPU's
# reductions a work-item a row over rows of 33 to 64 floats (2^22 in all),
# in vectors of 16 floats (the build before the width rule, /tmp/probe-old)
# and as the rule picks them now (/tmp/probe-new), three interleaved rounds
# (pocl_width_oldnew.txt; the table: python3 width_table.py). Before it,
# FUSECL_VECTOR_BYTES=64 against 32 on one build (pocl_vector_bytes.txt)
# found the narrower vectors faster below 64-float rows.
# Build the two probes: make -C build-bundle fusecl-axis-probe at each commit, copied to /tmp/probe-old and -new.
export FUSECL_DEVICE=pocl FUSECL_TUNE=0
C=""
for m in 33 40 48 56 64; do n=$((4194304 / m)); for op in sum max argmax var; do C="$C $op:${n}x$m:1"; done; done
for r in 1 2 3; do
  for b in old new; do
    FUSECL_CACHE_DIR=/tmp/kc-$b /tmp/probe-$b $C 2>&1 | grep -v "^#" | awk -v b=$b -v r=$r '{print r, b, $1, $2, $3, $6}'
  done
done
# Then (pocl_width_oldnew2.txt) the rows the rule reaches below 33: sum over
# rows of 32 as the suite takes it (float sums of two whole vectors take a
# work-item's chains, not lanes), and with FUSECL_ROW_LANES=0 sum, max and
# argmax over rows of 17, 24 and 32; width_table.py 2 tabulates it.
C=""
for m in 17 24 32; do n=$((4194304 / m)); for op in sum max argmax; do C="$C $op:${n}x$m:1"; done; done
for r in 1 2 3; do
  for b in old new; do
    echo "lanes $r $b $(FUSECL_CACHE_DIR=/tmp/kc-$b /tmp/probe-$b sum:131072x32:1 2>&1 | grep -v '^#' | awk '{print $6}')"
    FUSECL_ROW_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-$b /tmp/probe-$b $C 2>&1 | grep -v "^#" | awk -v b=$b -v r=$r '{print r, b, $1, $2, $3, $6}'
  done
done
