#!/usr/bin/env bash
# Call 1 (session 44): softmax and layer norm over short whole-vector rows
# that stay behind torch.compile (20, 28, 60; 36-52 beside them) under each
# row-kernel setting that changes their layout, two rounds; the plans and the
# default kernels' source; torch.compile on the same cases.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C=""
for m in 20 28 36 44 52 60; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
V="default FUSECL_VECTOR_BYTES=8 FUSECL_VECTOR_BYTES=4 FUSECL_ROW_STAGE=0 FUSECL_ROW_STAGE=2 FUSECL_ROW_SHUFFLE=0 FUSECL_ROW_ELEMENTS=8 FUSECL_ROW_ELEMENTS=32 FUSECL_ROW_RECIPROCAL=0"
for r in 1 2; do for v in $V; do
  echo "## round $r $v"
  e=$v; [ $v = default ] && e=
  env $e FUSECL_CACHE_DIR=/tmp/kc-$(echo $v | tr '=' '-') timeout 90 $P $C 2>&1
done; done > $OUT/axis.txt
for v in $V; do
  echo "## plans $v"
  e=$v; [ $v = default ] && e=
  env $e FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$(echo $v | tr '=' '-') timeout 60 $P $C 2>&1 | grep 'row kernel\|#0' | sed 's/.*row kernel: //'
done >> $OUT/plans.txt
mkdir -p $OUT/src
FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$OUT/src timeout 60 $P $C > /dev/null 2>&1
find $OUT/src -name '*.bin' -delete
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
