#!/usr/bin/env bash
# Call 8 (session 46): where the loads sit in the SASS of layer norm over rows
# of 800 and 900 (142 us; FUSECL_ROW_RECIPROCAL=0 130-132), against layer norm
# over rows of 700 and 1024 and softmax over rows of 800 (130-133), and layer
# norm over 800 with the reciprocal off: each kernel's loads, shuffles,
# barriers, stores and branches in order (bench/sass_count.py --sass, then grep).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib PATH=$PATH:/usr/local/cuda/bin
for c in "layer_norm 800" "layer_norm 900" "layer_norm 700" "layer_norm 1024" "softmax 800" "layer_norm 800 FUSECL_ROW_RECIPROCAL=0"; do
  set -- $c; n=$(( (1 << 26) / $2 )); d=/tmp/kc46t-$1-$2-${3:-d}; rm -rf $d; mkdir -p /tmp/sass
  env ${3:-} FUSECL_CACHE_DIR=$d FUSECL_CACHE_SAVE_SOURCE=1 timeout 60 carry/base/bin/fusecl-axis-probe $1:${n}x$2:1 > /dev/null 2>&1
  for f in $(find $d -name '*.bin'); do
    grep -q fusecl_row "${f%.bin}.cl" 2>/dev/null || continue
    rm -rf /tmp/sass/*; python3 carry/new/sass_count.py --sass /tmp/sass "$f" > /dev/null 2>&1
    echo "## $c"
    grep -E 'LDG|STG|SHFL|BAR|BRA|EXIT|MUFU.RCP|LDS|STS' /tmp/sass/*.sass | sed 's#^ *##; s#/\* 0x[0-9a-f]* \*/##; s/  */ /g'
    cp "${f%.bin}.cl" $OUT/$1-$2${3:+-recip0}.cl
  done
done > $OUT/sass.txt
wc -l $OUT/sass.txt
