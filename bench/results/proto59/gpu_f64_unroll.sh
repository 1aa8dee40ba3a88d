# Fifty-ninth session, call 7: float64 moments' block loop unrolled
# (FCL_EXP_F64_UNROLL: #pragma unroll N on a work-item's block of vectors),
# two rounds interleaved.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""; for m in $N 8192 1024 512 128 64 32 16; do C="$C var:$((N / m))x$m:1:f64"; done
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-u0 $P $C | sed "s/^/r$r kept /"
  for u in 2 4 8; do FCL_EXP_F64_UNROLL=$u FUSECL_CACHE_DIR=/tmp/kc-u$u $P $C | sed "s/^/r$r unroll$u /"; done
done > $OUT/unroll.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/unroll.txt | tee $OUT/table.md
