#!/usr/bin/env bash
# Call 4 (session 43): whole-vector rows of 16 to 32 floats (and 36, 64 to
# compare), softmax and layer norm, the default row kernel (FUSECL_TUNE=0:
# 16 elements a work-item) against FUSECL_ROW_ELEMENTS=8 and 4, two
# interleaved rounds; torch.compile on the same cases; the plans' lines.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C=""
for m in 16 20 24 28 32 36 64; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for e in default 8 4; do
  echo "## round $r $e"
  if [ $e = default ]; then FUSECL_CACHE_DIR=/tmp/kc-d timeout 90 $P $C 2>&1
  else FUSECL_ROW_ELEMENTS=$e FUSECL_CACHE_DIR=/tmp/kc-$e timeout 90 $P $C 2>&1; fi
done; done | tee $OUT/axis.txt
for e in default 8 4; do echo "## plans $e"; if [ $e != default ]; then export FUSECL_ROW_ELEMENTS=$e; fi
  FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$e timeout 60 $P $C 2>&1 | grep 'fusecl:   #' | sed 's/.*: computes/computes/' ; done >> $OUT/axis.txt
unset FUSECL_ROW_ELEMENTS
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
