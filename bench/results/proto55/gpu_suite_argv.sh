#!/usr/bin/env bash
# Fifty-fifth session, after arg-reductions take vectors on GPUs: argmax over
# rows and columns and the whole array beside torch eager and torch.compile
# (bench/torch_axis.py) in one run, then the whole test suite on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for m in 10 17 40 100 256 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmax:4096x16384:0 argmax:1x67108864:1 argmin:67108x1000:1 argmax:104857x40:1 argmax:4194x1000:1 argmax:1x4194304:1"
carry/new/bin/fusecl-axis-probe $C > $OUT/fusecl.txt 2>&1
timeout 150 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
paste -d'\n' $OUT/fusecl.txt $OUT/torch.txt
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
