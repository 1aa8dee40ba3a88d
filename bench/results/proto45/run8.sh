#!/usr/bin/env bash
# Call 8 (session 45): fusecl's own kernels for short rows (kernels/, saved by
# run3.sh from the bundle of afd569d) against gen_rows.py's in the same layout
# with clamped loads, in one harness (carry/new/bin/rows_harness), two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness K=bench/results/proto45/kernels
for r in 1 2; do
  for v in "softmax 20 2 3" "softmax 40 4 3" "softmax 44 4 3" "layer_norm 20 2 3" "layer_norm 40 4 3" "layer_norm 52 4 4"; do
    set -- $v; s=3; [ $1 = softmax ] && s=0
    python3 $G $2 $3 $4 $1 clamp > /tmp/b.cl
    echo "## $1 rows of $2: fusecl / P $3 K $4 clamp"
    timeout 60 $H $K/$1-$2.cl /tmp/b.cl $2 $((128 / $3)) $s 40 2>&1
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
