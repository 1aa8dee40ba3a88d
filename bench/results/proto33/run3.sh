#!/bin/bash
# Thirty-third session, call 3: rows of 41 to 127 with FUSECL_ROW_CONSTANT 0/1;
# the SASS of softmax over rows of 65 with the row length as the argument (a65)
# and as a constant (b65); then the suite's first half.
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
R=$OUT
export LD_LIBRARY_PATH=$PWD/carry/new/lib
N=$((1<<26))
C=""
for m in 41 49 57 65 73 81 97 113 127; do n=$((N / m)); C="$C softmax:${n}x$m:1"; done
CASES="$C" KNOBS="FUSECL_ROW_CONSTANT=0 FUSECL_ROW_CONSTANT=1" TORCH_LIMIT=1 OUT=$R/ax bash bench/gpu_issue13.sh axis > /dev/null 2>&1
(cd $R/ax && tar xzf issue13.tgz && rm issue13.tgz)
python3 bench/results/proto33/parse.py $R/ax/axis.txt /dev/null | tee $R/table3.txt
CUDA=${CUDA_HOME:-/usr/local/cuda}/bin
export PATH=$PATH:$CUDA
(cd bench/results/proto33 && for v in a b; do
  HARNESS_BINARY=$R/${v}65.ptx ./harness ${v}65.cl "" $((N / 65)) 65 16 128 40
  ptxas -arch=sm_90 $R/${v}65.ptx -o /tmp/${v}65.cubin && cuobjdump -sass /tmp/${v}65.cubin > $R/${v}65.sass
  grep -cE "^\s+/\*[0-9a-f]{4}\*/" $R/${v}65.sass
done) 2>&1 | tee $R/sass.txt
FILES="reduction_pairs reductions reference row_deep row_fusion row_lanes row_layouts row_reciprocal row_split schedule settings shape_limits split_reductions threads tiles transfers trig tuning ulp views row_skew row_warp row_stage" SUITE_LIMIT=400 OUT=$R/s bash bench/gpu_issue13.sh suite > /dev/null 2>&1
(cd $R/s && tar xzf issue13.tgz && rm issue13.tgz; grep -E "FAILED|failed|passed|rc=" tests.txt | head -20)
cd $R && tar czf all.tgz --exclude=all.tgz * && find . -type f ! -name all.tgz -delete
