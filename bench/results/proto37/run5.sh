#!/usr/bin/env bash
# Call 5 (session 37): the rest of the suite's files on the GPU, the bundle
# of call 4 (the kept code).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
FILES="${FILES:-promotion reference settings shape_limits trig ulp fuse concat deep_graphs schedule fusion views random_dags index32 cross_rows host_views threads devices}" SUITE_LIMIT=${SUITE_LIMIT:-560} bash bench/gpu_issue13.sh suite
