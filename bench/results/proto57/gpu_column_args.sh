# Fifty-seventh session: argmin/argmax down columns in vectors (new) against
# the build before this session (old: scalar arg-reductions on GPUs, a
# work-item per output down columns), interleaved, beside torch; the kernel
# lab (hand-written argmax variants); then the GPU suite.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
C=""
for m in 17 40 100 256 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmin:671088x100:1 argmax:65536x1024:1:i8 argmax:65536x1024:1:f64 argmax:1x67108864:1"
C="$C argmax:4096x16384:0 argmax:16384x4096:0 argmax:1024x65536:0 argmin:8192x8192:0 argmax:65536x1024:0"
C="$C argmax:4096x16384:0:f64 argmax:4096x16384:0:i8 max:4096x16384:0"
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-argold $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
python3 bench/results/proto57/oldnew_table.py $OUT/args.txt > $OUT/args_table.md
timeout 100 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
cat $OUT/device.txt $OUT/args_table.md $OUT/torch.txt
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
(cd carry/new/lab && timeout 90 ./lab) > $OUT/lab.txt 2>&1; ls $OUT
