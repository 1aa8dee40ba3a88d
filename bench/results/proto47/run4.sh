#!/usr/bin/env bash
# Call 4 (session 47): the chunk index as an int (sl + k * T, not sl + (long)k * T;
# the forty-sixth session's int-index.patch) in d9b44f8's row kernels, whose
# loops past the first reduction are masked: everywhere (iall), in the load
# loop only (iload), in the phases' loops only (iq). rows_multi, two rounds.
CASES="${CASES:-softmax:20 softmax:40 softmax:44 softmax:52 softmax:300 softmax:600 softmax:900 layer_norm:20 layer_norm:40 layer_norm:44 layer_norm:52 layer_norm:300 layer_norm:600 layer_norm:800 layer_norm:900}"
source bench/results/proto47/common.sh
one_case() {
  sed 's/(long)k \* /k * /g' $k > $K/$name-iall.cl
  sed '/const long rk_ = /s/(long)k \* /k * /' $k > $K/$name-iload.cl
  sed '/const long q = /s/(long)k \* /k * /' $k > $K/$name-iq.cl
  wg=$(grep -o "reqd_work_group_size([0-9]*" $k | grep -o "[0-9]*$")
  [ "$wg" = 128 ] || { echo "$name: work-group $wg"; return; }
  echo "### $name rows/group $rpg scalars $ns"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-iall.cl $K/$name-iload.cl $K/$name-iq.cl 2>&1
}
rounds one_case
