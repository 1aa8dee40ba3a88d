#!/usr/bin/env bash
# Call 3 (session 49): rows of an even number of floats that is no multiple
# of 4 (10, 14, 18, 22, 26, 30) and 12, softmax and layer norm over 2^26
# floats, under 8-byte vectors (FUSECL_VECTOR_BYTES=8: float2, as Inductor
# loads rows of 10 and 14) with 2, 4 or 8 elements a work-item, against the
# defaults; two rounds; each setting's plans logged once.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""
for e in softmax layer_norm; do for m in 10 12 14 18 22 26 30; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
settings="FUSECL_ROW_ELEMENTS=16 FUSECL_VECTOR_BYTES=8 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_ELEMENTS=2 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_ELEMENTS=4 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_ELEMENTS=8 FUSECL_VECTOR_BYTES=8,FUSECL_ROW_STAGE=0"
for r in 1 2; do for s in $settings; do
  echo "## round $r $s"
  env ${s//,/ } FUSECL_CACHE_DIR=/tmp/kc-$s timeout 100 $P $C 2>&1
done; done > $OUT/axis.txt
for s in $settings; do
  echo "## $s"; env ${s//,/ } FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$s timeout 100 $P $C 2>&1 | grep "row kernel"
done > $OUT/plans.txt
python3 bench/results/proto49/table.py $OUT/axis.txt
