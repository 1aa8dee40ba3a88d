#!/usr/bin/env bash
# Call 4 (session 36): the column form's meet of 32 work-items' partials in
# one level (FUSECL_ROW_FANIN 16, the default) against two (4 and 2), on
# call 2's shapes whose rows run down columns and the loop form's at 2^24 and
# 2^22, and rows of 129, 257 and 513 along the last axis (the row form, whose
# fan-in the setting caps), interleaved, two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-36
C=""
for s in 256x256x1024:1 4096x64x256:1 1024x16x4096:1 512x131072:0 256x262144:0 128x524288:0 32x2097152:0 16x4194304:0 \
         64x1024x1024:0 1024x512x128:1 256x65536:0 64x256x1024:1 16x1024x1024:0 1024x16384:0 4096x4096:0 512x32768:0 2048x2048:0 256x16384:0 261120x257:1 520192x129:1 130816x513:1; do
  for e in softmax layer_norm; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "new X=0" "new FUSECL_ROW_FANIN=4" "new FUSECL_ROW_FANIN=2"; do
    set -- $v
    echo "## $1 $2, round $r"
    env $2 timeout 150 $PWD/carry/$1/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
