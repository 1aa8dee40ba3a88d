#!/usr/bin/env bash
# Call 1 (session 41): rows in lanes where the row is no whole number of the
# lanes' vectors (some lanes idle in the last round). The bundle's
# FCL_EXP_PAD switch (experiment, gone after): 0 such rows keep their earlier
# layouts, 1 the fewest lane slots (the larger T on a tie), 3 a vector a lane
# (T the power of two at or above the row's vectors). The whole suite one file
# a process first; then sum / max / var over such rows (2^26 floats), the
# three switches interleaved, two rounds; torch.compile on the same cases.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60 || tar tzf $OUT/suite.tgz | head
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="33554432x2 11184810x6 6710886x10 4793490x14 3728270x18 3355443x20 2396745x28 1864135x36 1677721x40 1525201x44 1290555x52 1118481x60 671088x100 541200x124"
C=""
for e in sum max var; do for s in $S; do C="$C $e:$s:1"; done; done
for r in 1 2; do
  for mode in 1 0 3; do
    echo "## FCL_EXP_PAD=$mode round $r"; FCL_EXP_PAD=$mode FUSECL_CACHE_DIR=/tmp/kc-$mode timeout 60 $P $C 2>&1
  done
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
