#!/usr/bin/env bash
# Call 13 (session 46): layer norm kernels whose output loops compute the chunk
# past the row's end and store under a predicate instead of breaking out
# (mask.py), each against fusecl's (kernels/ and ../proto45/kernels/), under
# fusecl's build options. Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto46 H=carry/new/bin/rows_harness
for r in 1 2; do
  for c in "800 2 $P/kernels/layer_norm-800.cl" "900 2 $P/kernels/layer_norm-900.cl" "700 2 $P/kernels/layer_norm-700.cl" \
           "20 64 bench/results/proto45/kernels/layer_norm-20.cl" "40 32 bench/results/proto45/kernels/layer_norm-40.cl" \
           "52 32 bench/results/proto45/kernels/layer_norm-52.cl"; do
    set -- $c
    python3 $P/mask.py $3 > /tmp/mask.cl
    echo "## layer norm $1: fusecl / masked stores"
    timeout 60 $H $3 /tmp/mask.cl $1 $2 3 40 2>&1
  done
done > $OUT/rows.txt
cat $OUT/rows.txt | grep -v '^outputs differing: 0 '
