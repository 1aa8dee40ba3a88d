#!/usr/bin/env bash
# Call 3 (session 46): the register form's chunk index an int (carry/new,
# built with int-index.patch applied)
# against HEAD before it (carry/base, afd569d's code) on rows from 20 to 12000
# along the last axis and on columns (axis 0), two rounds interleaved; then the
# whole suite one file a process with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for m in 20 40 44 52 64 128 300 600 1024 2200 5000 12000; do
  n=$(( (1 << 26) / m )); for e in layer_norm softmax; do C="$C $e:${n}x$m:1"; done; done
for s in 8192x8192 65536x1024 1024x65536 100x671088; do C="$C softmax:$s:0 layer_norm:$s:0"; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 90 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 320 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
