#!/usr/bin/env bash
# Call 11 (session 46): layer norm's output phase with its row-invariant values
# (the divisor sqrt(var + eps), the reciprocal's z) computed once a work-item
# instead of at every chunk (hoist.py: sqrt4, sqrt1, z), each against fusecl's
# kernel (kernels/, df0fd1e) in one process, rows of 700, 800, 900 and 1024;
# and fusecl's against its FUSECL_ROW_RECIPROCAL=0 form over rows of 800.
# Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
P=bench/results/proto46 H=carry/new/bin/rows_harness
for r in 1 2; do
  echo "## layer norm 800: fusecl / reciprocal off"
  timeout 60 $H $P/kernels/layer_norm-800.cl $P/kernels/layer_norm-800-recip0.cl 800 2 3 40 2>&1
  for m in 800 900 700 1024; do for v in sqrt4 sqrt1 z; do
    python3 $P/hoist.py $P/kernels/layer_norm-$m.cl $v > /tmp/$v.cl
    echo "## layer norm $m: fusecl / $v"
    timeout 60 $H $P/kernels/layer_norm-$m.cl /tmp/$v.cl $m 2 3 40 2>&1
  done; done
done > $OUT/rows.txt
cat $OUT/rows.txt | grep -v '^outputs differing: 0 '
