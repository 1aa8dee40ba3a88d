#!/usr/bin/env bash
# Call 3 (session 34): softmax and layer norm along a middle axis, kernel by
# kernel: each schedule (FUSECL_LOG=schedule), then its parts on their own
# (the pair's statistics as logsumexp, the moments as var, the output kernel
# from kept statistics, x * 2 for the copy rate), beside 8192 x 8192 over
# axis 0 and rows of 1024 (the same bytes). carry/nb: the slim bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/nb/lib FUSECL_CACHE_DIR=/tmp/kc-nb
P=carry/nb/bin/fusecl-axis-probe
FUSECL_LOG=schedule $P softmax:64x1024x1024:1 layer_norm:64x1024x1024:1 softmax:256x1024x256:1 layer_norm:256x1024x256:1 softmax:8192x8192:0 layer_norm:8192x8192:0 2>&1 | grep -v '^\s*$' | sort | uniq -c | sort -rn | head -60 > $OUT/schedule.txt
cat $OUT/schedule.txt
for r in 1 2; do
  for s in 64x1024x1024:1 256x1024x256:1 8192x8192:0 65536x1024:1; do
    $P logsumexp:$s var:$s softmax_out:$s scale:$s max:$s sum:$s
  done
done 2>&1 | tee $OUT/parts.txt
