#!/usr/bin/env bash
# Call 10 (session 47): is the short rows' split by the parity of their
# vectors a matter of 32-byte sectors? The same kernels (4a505f5's bundle)
# with the input at offset 0 and shifted by 16 bytes (HARNESS_OFF0=4): rows
# of 24 and 40 floats (96 and 160 bytes) then start mid-sector every time,
# rows of 20 every other time either way. Two rounds.
CASES="${CASES:-softmax:20 softmax:24 softmax:40 layer_norm:20 layer_norm:24 layer_norm:40}"
source bench/results/proto47/common.sh
one_case() {
  for off in 0 4; do
    echo "### $name rows/group $rpg scalars $ns offset $off"
    HARNESS_OFF0=$off /tmp/rows_multi $m $rpg $ns 60 $k 2>&1
  done
}
rounds one_case
