#!/usr/bin/env bash
# Call 7 (session 47): the compensated sum as a plain one (plain) in row kernels
# whose work-items add few terms a lane, across row lengths (not fusecl's bits;
# within the same error bound where a lane adds at most 4 terms).
# rows_multi, two rounds; each kernel's chunks a work-item printed.
CASES="${CASES:-softmax:20 softmax:44 softmax:52 softmax:100 softmax:200 softmax:300 softmax:500 softmax:600 softmax:800 softmax:900 softmax:1100 softmax:2200 layer_norm:20 layer_norm:44 layer_norm:52 layer_norm:100 layer_norm:200 layer_norm:300 layer_norm:500 layer_norm:600 layer_norm:800 layer_norm:900 layer_norm:1100 layer_norm:2200}"
source bench/results/proto47/common.sh
one_case() {
  sed -E 's/\{ const float4 y_ = (v[0-9]+) - compv; .*accv = t_; \}/accv += \1;/' $k > $K/$name-plain.cl
  echo "### $name rows/group $rpg scalars $ns chunks $(grep -o 'float[0-9]* rc0\[[0-9]*\]' $k)"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-plain.cl 2>&1
}
rounds one_case
