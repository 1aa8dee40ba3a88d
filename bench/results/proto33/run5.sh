#!/bin/bash
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/new/lib PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
N=$((1<<26)); R=$OUT
cd bench/results/proto33
for v in a b; do
  HARNESS_BINARY=/tmp/${v}65.bin ./harness ${v}65.cl "" $((N / 65)) 65 16 128 40
  tr -d '\000' < /tmp/${v}65.bin > /tmp/${v}65.ptx
  ptxas -arch=sm_90 /tmp/${v}65.ptx -o /tmp/${v}65.cubin && cuobjdump -sass /tmp/${v}65.cubin > $R/${v}65.sass
  cuobjdump -res-usage /tmp/${v}65.cubin 2>&1 | tail -2
done
