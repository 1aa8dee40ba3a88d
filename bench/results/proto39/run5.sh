#!/usr/bin/env bash
# Call 5 (session 39): 961fe9f (var over rows of 8 a work-item an output) with one
# experiment switch, FCL_EXP_U1=1: the moment group form's loop one vector a
# step (two in flight by default); var over rows of 8 to 1024 and the whole
# array (2^26 floats), two interleaved rounds; then the files the change reaches.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
V=""
for s in 16777216x4:1 8388608x8:1 4194304x16:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1 65536x1024:1 67108864:0; do V="$V var:$s"; done
for r in 1 2; do
  echo "## kept, round $r"; FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 $P $V 2>&1
  echo "## one vector a step, round $r"; FCL_EXP_U1=1 FUSECL_CACHE_DIR=/tmp/kc-u timeout 60 $P $V 2>&1
done > $OUT/axis.txt
cat $OUT/axis.txt
FUSECL_CACHE_DIR=/tmp/kc-t timeout 300 carry/new/bin/fusecl_tests --reporter compact "[group_rows],[moments],[schedule],[columns]" > $OUT/tests.txt 2>&1
tail -3 $OUT/tests.txt
