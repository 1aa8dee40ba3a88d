#!/usr/bin/env bash
# Call 4 (session 37): the kept rule (several rows a group where a row has
# at most a warp's work-items, 16 elements each or more), two rounds,
# torch.compile on the same cases; then test files on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
C=""
for s in 3947580x17:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1 131072x512:1 65536x1024:1 16384x4096:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
C="$C sum:4096x128x128:2 var:4096x128x128:2 max:4096x128x128:2"
for r in 1 2; do
  echo "## kept rule, round $r"
  timeout 100 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="${FILES:-group_rows moments reductions split_reductions column_reductions reduction_pairs row_warp transfers memory_limit tiles node_kinds generate plan_signature}" SUITE_LIMIT=${SUITE_LIMIT:-380} bash bench/gpu_issue13.sh suite
