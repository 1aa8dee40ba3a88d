#!/usr/bin/env bash
# Call 11 (session 45): is it occupancy? fusecl's softmax over rows of 20, 40
# and 44 (kernels/, 32 registers: 16 groups of 128 an SM) with fewer groups
# resident, capped by an unused-but-kept __local array (sh1 grown to B floats and
# written where n < 0, which never happens): 18 KB (12 groups an SM), 28 KB
# (8), 44 KB (5). Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
H=carry/new/bin/rows_harness K=bench/results/proto45/kernels
for r in 1 2; do
  for m in 20 40 44; do
    rpg=32; [ $m = 20 ] && rpg=64
    for b in 4608 7168 11264; do
      sed -e "s/__local float sh1\[128\];/__local float sh1[$b]; if (n < 0) sh1[lid] = 0.0f;/" $K/softmax-$m.cl > /tmp/pad.cl
      echo "## softmax rows of $m: fusecl / __local $b floats"
      timeout 60 $H $K/softmax-$m.cl /tmp/pad.cl $m $rpg 0 40 2>&1 | grep -v differing
    done
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
