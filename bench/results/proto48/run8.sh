#!/usr/bin/env bash
# Call 8 (session 48): softmax and layer norm over rows of 4 to 16 floats,
# which call 7 found slow at 12 (182 / 172 us): fusecl (carry/new, with its
# plans logged) and torch.compile side by side, two rounds of fusecl.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for e in softmax layer_norm; do
  for m in 4 8 10 12 14 16; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done
done
for r in 1 2; do
  echo "## round $r"
  FUSECL_CACHE_DIR=/tmp/kc-new timeout 100 carry/new/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 300 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-new timeout 100 carry/new/bin/fusecl-axis-probe $C > $OUT/plans.txt 2>&1
cat $OUT/axis.txt
