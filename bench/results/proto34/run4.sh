#!/usr/bin/env bash
# Call 4 (session 34): the layer norm's output kernel over a middle axis
# (ln_harness.cpp) as generated, with 32-bit coordinates, with shifts, and
# without its sqrt and division; 2 rounds of 100 launches; then SASS counts.
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/nb/lib
cd bench/results/proto34
O="-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
for round in 1 2; do
  for v in ln_out ln_out32 ln_shift ln_nodiv; do HARNESS_BINARY=$OUT/$v.bin ./ln_harness $v.cl "$O" 64 1024 1024 100; done
  for v in ln_out ln_out32; do ./ln_harness $v.cl "$O" 256 1024 256 100; done
done 2>&1 | tee $OUT/ln.txt
cp ln_out.cl ln_out32.cl ln_shift.cl ln_nodiv.cl $OUT/
python3 ../../sass_count.py $OUT/ln_out.bin $OUT/ln_out32.bin $OUT/ln_shift.bin $OUT/ln_nodiv.bin 2>&1 | tee -a $OUT/ln.txt
