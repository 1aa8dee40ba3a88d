#!/usr/bin/env bash
# Fifty-fifth session, after arg-reductions take vectors on GPUs (the session's
# last device minutes): argmax over rows on the GPU, then the test files with
# arg-reductions or reduction layouts.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
C=""
for m in 17 40 100 256 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
timeout 40 carry/new/bin/fusecl-axis-probe $C argmax:1x67108864:1 argmin:67108x1000:1
FILES='arg_vectors reductions split_reductions group_rows reduce_lanes column_reductions host_views schedule views promotion node_kinds random_dags' \
  PARALLEL=12 FILE_LIMIT=150 timeout 170 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "files: $?"
