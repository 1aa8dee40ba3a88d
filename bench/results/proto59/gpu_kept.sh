# Fifty-ninth session, call 5: the kept code (float64 moments in one pass:
# rows, whole arrays, columns in vectors) against the session's start,
# interleaved, two rounds; torch.compile on the cases calls 1-2 left out;
# then the GPU suite.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for e in var mean_var; do
  for m in $N 8192 1024 512 256 128 64 32 16 4; do C="$C $e:$((N / m))x$m:1:f64"; done
  C="$C $e:1x4194304:1:f64 $e:4096x1024:1:f64 $e:65536x16:1:f64 $e:8192x8192:0:f64 $e:65536x1024:0:f64 $e:1024x65536:0:f64 $e:2048x2048:0:f64"
done
C="$C var:$((N / 1024))x1024:1:i32 var:1x$N:1:i32 var:8192x8192:0:i32"
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-old $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/kept.txt 2>&1
T=""; for e in var mean_var; do for m in 512 128 64 16 4; do T="$T $e:$((N / m))x$m:1:f64"; done; T="$T $e:8192x8192:0:f64 $e:65536x1024:0:f64 $e:1024x65536:0:f64 $e:2048x2048:0:f64 $e:1x$N:1:f64 $e:65536x1024:1:f64 $e:8192x8192:1:f64"; done
python3 carry/new/torch_axis.py $T > $OUT/torch.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/kept.txt $OUT/torch.txt | tee $OUT/table.md
mkdir -p /tmp/keep && cp $OUT/* /tmp/keep/
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; cp /tmp/keep/* $OUT/; ls $OUT
