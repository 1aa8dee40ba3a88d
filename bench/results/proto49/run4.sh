#!/usr/bin/env bash
# Call 4 (session 49): call 3's finding (rows of 10, 12, 22, 26 faster in
# 8-byte vectors) over every even row length from 6 to 62: the default,
# FUSECL_VECTOR_BYTES=8 with 8 or 4 elements a work-item, two rounds; plans
# logged; torch.compile for the lengths not measured beside it before.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""
for e in softmax layer_norm; do for m in 6 10 12 14 18 20 22 24 26 28 30 34 36 38 42 44 46 50 52 54 58 62; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
settings="FUSECL_ROW_ELEMENTS=16 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_ELEMENTS=8 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_ELEMENTS=4"
for r in 1 2; do for s in $settings; do
  echo "## round $r $s"
  env ${s//,/ } FUSECL_CACHE_DIR=/tmp/kc-$s timeout 150 $P $C 2>&1
done; done > $OUT/axis.txt
for s in $settings; do
  echo "## $s"; env ${s//,/ } FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$s timeout 100 $P $C 2>&1 | grep "row kernel"
done > $OUT/plans.txt
T=""
for e in softmax layer_norm; do for m in 6 18 22 26 30 34 38 46 54; do n=$(( (1 << 26) / m )); T="$T $e:${n}x$m:1"; done; done
timeout 280 python3 carry/new/torch_axis.py $T 2>&1 | grep axis > $OUT/torch.txt
python3 bench/results/proto49/table.py $OUT/axis.txt
cat $OUT/torch.txt
