# Fifty-ninth session, call 2: float64 moments with a row's work-items met
# through warp shuffles, the first block and equal counts without a
# division, lanes met without one; against the session's start, two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for e in var mean_var; do
  for m in $N 8192 1024 256 64 32 16 4; do C="$C $e:$((N / m))x$m:1:f64"; done
  C="$C $e:1x4194304:1:f64 $e:4096x1024:1:f64 $e:65536x16:1:f64"
done
C="$C var:$((N / 1024))x1024:1:i32 var:1x$N:1:i32"
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-old $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/f64.txt 2>&1
python3 carry/new/torch_axis.py var:$((N / 256))x256:1:f64 var:$((N / 32))x32:1:f64 mean_var:$((N / 256))x256:1:f64 mean_var:$((N / 32))x32:1:f64 > $OUT/torch.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/f64.txt $OUT/torch.txt | tee $OUT/table.md
