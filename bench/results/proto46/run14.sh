#!/usr/bin/env bash
# Call 14 (session 46): the output loop storing a partial last chunk under a
# predicate (carry/new) against df0fd1e (carry/base): layer norm and softmax
# over rows of 20 to 16384 (softmax keeps its exp values below the longest
# rows, so only its recomputing kernels change), two rounds interleaved; then
# the whole suite one file a process with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for m in 20 44 52 300 600 800 900 1100 2200 5000 12000 16384; do n=$(( (1 << 26) / m )); C="$C layer_norm:${n}x$m:1"; done
for m in 5000 12000 16384; do n=$(( (1 << 26) / m )); C="$C softmax:${n}x$m:1"; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 60 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 200 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
