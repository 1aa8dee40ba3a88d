#!/usr/bin/env bash
# Call 2 (session 51): test_reduce_chains.cpp on the GPU with its smaller GPU
# matrix (the first run of the whole suite timed out in it at 300 s, building
# one kernel per length and chain count), each case's time; then the second
# half of the sweep (the reductions) on this session's kernels.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
bundle=$PWD/carry/new
(cd "$bundle/bin" && FUSECL_DEVICE=nvidia FUSECL_TUNE=0 FUSECL_POISON_OUTPUTS=1 LD_LIBRARY_PATH=$bundle/lib FUSECL_CACHE_DIR=/tmp/kc-chains \
   timeout 200 ./fusecl_tests --reporter compact -d yes '[chains]') > "$OUT/chains.txt" 2>&1
echo "rc=$?" >> "$OUT/chains.txt"
tail -12 "$OUT/chains.txt"
bash bench/results/proto44/run2.sh 2
