#!/usr/bin/env bash
# Call 4 (session 42): the bundle of the kept code (the row length a
# constant wherever a row kernel holds its row in registers, the row's end
# tested only by the chunks that may pass it). The whole suite one file a
# process first; then softmax and layer norm over rows of 41 to 127 against
# FUSECL_ROW_CONSTANT=0 (the argument everywhere, every chunk testing the
# end) and FUSECL_ROW_ELEMENTS=8 (more work-items a row), two rounds.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60 || tar tzf $OUT/suite.tgz | head
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="1636801x41 1398101x48 1177348x57 1048576x64 1032444x65 871543x77 691843x97 593883x113 528416x127"
C=""
for e in softmax layer_norm; do for s in $S; do C="$C $e:$s:1"; done; done
for r in 1 2; do
  echo "## kept round $r"; FUSECL_CACHE_DIR=/tmp/kc-a timeout 90 $P $C 2>&1
  echo "## FUSECL_ROW_CONSTANT=0 round $r"; FUSECL_ROW_CONSTANT=0 FUSECL_CACHE_DIR=/tmp/kc-b timeout 90 $P $C 2>&1
  echo "## FUSECL_ROW_ELEMENTS=8 round $r"; FUSECL_ROW_ELEMENTS=8 FUSECL_CACHE_DIR=/tmp/kc-c timeout 90 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $(echo $C | tr ' ' '\n' | grep "x41:\|x48:\|x57:\|x64:\|x113:") 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
