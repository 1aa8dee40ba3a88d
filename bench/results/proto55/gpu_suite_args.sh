#!/usr/bin/env bash
# Fifty-fifth session, after arg-reductions share groups on GPUs: argmax over
# rows, this build (NEW) and the one before (OLD) beside torch eager and
# torch.compile (bench/torch_axis.py) in one run, then the whole test suite
# (one file a process) on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for m in 17 40 100 256 1000; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmax:104857x40:1 argmax:41943x100:1"
for r in 1 2; do
  carry/new/bin/probe-argold $C | sed "s/^/r$r old /"
  carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
timeout 150 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto55/oldnew_table.py $OUT/args.txt; cat $OUT/torch.txt
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
