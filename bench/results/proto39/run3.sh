#!/usr/bin/env bash
# Call 3 (session 39): forms of the work-item-a-row moment kernel (var over
# rows of 4, 10, 12, 14; 2^26 floats), two interleaved rounds: the kept
# candidate (blocks, one division for a one-block range), FCL_EXP_THREAD=1
# (call 1's: Chan for every block), 2 (one block, no outer loop), 3 (one
# block, the first value peeled), Welford's (FCL_EXP_WELFORD=1); then each
# form's SASS for rows of 4 (bench/sass_count.py).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib PATH=$PATH:${CUDA_HOME:-/usr/local/cuda}/bin
P=$PWD/carry/new/bin/fusecl-axis-probe
C="var:16777216x4:1 var:6710886x10:1 var:5592405x12:1 var:4793490x14:1"
for r in 1 2; do
  echo "## kept, round $r"; FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 $P $C 2>&1
  for k in 1 2 3; do echo "## exp $k, round $r"; FCL_EXP_THREAD=$k FUSECL_CACHE_DIR=/tmp/kc-$k timeout 60 $P $C 2>&1; done
  echo "## welford, round $r"; FCL_EXP_WELFORD=1 FUSECL_CACHE_DIR=/tmp/kc-w timeout 60 $P $C 2>&1
done > $OUT/axis.txt
cat $OUT/axis.txt
envs() { case $1 in k) echo "X=1";; w) echo "FCL_EXP_WELFORD=1";; *) echo "FCL_EXP_THREAD=$1";; esac; }
for v in k 1 2 3 w; do
  rm -rf /tmp/ks-$v
  env $(envs $v) FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=/tmp/ks-$v $P var:16777216x4:1 > /dev/null 2>&1
  for e in $(find /tmp/ks-$v -type f ! -name "*.cl" ! -name "*.json" ! -name "*.lock"); do
    grep -q "fusecl_red" ${e%.*}.cl 2>/dev/null || continue
    echo "## $v $e"; python3 carry/new/sass_count.py --sass $OUT/sass-$v $e 2>&1 | head -4
    cp ${e%.*}.cl $OUT/sass-$v/ 2>/dev/null
  done
done 2>&1 | tee $OUT/sass.txt
