#!/usr/bin/env bash
# Call 6 (session 43): as call 5, the rule raising the work-items only (at most two vectors a work-item) over rows of
# 4, 7, 8, 15, 16, 31 and 32 whole vectors (plan_row.cpp): softmax and layer
# norm over whole-vector rows of 16 to 128, two rounds, torch.compile on the
# same cases, the plans' lines; then the whole suite one file a process.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
(export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=carry/new/bin/fusecl-axis-probe
C=""
for m in 16 20 24 28 32 36 60 64 120 124 128; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do echo "## round $r"; FUSECL_CACHE_DIR=/tmp/kc-n timeout 90 $P $C 2>&1; done > $OUT/axis.txt
echo "## plans" >> $OUT/axis.txt
FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 $P $C 2>&1 | grep 'row kernel' | sed 's/.*row kernel: //' >> $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt)
cat $OUT/axis.txt | grep -v '^rows of'
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
