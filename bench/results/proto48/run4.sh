#!/usr/bin/env bash
# Call 4 (session 48): rows of an odd number of float4s with every other
# row's vectors rotated by one (variants.py --rotate), so that each store and
# load instruction covers whole 32-byte sectors. Each case's kernel (a)
# against the rotated one (b; its sums add in another order over odd rows:
# "differing" counts those bits; rows of 24 and 40 are the control, where the
# rotation is none). Two rounds.
CASES="${CASES:-softmax:20 softmax:28 softmax:36 softmax:44 softmax:52 softmax:60 softmax:24 layer_norm:20 layer_norm:28 layer_norm:44 layer_norm:52 layer_norm:40}"
source bench/results/proto47/common.sh
one_case() {
  python3 bench/results/proto48/variants.py --rotate $k $K/$name-rotate.cl || return
  echo "### $name rows/group $rpg scalars $ns: a, rotate"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-rotate.cl 2>&1
}
rounds one_case
