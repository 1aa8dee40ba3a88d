#!/usr/bin/env bash
# Prepared in session 47, not run (no device time was left): the short rows'
# parity and their stores. Call 10
# shifted the loads by 16 bytes and changed nothing; here the same kernels
# (4a505f5's bundle) against a variant storing 16 bytes further on (out0 + 4),
# so that rows of 24 and 40 floats write partial 32-byte sectors as rows of
# 20 and 44 do. The variant's outputs are shifted: "differing" means nothing.
CASES="${CASES:-softmax:20 softmax:24 softmax:40 softmax:44 layer_norm:24 layer_norm:40}"
source bench/results/proto47/common.sh
one_case() {
  sed 's/(out0 + p)/(out0 + 4 + p)/g' $k > $K/$name-out4.cl
  echo "### $name rows/group $rpg scalars $ns"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-out4.cl 2>&1
}
rounds one_case
