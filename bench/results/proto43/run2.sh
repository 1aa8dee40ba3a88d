#!/usr/bin/env bash
# Call 2 (session 43), for the next session: softmax and layer norm over rows
# of 60 floats (whole vectors, 4 work-items a row by default) at each
# FUSECL_ROW_ELEMENTS, two rounds, with torch.compile on the same cases.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C="softmax:1118481x60:1 layer_norm:1118481x60:1 softmax:1048576x64:1 softmax:1165084x57:1"
for r in 1 2; do for e in default 2 4 8 16 32; do
  echo "## round $r ROW_ELEMENTS=$e"
  if [ $e = default ]; then FUSECL_CACHE_DIR=/tmp/kc-d timeout 60 $P $C 2>&1
  else FUSECL_ROW_ELEMENTS=$e FUSECL_CACHE_DIR=/tmp/kc-$e timeout 60 $P $C 2>&1; fi
done; done | tee $OUT/axis.txt
FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-d timeout 60 $P $C 2>&1 | grep 'fusecl:  ' | tee -a $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
