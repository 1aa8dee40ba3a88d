#!/usr/bin/env bash
# Call 5 (session 42): rows of 41 to 127 held element by element with at
# most 10 elements a work-item (up to 16 work-items a row): the bundle's
# switch FCL_EXP_TEN=1 (gone after; the rule kept is its own) against 0 (4
# or 8 work-items a row, rows of 41 to 64 in vectors from their aligned
# start), two rounds; torch.compile on the same cases. Then the whole suite
# one file a process with FCL_EXP_TEN=1.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
P=$PWD/carry/new/bin/fusecl-axis-probe
S="1636801x41 1560671x43 1342177x50 1177348x57 1118481x60 1065220x63 958698x70 849479x79 828504x81 789516x85 754032x89 691843x97 639132x105 593883x113 554618x121 528416x127"
C=""
for e in softmax layer_norm; do for s in $S; do C="$C $e:$s:1"; done; done
(export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
for r in 1 2; do
  echo "## TEN=0 round $r"; FCL_EXP_TEN=0 FUSECL_CACHE_DIR=/tmp/kc-a timeout 90 $P $C 2>&1
  echo "## TEN=1 round $r"; FCL_EXP_TEN=1 FUSECL_CACHE_DIR=/tmp/kc-b timeout 90 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $(echo $C | tr ' ' '\n' | grep -v "x41:\|x57:\|x97:\|x113:\|x127:") 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt)
cat $OUT/axis.txt
FCL_EXP_TEN=1 PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
