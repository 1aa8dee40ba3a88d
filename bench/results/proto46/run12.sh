#!/usr/bin/env bash
# Call 12 (session 46): rows_harness built every kernel with "-cl-std=CL1.2"
# only, where fusecl adds -cl-fp32-correctly-rounded-divide-sqrt on this GPU
# (src/launch.cpp): its division and sqrt were NVIDIA's approximate ones (call
# 11's fusecl against reciprocal-off kernels differed in 15.9M of 67M
# outputs). Calls 1, 2 and 11 again under fusecl's options (HARNESS_OPTIONS):
# the hybrids that mattered (ffff, gggg, affa, gffa), the layer norm hoists.
# Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto46 H=carry/new/bin/rows_harness
for c in ffff gggg affa gffa; do python3 $P/hybrid.py $c > /tmp/$c.cl; done
for r in 1 2; do
  echo "## layer norm 800: fusecl / reciprocal off"
  timeout 60 $H $P/kernels/layer_norm-800.cl $P/kernels/layer_norm-800-recip0.cl 800 2 3 40 2>&1
  for m in 800 900 700 1024; do for v in sqrt1 z; do
    python3 $P/hoist.py $P/kernels/layer_norm-$m.cl $v > /tmp/$v.cl
    echo "## layer norm $m: fusecl / $v"
    timeout 60 $H $P/kernels/layer_norm-$m.cl /tmp/$v.cl $m 2 3 40 2>&1
  done; done
  for c in gggg affa gffa; do echo "## softmax 20: ffff / $c"; timeout 60 $H /tmp/ffff.cl /tmp/$c.cl 20 64 0 40 2>&1; done
done > $OUT/rows.txt
cat $OUT/rows.txt | grep -v '^outputs differing: 0 '
