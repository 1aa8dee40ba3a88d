#!/usr/bin/env bash
# Call 4 (session 38): the test files whose kernels the rule reaches, with
# test_group_rows's new views case; then plain reductions over rows of 9 to
# 15 floats (2^26; a work-item an output, in scalars, but for none), 2
# rounds, and torch.compile on the same cases.
set -u
FILES="group_rows moments reductions host_views row_warp" PARALLEL=5 FILE_LIMIT=200 timeout 230 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm -rf issue13.tgz files)
cat $OUT/files.txt
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-38
C=""
for s in 7456540x9:1 6710886x10:1 6100805x11:1 5162220x13:1 4793490x14:1 4473924x15:1; do
  for e in sum max var; do C="$C $e:$s"; done
done
for r in 1 2; do
  echo "## kept rule, round $r"
  timeout 60 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 120 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
tail -40 $OUT/axis.txt
