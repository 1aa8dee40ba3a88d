# Fifty-ninth session, call 1: var / std of float64 (and int32) arrays in one
# pass (render_moment_chan.cpp) against the session's start (two kernels:
# the mean, then the mean of squared deviations), interleaved, two rounds;
# torch.compile on the same cases; then the GPU suite.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for e in var mean_var; do
  for m in $N 8192 1024 64 16 4; do C="$C $e:$((N / m))x$m:1:f64"; done
  C="$C $e:1x4194304:1:f64 $e:4096x1024:1:f64 $e:65536x16:1:f64"
done
C="$C var:8192x8192:0:f64 var:$((N / 1024))x1024:1:i32 var:1x$N:1:i32"
T=""
for c in $C; do case $c in *:i32) ;; *) T="$T $c";; esac; done
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-old $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/f64.txt 2>&1
python3 carry/new/torch_axis.py $T > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/f64.txt $OUT/torch.txt > $OUT/table.md 2>&1
cat $OUT/device.txt $OUT/table.md
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; ls $OUT
