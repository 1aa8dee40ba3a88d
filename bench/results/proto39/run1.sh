#!/usr/bin/env bash
# Call 1 (session 39): var over short rows (2^26 floats) with the work-item-a-row
# moment kernel summing shifted blocks (new) against Welford's update with a
# float64 division per element (FCL_EXP_WELFORD=1, the old kernel), and the
# moment kernels' float64 vectors of 4 (FCL_EXP_MW=4; default 2); sum beside
# them; torch.compile on the same cases; then [moments] on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""; S=""
for s in 16777216x4:1 8388608x8:1 6710886x10:1 5592405x12:1 4793490x14:1 4194304x16:1 2796202x24:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1; do
  C="$C var:$s"; S="$S sum:$s"
done
for r in 1 2; do
  echo "## new, round $r"; FUSECL_CACHE_DIR=/tmp/kc-new timeout 60 $P $C $S 2>&1
  echo "## welford, round $r"; FCL_EXP_WELFORD=1 FUSECL_CACHE_DIR=/tmp/kc-old timeout 60 $P $C 2>&1
  echo "## mw4, round $r"; FCL_EXP_MW=4 FUSECL_CACHE_DIR=/tmp/kc-mw4 timeout 60 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C $S 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
FUSECL_CACHE_DIR=/tmp/kc-t timeout 200 carry/new/bin/fusecl_tests --reporter compact "[moments]" > $OUT/moments.txt 2>&1
tail -5 $OUT/moments.txt
