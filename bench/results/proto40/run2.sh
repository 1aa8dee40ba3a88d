#!/usr/bin/env bash
# Call 2 (session 40): the kept code (rows in lanes, ReduceSpec::lanes_per_row):
# the whole suite one file a process; the scratch check of short rows against
# the host, with and without FUSECL_LANE_ROWS; sum / max / var over short rows
# (2^26 floats) with and without (two interleaved rounds), torch.compile on
# the cases call 1 did not time.
set -u
PARALLEL=12 FILE_LIMIT=400 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60 || tar tzf $OUT/suite.tgz | head
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
{ echo "## check (lanes)"; FUSECL_CACHE_DIR=/tmp/kc-n timeout 100 carry/new/bin/check_rows 2>&1 | tail -3
  echo "## check FUSECL_LANE_ROWS=0"; FUSECL_LANE_ROWS=0 FUSECL_CACHE_DIR=/tmp/kc-o timeout 100 carry/new/bin/check_rows 2>&1 | tail -3; } > $OUT/check.txt
cat $OUT/check.txt
C=""
for e in sum max var; do
  for s in 16777216x4 8388608x8 5592405x12 4194304x16 2796202x24 2097152x32 1398101x48 1048576x64 699050x96 524288x128 262144x256; do C="$C $e:$s:1"; done
done
C="$C layer_norm:1048576x64:1 softmax:1048576x64:1 sum:4096x512x32:2 var:4096x512x32:2"
for r in 1 2; do
  echo "## lanes round $r"; FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 $P $C 2>&1
  echo "## FUSECL_LANE_ROWS=0 round $r"; FUSECL_LANE_ROWS=0 FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
T=""; for e in sum max var; do T="$T $e:1398101x48:1 $e:699050x96:1"; done
timeout 150 python3 carry/new/torch_axis.py $T layer_norm:1048576x64:1 softmax:1048576x64:1 sum:4096x512x32:2 var:4096x512x32:2 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
