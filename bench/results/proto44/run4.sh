#!/usr/bin/env bash
# Call 4 (session 44): whole-vector rows held 4 vectors a work-item where 3 hold
# them (rows of 20 over 2 work-items, of 44 over 4: the power of two at or
# above the chunks), against the same kernels holding 3: the layer norm over
# rows of 20 and softmax over rows of 44 as fusecl generated them (call 1),
# interleaved, outputs compared bit for bit.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$PWD/carry/new/lib}
H=carry/new/bin/rows_harness D=bench/results/proto44
for r in 1 2; do
  $H $D/r20.cl $D/r20k3.cl 20 64 3 200
  $H $D/r44.cl $D/r44k3.cl 44 32 0 200
done 2>&1 | tee $OUT/run4.txt
