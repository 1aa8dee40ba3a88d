#!/usr/bin/env bash
# Call 3 (session 45): the short rows still behind torch.compile (softmax over
# rows of 20 and 44, layer norm over 20 and 52) beside rows that keep up (40):
# each kernel's source and its SASS counts (carry/new).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
for c in softmax:3355443x20 softmax:1677721x40 softmax:1525201x44 layer_norm:3355443x20 layer_norm:1677721x40 layer_norm:1290555x52; do
  d=/tmp/src-${c%%:*}-${c##*x}
  FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$d timeout 60 carry/new/bin/fusecl-axis-probe $c:1 2>&1 | grep axis
  for f in $d/*/*.bin; do grep -q fusecl_row ${f%.bin}.cl || continue
    PATH=$PATH:/usr/local/cuda/bin python3 carry/new/sass_count.py $f 2>&1 | tail -2
    cp ${f%.bin}.cl $OUT/${c%%:*}-${c##*x}.cl; done
done > $OUT/sass.txt 2>&1
cat $OUT/sass.txt
