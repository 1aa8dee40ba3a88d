#!/usr/bin/env bash
# Call 9 (session 45): fusecl's softmax kernels for rows of 20, 40 and 44
# (kernels/) against themselves with one change each, made here by sed:
#   fold: a work-item's 4 lanes folded to its max as gen_rows.py does (fmax of
#         pairs, NaN if any lane is) instead of 4 chained fcl_maximum_float;
#   nolocal: the unused __local arrays sh1 and sh4 dropped.
# Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
H=carry/new/bin/rows_harness K=bench/results/proto45/kernels
for r in 1 2; do
  for m in 20 40 44; do
    rpg=32; [ $m = 20 ] && rpg=64
    sed -e '/acc = fcl_maximum_float(acc, accv.s0);/c\      acc = fmax(fmax(accv.s0, accv.s1), fmax(accv.s2, accv.s3)); if (isnan(accv.s0) || isnan(accv.s1) || isnan(accv.s2) || isnan(accv.s3)) acc = NAN;' \
        -e '/acc = fcl_maximum_float(acc, accv.s[123]);/d' $K/softmax-$m.cl > /tmp/fold.cl
    grep -v '__local float sh[14]\[' $K/softmax-$m.cl > /tmp/nolocal.cl
    for v in fold nolocal; do
      echo "## softmax rows of $m: fusecl / $v"
      timeout 60 $H $K/softmax-$m.cl /tmp/$v.cl $m $rpg 0 40 2>&1
    done
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
