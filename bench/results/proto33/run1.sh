#!/usr/bin/env bash
# Prototype timings (session 33, call 1): softmax row kernels as generated (a),
# with the row length a constant (b), and with 32-bit indexes too (c).
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/new/lib
cd bench/results/proto33
N=$((1<<26))
for round in 1 2; do
  for spec in "31 64 64" "129 8 128" "257 8 128" "1001 2 128"; do
    set -- $spec
    for v in a b c; do ./harness $v$1.cl "" $((N / $1)) $1 $2 $3 40; done
  done
done 2>&1 | tee $OUT/proto.txt
