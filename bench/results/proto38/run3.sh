#!/usr/bin/env bash
# Call 3 (session 38): the rule kept (rows of 17 to 31 a work-item each;
# rows of 8 and 16 a work-item each in vectors, many rows a group): the
# whole suite, one file a process, then plain reductions over rows of 4 to
# 64 floats (2^26), 2 rounds, and torch.compile on the same cases.
set -u
PARALLEL=12 FILE_LIMIT=400 timeout 420 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz)
cat $OUT/files.txt
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-38
C=""
for s in 16777216x4:1 8388608x8:1 5592405x12:1 4194304x16:1 3947580x17:1 2796202x24:1 2097152x32:1 1048576x64:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
for r in 1 2; do
  echo "## kept rule, round $r"
  timeout 60 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
tail -30 $OUT/axis.txt
