#!/usr/bin/env bash
# Call 5 (session 47): short rows a work-item each (t1.py: 128 rows a group,
# every vector of the row in registers, no shuffles) against d9b44f8's kernels
# (2 or 4 work-items a row). rows_multi, two rounds; the sums run in another
# order, so outputs differ in their last bits.
CASES="${CASES:-softmax:20 softmax:28 softmax:40 softmax:44 softmax:52 layer_norm:20 layer_norm:28 layer_norm:40 layer_norm:44 layer_norm:52}"
source bench/results/proto47/common.sh
one_case() {
  python3 $P/t1.py $k > $K/$name-t1.cl || { echo "$name: t1.py failed"; return; }
  echo "### $name rows/group $rpg scalars $ns"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-t1.cl@128 2>&1
}
rounds one_case
tar czf $OUT/kernels.tgz -C $K .
