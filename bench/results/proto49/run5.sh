#!/usr/bin/env bash
# Call 5 (session 49): an experiment build (carry/exp: src/plan_row.cpp's
# narrowed_rows with EXP_NARROW=m,m,... the rows it takes, EXP_NOV=1 skipping
# the rule of rows of 2^k or 2^k - 1 vectors for them, EXP_E their elements
# a work-item; not committed) against carry/new (before): rows of 14, 30 and
# 62 in 8-byte vectors without the 2^k - 1 rule, every even length from 10
# to 62 both ways; two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for e in softmax layer_norm; do for m in 10 12 14 18 22 26 28 30 34 38 42 46 50 54 58 62; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
ALL=10,12,14,18,22,26,28,30,34,38,42,46,50,54,58,62
for r in 1 2; do
  echo "## round $r before"; LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-b timeout 150 carry/new/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r rule"; LD_LIBRARY_PATH=$PWD/carry/exp/lib FUSECL_CACHE_DIR=/tmp/kc-r timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r all-e8-nov"; EXP_NARROW=$ALL EXP_NOV=1 LD_LIBRARY_PATH=$PWD/carry/exp/lib FUSECL_CACHE_DIR=/tmp/kc-n8 timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r all-e16-nov"; EXP_NARROW=$ALL EXP_NOV=1 EXP_E=16 LD_LIBRARY_PATH=$PWD/carry/exp/lib FUSECL_CACHE_DIR=/tmp/kc-n16 timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r all-e8"; EXP_NARROW=$ALL LD_LIBRARY_PATH=$PWD/carry/exp/lib FUSECL_CACHE_DIR=/tmp/kc-a8 timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
for s in "rule:" "all-e8-nov:EXP_NARROW=$ALL EXP_NOV=1" "all-e16-nov:EXP_NARROW=$ALL EXP_NOV=1 EXP_E=16"; do
  echo "## ${s%%:*}"; env ${s#*:} FUSECL_LOG=schedule LD_LIBRARY_PATH=$PWD/carry/exp/lib FUSECL_CACHE_DIR=/tmp/kc-p timeout 100 carry/exp/bin/fusecl-axis-probe $C 2>&1 | grep "row kernel"
done > $OUT/plans.txt
python3 bench/results/proto49/table.py $OUT/axis.txt
