#!/usr/bin/env bash
# Call 2 (session 47): which loops' predicate gains and which loses: fusecl's
# row kernels (carry/new) against pred.py's variants changing the reduction
# loops one by one (0: the first, 1: the second) and the output loops (o),
# interleaved in one process each (rows_multi), outputs compared bit for bit.
CASES="${CASES:-softmax:20 softmax:44 softmax:52 softmax:300 softmax:600 softmax:800 softmax:1100 softmax:2200 layer_norm:20 layer_norm:44 layer_norm:52 layer_norm:300 layer_norm:800 layer_norm:900 layer_norm:1100 layer_norm:2200}"
source bench/results/proto47/common.sh
one_case() {
  if ! grep -q "break;" $k; then echo "$name: no row-end test"; return; fi
  if [ $e = softmax ]; then sels="0 1 01 1o 01o"; else sels="0 1 01"; fi
  v=""; for s in $sels; do python3 $P/pred.py $k $s > $K/$name-p$s.cl && v="$v $K/$name-p$s.cl"; done
  wg=$(grep -o "reqd_work_group_size([0-9]*" $k | grep -o "[0-9]*$")
  [ "$wg" = 128 ] || { echo "$name: work-group $wg"; return; }
  echo "### $name rows/group $rpg scalars $ns"
  /tmp/rows_multi $m $rpg $ns 60 $k $v 2>&1
}
rounds one_case
tar czf $OUT/kernels.tgz -C $K .
