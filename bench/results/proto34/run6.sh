#!/usr/bin/env bash
# Call 8 (session 34): 32-bit coordinates only where a position is divided
# (one coordinate alone stays the 64-bit position), FUSECL_INDEX32=0 against 1,
# 2 interleaved rounds; carry/nb holds this tree's fusecl-axis-probe.
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
B=$PWD/carry/nb
CASES='softmax:64x1024x1024:1 layer_norm:64x1024x1024:1 softmax:256x1024x256:1 layer_norm:256x1024x256:1 softmax:8192x8192:0 layer_norm:8192x8192:0 logsumexp:64x1024x1024:1'
for r in 1 2; do
  for v in 0 1; do
    echo "## FUSECL_INDEX32=$v, round $r"
    FUSECL_INDEX32=$v FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$B/lib FUSECL_CACHE_DIR=/tmp/kc-i$v timeout 100 $B/bin/fusecl-axis-probe $CASES
  done
done 2>&1 | tee $OUT/index32b.txt
