#!/usr/bin/env bash
# Call 10 (session 45): the SASS of fusecl's softmax over rows of 20 and 44
# (kernels/) and of gen_rows.py's, clamped loads, same layout (faster by 8 and
# 4 us with bit-identical outputs, run8.sh): program binaries written by the
# harness (HARNESS_BINARY), counted and dumped by bench/sass_count.py --sass.
set -u
mkdir -p /etc/OpenCL/vendors $OUT/sass
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness K=bench/results/proto45/kernels
for v in "20 2 3" "44 4 3"; do
  set -- $v
  python3 $G $1 $2 $3 softmax clamp > /tmp/gen-$1.cl
  HARNESS_BINARY=/tmp/fusecl-$1.bin timeout 60 $H $K/softmax-$1.cl $K/softmax-$1.cl $1 $((128 / $2)) 0 4 > /dev/null 2>&1
  HARNESS_BINARY=/tmp/gen-$1.bin timeout 60 $H /tmp/gen-$1.cl /tmp/gen-$1.cl $1 $((128 / $2)) 0 4 > /dev/null 2>&1
done
PATH=$PATH:/usr/local/cuda/bin python3 carry/new/sass_count.py --sass $OUT/sass /tmp/fusecl-20.bin /tmp/gen-20.bin /tmp/fusecl-44.bin /tmp/gen-44.bin 2>&1 | tee $OUT/count.txt
