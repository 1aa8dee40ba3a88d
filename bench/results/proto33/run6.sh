#!/bin/bash
# Occupancy capped by an unread local array (8 to 32 KiB a group) on softmax
# over rows of 65, 129, 257, the row length as the argument (a) and a constant (b).
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/new/lib
N=$((1<<26))
cd bench/results/proto33
for round in 1 2; do
  for spec in "65 16 128" "129 8 128" "257 8 128"; do
    set -- $spec
    for v in a b; do
      ./harness $v$1.cl "" $((N / $1)) $1 $2 $3 40
      for pad in 8192 16384 24576 32768; do ./harness p${pad}_$v$1.cl "" $((N / $1)) $1 $2 $3 40; done
    done
  done
done 2>&1 | tee $OUT/occupancy.txt
