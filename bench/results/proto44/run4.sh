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
# The variants: each work-item's 4 vectors cut to 3.
for f in r20 r44; do sed 's/k < 4; ++k/k < 3; ++k/g; s/rc0\[4\]/rc0[3]/; s/rc3\[4\]/rc3[3]/' $D/$f.cl > /tmp/${f}k3.cl; done
for r in 1 2; do
  $H $D/r20.cl /tmp/r20k3.cl 20 64 3 200
  $H $D/r44.cl /tmp/r44k3.cl 44 32 0 200
done 2>&1 | tee $OUT/run4.txt
