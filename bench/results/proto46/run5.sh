#!/usr/bin/env bash
# Call 5 (session 46): softmax and layer norm over rows of 300 to 900 (softmax
# over rows of 600 is 6 us behind torch.compile, and 10 behind layer norm over
# the same rows) under FUSECL_ROW_ELEMENTS 8, 16 (the default) and 32, i.e.
# 2x, 1x and 0.5x the work-items a row; the bundle of df0fd1e (carry/base),
# two rounds; torch.compile beside (bench/torch_axis.py); the plans once.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib
C=""
for m in 300 400 500 600 700 800 900; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for e in 16 8 32; do
  echo "## round $r FUSECL_ROW_ELEMENTS=$e"
  FUSECL_ROW_ELEMENTS=$e FUSECL_CACHE_DIR=/tmp/kc-e$e timeout 90 carry/base/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
for e in 16 8 32; do echo "## plans FUSECL_ROW_ELEMENTS=$e"; FUSECL_ROW_ELEMENTS=$e FUSECL_PLAN_CACHE=0 FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-e$e timeout 90 carry/base/bin/fusecl-axis-probe $C 2>&1 | grep 'rows of' | sort -u; done > $OUT/plans.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/plans.txt
