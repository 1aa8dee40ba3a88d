#!/usr/bin/env bash
# Call 2 (session 39): the work-item-a-row moment kernel ending a one-block
# range in one float64 division (new) against Welford's (FCL_EXP_WELFORD=1),
# and float32-to-float64 conversions by bit operations (FCL_EXP_CVT=1, an
# experiment) in both moment layouts; var over short rows of 2^26 floats, two
# interleaved rounds; torch.compile on the same cases; the schedule of rows
# of 8 and 16; then [moments] and [group_rows] on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""
for s in 16777216x4:1 8388608x8:1 6710886x10:1 5592405x12:1 4793490x14:1 4194304x16:1 2796202x24:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1; do
  C="$C var:$s"
done
for r in 1 2; do
  echo "## new, round $r"; FUSECL_CACHE_DIR=/tmp/kc-new timeout 60 $P $C 2>&1
  echo "## welford, round $r"; FCL_EXP_WELFORD=1 FUSECL_CACHE_DIR=/tmp/kc-old timeout 60 $P $C 2>&1
  echo "## cvt, round $r"; FCL_EXP_CVT=1 FUSECL_CACHE_DIR=/tmp/kc-cvt timeout 60 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-new timeout 60 $P var:8388608x8:1 var:4194304x16:1 var:2097152x32:1 2>&1 | grep -v reused | head -20 >> $OUT/axis.txt
cat $OUT/axis.txt
FUSECL_CACHE_DIR=/tmp/kc-t timeout 300 carry/new/bin/fusecl_tests --reporter compact "[moments],[group_rows]" > $OUT/tests.txt 2>&1
tail -5 $OUT/tests.txt
