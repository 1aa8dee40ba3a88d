#!/usr/bin/env bash
# Call 7 (session 37): after the fix (each warp shuffle of a reduction's
# tree a statement of its own: a maximum of ints spelled it twice, in a
# conditional), the files whose kernels it reaches, and test_host_views,
# which failed in calls 5 and 6. Not run in the thirty-seventh session (no
# GPU machine could be had after the fix): for the next one.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
FILES="${FILES:-host_views group_rows reductions moments split_reductions row_warp column_reductions reduction_pairs fusion random_dags}" SUITE_LIMIT=${SUITE_LIMIT:-330} bash bench/gpu_issue13.sh suite
