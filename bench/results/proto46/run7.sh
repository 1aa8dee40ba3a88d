#!/usr/bin/env bash
# Call 7 (session 46): FUSECL_ROW_RECIPROCAL=0 and FUSECL_ROW_SHUFFLE=0 each
# take layer norm over rows of 800 and 900 from 142 to 130-132 us (run6.sh).
# Softmax and layer norm over rows of 20 to 16384 under the default, each of
# the two, two rounds interleaved; the bundle of df0fd1e (carry/base).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib
C=""
for m in 20 44 52 128 300 600 800 900 1024 1100 1300 1500 2200 5000 12000 16384; do
  n=$(( (1 << 26) / m )); for e in layer_norm softmax; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for s in "" FUSECL_ROW_RECIPROCAL=0 FUSECL_ROW_SHUFFLE=0; do
  echo "## round $r ${s:-default}"
  env $s FUSECL_CACHE_DIR=/tmp/kc46-${s:-default} timeout 120 carry/base/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
grep -c axis $OUT/axis.txt
