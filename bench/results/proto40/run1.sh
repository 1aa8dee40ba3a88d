#!/usr/bin/env bash
# Call 1 (session 40): plain reductions and var over short rows along the last
# axis (2^26 floats), prototype forms by switch (each its own kernel cache):
# the row length a constant (FCL_EXP_CONST), with the shared form's loop a
# constant trip count (FCL_EXP_FIXED), and rows in lanes, a lane a vector and
# K rows a work-item, the warp's loads contiguous (FCL_EXP_TILE=K); two
# interleaved rounds, torch.compile on the same cases; each form's results
# checked against the host (check_rows, a scratch program).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""
for e in sum max var; do
  for s in 16777216x4 8388608x8 5592405x12 4194304x16 2796202x24 2097152x32 1048576x64 524288x128 262144x256; do C="$C $e:$s:1"; done
done
for v in "A" "B FCL_EXP_CONST=1" "C FCL_EXP_CONST=1 FCL_EXP_FIXED=1" "D FCL_EXP_TILE=4 FCL_EXP_TILE_MOMENT=1" "E FCL_EXP_TILE=2 FCL_EXP_TILE_MOMENT=1" "F FCL_EXP_TILE=8 FCL_EXP_TILE_MOMENT=1"; do
  set -- $v; tag=$1; shift
  echo "## check $tag $*"; env "$@" FUSECL_CACHE_DIR=/tmp/kc-$tag timeout 120 carry/new/bin/check_rows 2>&1 | tail -4
done > $OUT/check.txt 2>&1
cat $OUT/check.txt
for r in 1 2; do
  for v in "A" "B FCL_EXP_CONST=1" "C FCL_EXP_CONST=1 FCL_EXP_FIXED=1" "D FCL_EXP_TILE=4 FCL_EXP_TILE_MOMENT=1" "E FCL_EXP_TILE=2 FCL_EXP_TILE_MOMENT=1" "F FCL_EXP_TILE=8 FCL_EXP_TILE_MOMENT=1"; do
    set -- $v; tag=$1; shift
    echo "## $tag $* round $r"; env "$@" FUSECL_CACHE_DIR=/tmp/kc-$tag timeout 60 $P $C 2>&1
  done
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
