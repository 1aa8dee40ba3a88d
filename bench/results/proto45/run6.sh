#!/usr/bin/env bash
# Call 6 (session 45): fusecl's layout for short whole-vector rows (P work-items
# a row, K vectors each) against twice the work-items with half the vectors,
# both written by gen_rows.py, softmax and layer norm, two rounds
# (proto44/rows_harness.cpp with A:B rows a group, carry/new/bin/rows_harness;
# rows_harness2 when run, the same code as a copy since folded into it).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness
for r in 1 2; do
  for v in "20 2 3 4 2" "28 4 2 8 1" "36 4 3 8 2" "44 4 3 8 2" "52 4 4 8 2" "60 8 2 16 1" "100 8 4 16 2" "200 16 4 32 2"; do
    set -- $v
    for e in softmax layer_norm; do
      s=3; [ $e = softmax ] && s=0
      python3 $G $1 $2 $3 $e > /tmp/a.cl; python3 $G $1 $4 $5 $e > /tmp/b.cl
      echo "## $e rows of $1: P $2 K $3 / P $4 K $5"
      timeout 60 $H /tmp/a.cl /tmp/b.cl $1 $((128 / $2)):$((128 / $4)) $s 40 2>&1 | grep -v differing
    done
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
