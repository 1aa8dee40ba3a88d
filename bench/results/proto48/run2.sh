#!/usr/bin/env bash
# Call 2 (session 48): call 1's group-staged stores lost 2-25 us; is it the
# group's barrier? Each case's kernel (a) against stage_out.py's group-staged
# rewrite (b) and its warp-staged one (c: each warp's rows through local
# memory, PTX bar.warp.sync, no group barrier); a and b alone where the
# driver refuses c's asm. Two rounds.
CASES="${CASES:-softmax:20 softmax:24 softmax:28 softmax:44 layer_norm:20 layer_norm:24}"
source bench/results/proto47/common.sh
one_case() {
  python3 bench/results/proto48/stage_out.py $k $K/$name-staged.cl || return
  python3 bench/results/proto48/stage_out.py --warp $k $K/$name-warp.cl || return
  echo "### $name rows/group $rpg scalars $ns: a, group-staged, warp-staged"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-staged.cl $K/$name-warp.cl 2>&1 ||
    /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-staged.cl 2>&1
}
rounds one_case
