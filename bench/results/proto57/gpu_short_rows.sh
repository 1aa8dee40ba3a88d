# Fifty-seventh session: arg-reductions over short rows back in scalars on
# GPUs (rows of fewer than 8 vectors), against the build before this session
# (old: scalars everywhere on GPUs), interleaved, and argmax along an axis
# of one element (zeros now); then the GPU suite.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
C=""
for m in 17 24 31 32 40 100; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmax:2097152x32:1:f64 argmax:4194304x16:1:f64 argmax:2097152x32:1:i8 argmax:1x67108864:0"
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-argold $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
python3 bench/results/proto57/oldnew_table.py $OUT/args.txt > $OUT/args_table.md
cat $OUT/device.txt $OUT/args_table.md
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; grep -v 'rc=0' $OUT/files.txt 2>/dev/null; ls $OUT
