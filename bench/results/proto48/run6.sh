#!/usr/bin/env bash
# Call 6 (session 48): --rotate2 (b) and --rotate3 (c: the wrap tested in one chunk)
# against each kernel (a). Two rounds.
CASES="${CASES:-softmax:20 softmax:28 softmax:36 softmax:44 softmax:52 softmax:60 layer_norm:20 layer_norm:28 layer_norm:36 layer_norm:44 layer_norm:52 layer_norm:60}"
source bench/results/proto47/common.sh
one_case() {
  python3 bench/results/proto48/variants.py --rotate3 $k $K/$name-rotate3.cl || return
  python3 bench/results/proto48/variants.py --rotate2 $k $K/$name-rotate2.cl || return
  echo "### $name rows/group $rpg scalars $ns: a, rotate2, rotate3"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-rotate2.cl $K/$name-rotate3.cl 2>&1
}
rounds one_case
