#!/usr/bin/env bash
# Call 3 (session 35): column blocks' parts rounded down (one wave of
# target_groups, FUSECL_COLUMN_SPLIT_FLOOR=1) against rounded up (the
# default), with softmax's pair in float4 and float2
# (FUSECL_PAIR_WIDTH=2), and call 2's best for the middle axis
# (FUSECL_COLUMN_SPLIT_FILL=2), interleaved over two rounds; the pair's
# loads in blocks of four rows in all (carry/new).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-35
C=""
for s in 64x1024x1024:1 256x1024x256:1 32x2048x1024:1 16x4096x1024:1 8192x8192:0 16384x4096:0 2048x32768:0 1024x65536:0 4096x4096:0; do
  for e in softmax logsumexp; do C="$C $e:$s"; done
done
for s in 8192x8192:0 16384x4096:0 32x2048x1024:1 1024x65536:0; do
  for e in max sum var layer_norm; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "X=0" "FUSECL_COLUMN_SPLIT_FLOOR=1" "FUSECL_COLUMN_SPLIT_FLOOR=1 FUSECL_PAIR_WIDTH=2" "FUSECL_COLUMN_SPLIT_FILL=2"; do
    echo "## $v, round $r"
    env $v timeout 150 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py max:16384x4096:0 var:8192x8192:0 layer_norm:16384x4096:0 layer_norm:1024x65536:0 sum:1024x65536:0 2>&1 | grep -v warn | tee -a $OUT/axis.txt
