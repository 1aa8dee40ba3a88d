#!/usr/bin/env bash
# Call 2 (session 38): plain reductions over rows of 4 to 32 floats (2^26),
# the layout as it stands (rows of 16 or fewer a work-item each in scalars,
# ThreadPerOutput; 17 to 31 two work-items a row) against a prototype bundle
# with two switches: FCL_ALT=1 lets rows take one work-item (vector loads, no
# tree) where 2 x 16 elements do not fit, and FCL_ALT16=1 sends rows of 16 or
# fewer along the last axis the same way. Interleaved, 2 rounds, then
# torch.compile.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-38
C=""
for s in 16777216x4:1 8388608x8:1 5592405x12:1 4194304x16:1 3947580x17:1 2796202x24:1 2097152x32:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "BASE=1" "FCL_ALT=1" "FCL_ALT=1 FCL_ALT16=1"; do
    echo "## $v, round $r"
    env $v timeout 100 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
for v in "BASE=1" "FCL_ALT=1" "FCL_ALT=1 FCL_ALT16=1"; do
  echo "## $v, schedule"; env $v FUSECL_LOG=schedule timeout 60 $PWD/carry/new/bin/fusecl-axis-probe sum:4194304x16:1 var:4194304x16:1 sum:3947580x17:1 var:2796202x24:1 2>&1 | grep -i "reduc" | head -8
done | tee $OUT/schedule.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
