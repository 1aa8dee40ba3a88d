#!/usr/bin/env bash
# Call 2 (session 45): the rule as landed (a group of one row whose work-items
# need 3 vectors keeps 4; carry/new) against the bundle of fee2bbd (carry/base)
# on the rows that moved in run1.sh and proto44/run5.sh, two rounds
# interleaved; then the whole suite one file a process with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for m in 40 44 300 600 1100 1300 1500 2200 5000 12000; do
  n=$(( (1 << 26) / m )); for e in layer_norm softmax; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 60 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 320 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
