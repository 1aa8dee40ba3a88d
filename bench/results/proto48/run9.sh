#!/usr/bin/env bash
# Call 9 (session 48): softmax and layer norm over rows of 10, 12 and 14
# floats (call 8: 17-46 us behind torch.compile) under other row layouts:
# FUSECL_ROW_ELEMENTS 16 (the default), 8 and 4 (more work-items a row) and
# FUSECL_ROW_STAGE=0 (no staging through local memory), carry/new, two rounds
# interleaved; each setting's plans logged once.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for e in softmax layer_norm; do
  for m in 10 12 14; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done
done
settings="FUSECL_ROW_ELEMENTS=16 FUSECL_ROW_ELEMENTS=8 FUSECL_ROW_ELEMENTS=4 FUSECL_ROW_STAGE=0 FUSECL_ROW_STAGE=0,FUSECL_ROW_ELEMENTS=8"
for r in 1 2; do for s in $settings; do
  echo "## round $r $s"
  env ${s//,/ } FUSECL_CACHE_DIR=/tmp/kc-$s timeout 100 carry/new/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
for s in $settings; do
  echo "## $s"; env ${s//,/ } FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$s timeout 100 carry/new/bin/fusecl-axis-probe $C 2>&1 | grep "row kernel\|#0"
done > $OUT/plans.txt
cat $OUT/axis.txt | grep -v "^#"
