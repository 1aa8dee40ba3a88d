#!/usr/bin/env bash
# Call 1 (session 48): do the short rows with an odd number of float4s lose
# time in their stores' partial 32-byte sectors? Each case's row kernel (the
# bundle in carry/new) timed interleaved with (b) the same kernel storing 16
# bytes further on (out0 + 4: rows of an even number of vectors then start
# mid-sector too; its output is shifted, so "differing" is expected) and
# (c) stage_out.py's rewrite, which stores the group's rows as one span
# through local memory (must be bit-identical). Two rounds.
CASES="${CASES:-softmax:20 softmax:24 softmax:28 softmax:40 softmax:44 softmax:52 layer_norm:20 layer_norm:24 layer_norm:44}"
source bench/results/proto47/common.sh
one_case() {
  sed 's/(out0 + p)/(out0 + 4 + p)/g' $k > $K/$name-out4.cl
  python3 bench/results/proto48/stage_out.py $k $K/$name-staged.cl || return
  echo "### $name rows/group $rpg scalars $ns: a, out0+4, staged"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-out4.cl $K/$name-staged.cl 2>&1
}
rounds one_case
mkdir -p $OUT/kernels && cp $K/*.cl $OUT/kernels/ 2>/dev/null
