#!/usr/bin/env bash
# Call 7 (session 45): call 6's pairs with every work-item loading (past the
# row's end, its last vector again, as fusecl's kernels do: gen_rows.py clamp)
# instead of predicated loads; first r20.cl (fusecl's) against the generator's
# same layout with clamped loads (carry/new/bin/rows_harness).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness
for r in 1 2; do
  python3 $G 20 2 3 clamp > /tmp/b.cl
  echo "## layer_norm rows of 20: r20.cl / P 2 K 3 clamp"
  timeout 60 $H bench/results/proto44/r20.cl /tmp/b.cl 20 64 3 40 2>&1
  for v in "20 2 3 4 2" "20 2 3 8 1" "44 4 3 8 2" "44 4 3 16 1" "52 4 4 8 2"; do
    set -- $v
    for e in softmax layer_norm; do
      s=3; [ $e = softmax ] && s=0
      python3 $G $1 $2 $3 $e clamp > /tmp/a.cl; python3 $G $1 $4 $5 $e clamp > /tmp/b.cl
      echo "## $e rows of $1: P $2 K $3 / P $4 K $5, clamped"
      timeout 60 $H /tmp/a.cl /tmp/b.cl $1 $((128 / $2)):$((128 / $4)) $s 40 2>&1 | grep -v differing
    done
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
