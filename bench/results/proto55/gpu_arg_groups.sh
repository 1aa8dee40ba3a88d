#!/usr/bin/env bash
# Fifty-fifth session: argmax / argmin over rows on the GPU with several rows a
# work-group (share_groups, as max has it) against a work-group a row (OLD),
# three interleaved rounds of the two probes, then the reduction test files.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for m in 17 24 40 64 100 256 1000; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmin:1677721x40:1 argmax:104857x40:1 argmax:41943x100:1 argmax:4096x16384:0"
for r in 1 2 3; do
  carry/new/bin/probe-argold $C | sed "s/^/r$r old /"
  carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/arg_groups.txt 2>&1
python3 bench/results/proto55/oldnew_table.py $OUT/arg_groups.txt
FILES='arg_vectors reductions split_reductions group_rows reduce_lanes column_reductions schedule views host_views' PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
