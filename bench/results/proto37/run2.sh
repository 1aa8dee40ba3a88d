#!/usr/bin/env bash
# Call 2 (session 37): reductions over short rows with several rows a
# work-group (scheduler.cpp's share_groups), its row width's floor as a
# prototype setting (FCL_PROTO_REDUCE_FLOOR: 0 turns it off, one row a
# group as before), the partials meeting through warp shuffles or in local
# memory (FUSECL_ROW_SHUFFLE=0), interleaved, two rounds; torch.compile on
# the same cases; then test files on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
C=""
for s in 1048576x64:1 524288x128:1 262144x256:1 131072x512:1 65536x1024:1 32768x2048:1 16384x4096:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "FCL_PROTO_REDUCE_FLOOR=0 FUSECL_ROW_SHUFFLE=0" "FCL_PROTO_REDUCE_FLOOR=0 FUSECL_ROW_SHUFFLE=1" \
           "FCL_PROTO_REDUCE_FLOOR=8 FUSECL_ROW_SHUFFLE=1" "FCL_PROTO_REDUCE_FLOOR=16 FUSECL_ROW_SHUFFLE=1" \
           "FCL_PROTO_REDUCE_FLOOR=32 FUSECL_ROW_SHUFFLE=1" "FCL_PROTO_REDUCE_FLOOR=8 FUSECL_ROW_SHUFFLE=0"; do
    echo "## $v, round $r"
    env $v timeout 100 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="${FILES:-group_rows moments reductions split_reductions row_warp}" SUITE_LIMIT=${SUITE_LIMIT:-150} bash bench/gpu_issue13.sh suite
