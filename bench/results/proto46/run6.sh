#!/usr/bin/env bash
# Call 6 (session 46): layer norm over rows of 800 and 900 is 8-12 us behind
# torch.compile (run5.sh), over 600, 700 and 1024 not. Each kernel's registers
# and instructions (bench/sass_count.py) for rows of 600 to 1024, softmax and
# layer norm; then layer norm over rows of 700 to 1024 under the row-kernel
# settings that change its code (FUSECL_ROW_SHUFFLE=0, FUSECL_ROW_RECIPROCAL=0,
# FUSECL_ROW_STAGE=0/2, FUSECL_ROW_HELD_BYTES=512), two rounds. The bundle of
# df0fd1e (carry/base).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib PATH=$PATH:/usr/local/cuda/bin
for m in 600 700 800 900 1024; do for e in softmax layer_norm; do
  n=$(( (1 << 26) / m )); d=/tmp/kc46s-$e-$m; rm -rf $d
  FUSECL_CACHE_DIR=$d FUSECL_CACHE_SAVE_SOURCE=1 timeout 60 carry/base/bin/fusecl-axis-probe $e:${n}x$m:1 > /dev/null 2>&1
  for f in $(find $d -name '*.bin'); do
    grep -q fusecl_row "${f%.bin}.cl" 2>/dev/null || continue
    echo "## $e $m"; python3 carry/new/sass_count.py "$f" 2>&1 | head -3
  done
done; done > $OUT/sass.txt
C=""
for m in 700 800 900 1024; do n=$(( (1 << 26) / m )); C="$C layer_norm:${n}x$m:1"; done
for r in 1 2; do for s in "" FUSECL_ROW_SHUFFLE=0 FUSECL_ROW_RECIPROCAL=0 FUSECL_ROW_STAGE=0 FUSECL_ROW_STAGE=2 FUSECL_ROW_HELD_BYTES=512; do
  echo "## round $r ${s:-default}"
  env $s FUSECL_CACHE_DIR=/tmp/kc46-${s:-default} timeout 90 carry/base/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
cat $OUT/sass.txt
