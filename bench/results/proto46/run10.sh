#!/usr/bin/env bash
# Call 10 (session 46): NVIDIA's own build options on the row kernels that
# move with code changes (calls 3-7): FUSECL_BUILD_OPTIONS -cl-nv-maxrregcount
# 32 / 40 / 64 and -cl-nv-opt-level 2, softmax and layer norm over rows of 20
# to 1024, two rounds interleaved; the bundle of df0fd1e (carry/base).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib
C=""
for m in 20 44 52 300 600 800 900 1024 1100; do n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for o in "" "-cl-nv-maxrregcount=32" "-cl-nv-maxrregcount=40" "-cl-nv-maxrregcount=64" "-cl-nv-opt-level=2"; do
  echo "## round $r ${o:-default}"
  FUSECL_BUILD_OPTIONS="$o" FUSECL_CACHE_DIR=/tmp/kc46-10-${o:-d} timeout 120 carry/base/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
grep -c axis $OUT/axis.txt; grep -i 'error\|fail' $OUT/axis.txt | head -5
