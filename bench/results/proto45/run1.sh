#!/usr/bin/env bash
# Call 1 (session 45): where whole-vector rows holding the vectors they need
# (carry/new) lose to the power of two above (carry/base): layer norm over rows
# of 1500 lost 12 us in proto44/run5.sh. Row lengths around it for four
# expressions, both bundles interleaved, two rounds; the plans; the kernels'
# source and SASS counts for layer norm over rows of 1500.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for m in 1100 1200 1300 1400 1500 1540 1600 1800 2200 2500 2800; do
  n=$(( (1 << 26) / m )); for e in layer_norm softmax var logsumexp; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
for b in base new; do
  echo "## plans $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_LOG=schedule FUSECL_PLAN_CACHE=0 FUSECL_CACHE_DIR=/tmp/kc-$b timeout 60 carry/$b/bin/fusecl-axis-probe $C 2>&1 \
    | grep 'row kernel' | sed 's/.*row kernel: //; s/; dividing.*//'
done > $OUT/plans.txt
for b in base new; do
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$OUT/src-$b timeout 60 carry/$b/bin/fusecl-axis-probe layer_norm:44739x1500:1 > /dev/null 2>&1
  echo "## sass $b"; PATH=$PATH:/usr/local/cuda/bin timeout 60 python3 carry/new/sass_count.py $OUT/src-$b/*/*.bin 2>&1 | tail -12
done > $OUT/sass.txt
find $OUT/src-* -type f | head -20
