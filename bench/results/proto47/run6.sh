#!/usr/bin/env bash
# Call 6 (session 47), diagnostic only (none of these keeps NumPy's meaning
# or fusecl's bits): where softmax's time over rows of 20, 300 and 600 goes.
# d9b44f8's kernels against: exp as native_exp (nexp), the compensated sum
# as a plain one (plain), both (both). rows_multi, two rounds.
CASES="${CASES:-softmax:20 softmax:300 softmax:600 softmax:800 layer_norm:20 layer_norm:600}"
source bench/results/proto47/common.sh
one_case() {
  sed 's/= exp(/= native_exp(/' $k > $K/$name-nexp.cl
  sed -E 's/\{ const float4 y_ = (v[0-9]+) - compv; .*accv = t_; \}/accv += \1;/' $k > $K/$name-plain.cl
  sed 's/= exp(/= native_exp(/' $K/$name-plain.cl > $K/$name-both.cl
  echo "### $name rows/group $rpg scalars $ns"
  /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-nexp.cl $K/$name-plain.cl $K/$name-both.cl 2>&1
}
rounds one_case
