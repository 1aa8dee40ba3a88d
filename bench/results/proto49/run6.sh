#!/usr/bin/env bash
# Call 6 (session 49): the landed rule (carry/new: narrowed_rows in 8-byte
# vectors, 8 elements a work-item) against the session's start (carry/base,
# 0177c60's code), softmax and layer norm over every even row length from 6
# to 66 and rows of 1024, two rounds interleaved; then the whole GPU suite,
# one file a process.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for e in softmax layer_norm; do for m in 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 1024; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"; LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 150 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-new timeout 100 carry/new/bin/fusecl-axis-probe $C 2>&1 | grep "row kernel" > $OUT/plans.txt
python3 bench/results/proto49/table.py $OUT/axis.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > $OUT/suite.txt 2>&1
tail -5 $OUT/suite.txt
