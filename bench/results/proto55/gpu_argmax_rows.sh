#!/usr/bin/env bash
# Fifty-fifth session: argmax (and max) of float32 over rows and columns on
# the GPU, fusecl-axis-probe beside torch eager and torch.compile
# (bench/torch_axis.py), the same cases, into $OUT/.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for m in 10 40 100 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmax:4096x16384:0 argmax:1x67108864:0 max:1677721x40:1 max:67108x1000:1"
for m in 10 40 1000; do C="$C argmax:$((4194304 / m))x$m:1"; done
carry/new/bin/fusecl-axis-probe $C > $OUT/fusecl.txt 2>&1
timeout 240 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
paste -d'\n' $OUT/fusecl.txt $OUT/torch.txt
