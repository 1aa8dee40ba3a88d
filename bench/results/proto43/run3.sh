#!/usr/bin/env bash
# Call 3 (session 43): whole-vector rows of 32 to 128 floats, softmax and
# layer norm, the default row kernel (FUSECL_TUNE=0: 16 elements a work-item)
# against FUSECL_ROW_ELEMENTS=8, two interleaved rounds; torch.compile on the
# same cases; the plans' lines.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C=""
for m in 32 36 40 44 48 52 56 60 64 72 80 88 96 104 112 120 128; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do
  echo "## round $r default"; FUSECL_CACHE_DIR=/tmp/kc-d timeout 90 $P $C 2>&1
  echo "## round $r ROW_ELEMENTS=8"; FUSECL_ROW_ELEMENTS=8 FUSECL_CACHE_DIR=/tmp/kc-8 timeout 90 $P $C 2>&1
done | tee $OUT/axis.txt
for e in default 8; do echo "## plans $e"; if [ $e = 8 ]; then export FUSECL_ROW_ELEMENTS=8; fi
  FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$e timeout 60 $P $C 2>&1 | grep 'row kernel' | sed 's/.*row kernel: //' ; done >> $OUT/axis.txt
unset FUSECL_ROW_ELEMENTS
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
