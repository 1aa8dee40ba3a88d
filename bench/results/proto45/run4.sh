#!/usr/bin/env bash
# Call 4 (session 45): short whole-vector rows with one vector a work-item,
# torch.compile's layout (rows of 20: 8 work-items a row, 5 of them loading a
# float4), through FUSECL_ROW_ELEMENTS=4, against the default (16) and 8; two
# rounds interleaved; the plans (carry/new).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C=""
for m in 20 28 36 44 52 60 100 300; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm var; do C="$C $e:${n}x$m:1"; done; done
V="default FUSECL_ROW_ELEMENTS=4 FUSECL_ROW_ELEMENTS=8"
for r in 1 2; do for v in $V; do
  echo "## round $r $v"
  e=$v; [ $v = default ] && e=
  env $e FUSECL_CACHE_DIR=/tmp/kc-$(echo $v | tr '=' '-') timeout 60 $P $C 2>&1
done; done > $OUT/axis.txt
for v in $V; do
  echo "## plans $v"
  e=$v; [ $v = default ] && e=
  env $e FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$(echo $v | tr '=' '-') timeout 60 $P $C 2>&1 | grep 'row kernel' | sed 's/.*row kernel: //; s/; dividing.*//; s/; the row length.*//' | uniq
done > $OUT/plans.txt
