#!/usr/bin/env bash
# Fifty-sixth session, arg-reductions in vectors on GPUs too: argmax/argmin
# over rows, down columns and over the whole array, the build before (OLD:
# scalars, several rows a work-group) and this one (NEW: each lane's index
# beside its value) interleaved, beside torch eager and torch.compile
# (bench/torch_axis.py) in one run; then the whole test suite (one file a
# process) on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
C=""
for m in 17 40 100 256 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmin:671088x100:1 argmax:65536x1024:1:i8 argmax:65536x1024:1:f64"
C="$C argmax:104857x40:1 argmax:4096x1024:1 argmax:4096x16384:0 argmax:1x67108864:0"
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-argold $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
timeout 200 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto55/oldnew_table.py $OUT/args.txt; cat $OUT/torch.txt
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
