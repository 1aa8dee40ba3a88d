#!/usr/bin/env bash
# Call 3 (session 37): several short rows a work-group only where a row is
# within a warp (one of a whole warp where it shuffles); the row's work-
# items' floor (FCL_PROTO_REDUCE_FLOOR 8, 4, 2; 0: one row a group, as
# before) and the moment kernels' width (FCL_PROTO_MOMENT_WIDTH=4: double4
# where GPUs take double2), interleaved, two rounds; torch.compile on the
# same cases; then test files on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
C=""
for s in 3947580x17:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1 131072x512:1 65536x1024:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
C="$C var:64x1024x1024:2 sum:8192x8192:1"
for r in 1 2; do
  for v in FCL_PROTO_REDUCE_FLOOR=0 FCL_PROTO_REDUCE_FLOOR=8 FCL_PROTO_REDUCE_FLOOR=4 FCL_PROTO_REDUCE_FLOOR=2 \
           "FCL_PROTO_REDUCE_FLOOR=8 FCL_PROTO_MOMENT_WIDTH=4"; do
    echo "## $v, round $r"
    env $v timeout 100 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="${FILES:-group_rows moments reductions fusion plan_cache random_inputs threads devices tuning}" SUITE_LIMIT=${SUITE_LIMIT:-220} bash bench/gpu_issue13.sh suite
