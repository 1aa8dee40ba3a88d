#!/usr/bin/env bash
# Call 6 (session 39): the kept code (HEAD): the whole suite one file a
# process; var over short rows and the whole array (2^26 floats, two rounds)
# with torch.compile on the same cases; then the sweep of mean_std and
# sum_squares (2^16 to 2^26) beside CuPy, cupy.fuse, torch and torch.compile.
set -u
PARALLEL=12 FILE_LIMIT=400 timeout 420 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz)
cat $OUT/files.txt
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
V=""
for s in 16777216x4:1 8388608x8:1 6710886x10:1 5592405x12:1 4793490x14:1 4194304x16:1 2796202x24:1 2097152x32:1 1048576x64:1 524288x128:1 262144x256:1 65536x1024:1 67108864:0; do V="$V var:$s"; done
for r in 1 2; do echo "## kept, round $r"; FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 $P $V 2>&1; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $V 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
mkdir -p $OUT/sweep
OUT=$OUT/sweep WORKLOADS='mean_std|sum_squares' timeout 200 bash bench/gpu_issue13.sh sweep > $OUT/sweep.log 2>&1
tail -40 $OUT/sweep.log
