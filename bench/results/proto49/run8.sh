#!/usr/bin/env bash
# Call 8 (session 49): 3f55b33 (carry/new) against the session's start
# (carry/base), softmax and layer norm over rows of 10 to 90 of 2 mod 4 and
# 12, 28, 1024, two rounds interleaved; then the whole GPU suite, one file a
# process (packed by bench/gpu_issue13.sh into $OUT/issue13.tgz).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for e in softmax layer_norm; do for m in 10 12 14 28 30 34 62 66 74 78 82 86 90 1024; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
mkdir -p /tmp/r8
for r in 1 2; do for b in base new; do
  echo "## round $r $b"; LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 150 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > /tmp/r8/axis.txt
python3 bench/results/proto49/table.py /tmp/r8/axis.txt | tee /tmp/r8/table.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /tmp/r8/suite.txt 2>&1
cp /tmp/r8/* $OUT/ 2>/dev/null
grep -v "rc=0" $OUT/files.txt 2>/dev/null; grep -c "rc=0" $OUT/files.txt 2>/dev/null; ls $OUT
