#!/usr/bin/env bash
# Call 1 (session 34): Black-Scholes as fusecl generates it for the H200 (float4,
# 29 scalar arguments) against the same kernel with its scalars literals of
# the source; kernel time, best and median of 200, then the SASS counts.
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/base/lib
cd bench/results/proto34
O="-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
for round in 1 2 3; do
  for v in bs_args bs_lit; do HARNESS_BINARY=$OUT/$v.bin ./bs_harness $v.cl "$O" 26 200; done
done 2>&1 | tee $OUT/proto.txt
cp bs_args.cl bs_lit.cl $OUT/
python3 ../../sass_count.py $OUT/bs_args.bin $OUT/bs_lit.bin --sass $OUT/sass 2>&1 | tee -a $OUT/proto.txt
