#!/usr/bin/env bash
# Call 4 (session 46): why the int chunk index (carry/new, int-index.patch)
# costs layer norm over rows of 2200, 5000 and 12000 5-12 us and saves softmax
# over rows of 20 and 44 4-8 us: the SASS of each kernel under both bundles
# (FUSECL_CACHE_SAVE_SOURCE keeps the source beside each cache entry;
# bench/sass_count.py counts and dumps). Then the probe again on those shapes,
# two rounds interleaved.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 PATH=$PATH:/usr/local/cuda/bin
for s in "softmax 20" "softmax 44" "layer_norm 5000" "layer_norm 12000" "softmax 5000"; do
  set -- $s; n=$(( (1 << 26) / $2 ))
  for b in base new; do
    d=/tmp/kc46-$1-$2-$b; rm -rf $d
    LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=$d FUSECL_CACHE_SAVE_SOURCE=1 timeout 60 carry/$b/bin/fusecl-axis-probe $1:${n}x$2:1 > /dev/null 2>&1
    for f in $(find $d -name '*.bin'); do
      grep -q fusecl_row "${f%.bin}.cl" 2>/dev/null || continue
      mkdir -p $OUT/sass/$1-$2-$b; cp "${f%.bin}.cl" $OUT/sass/$1-$2-$b/
      echo "## $1 $2 $b"; python3 carry/new/sass_count.py --sass $OUT/sass/$1-$2-$b "$f" 2>&1 | head -20
    done
  done
done > $OUT/sass.txt
cat $OUT/sass.txt
