#!/usr/bin/env bash
# Call 3 (session 41): the kept rule (the fewest lane slots, the fewer lanes
# on a tie; moments only in vectors of 4 where padded). The whole suite one
# file a process; then sum / max / var over rows that are no whole number of
# lanes' vectors (and rows of 2 and 6), the default against
# FUSECL_LANE_ROWS=0, two interleaved rounds; torch.compile on rows of 80.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60 || tar tzf $OUT/suite.tgz | head
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="33554432x2 11184810x6 6710886x10 4793490x14 3728270x18 3355443x20 2396745x28 1864135x36 1677721x40 1525201x44 1290555x52 1198372x56 1118481x60 838860x80 671088x100 541200x124"
C=""; for e in sum max var; do for s in $S; do C="$C $e:$s:1"; done; done
for r in 1 2; do
  echo "## default round $r"; FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 $P $C 2>&1
  echo "## FUSECL_LANE_ROWS=0 round $r"; FUSECL_LANE_ROWS=0 FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 60 python3 carry/new/torch_axis.py sum:838860x80:1 max:838860x80:1 var:838860x80:1 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
