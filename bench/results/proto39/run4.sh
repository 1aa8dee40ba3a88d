#!/usr/bin/env bash
# Call 4 (session 39): the kept form (87c82f9 with one experiment switch,
# FCL_EXP_TPO_MAX=32: var over rows of up to 32 a work-item an output in
# scalars, in place of the group layout): the whole suite, one file a
# process; then var over rows of 4 to 256 (2^26 floats) two rounds, rows of
# 8 to 32 with the switch, sum and max over short rows; torch.compile on var
# and max.
set -u
PARALLEL=12 FILE_LIMIT=400 timeout 420 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz)
cat $OUT/files.txt
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
V=""; X=""; T=""
for s in 16777216x4:1 8388608x8:1 6710886x10:1 5592405x12:1 4793490x14:1 4194304x16:1 2796202x24:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1; do
  V="$V var:$s"; X="$X sum:$s max:$s"
done
for s in 8388608x8:1 4194304x16:1 2796202x24:1 2097152x32:1; do T="$T var:$s"; done
for r in 1 2; do
  echo "## kept, round $r"; FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 $P $V 2>&1
  echo "## a work-item a row up to 32, round $r"; FCL_EXP_TPO_MAX=32 FUSECL_CACHE_DIR=/tmp/kc-t timeout 60 $P $T 2>&1
done > $OUT/axis.txt
echo "## sum and max" >> $OUT/axis.txt
FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 $P $X >> $OUT/axis.txt 2>&1
echo "## torch" >> $OUT/axis.txt
M=$(echo $X | tr ' ' '\n' | grep max | tr '\n' ' ')
timeout 200 python3 carry/new/torch_axis.py $V $M 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
