# Fifty-ninth session, call 3: float64 moments' work-items a row: elements
# a work-item where several rows share a group (FCL_EXP_F64_SHARED, 16 =
# kSharedRowElements) and vectors a work-item where a row has a group
# (FCL_EXP_F64_VECS, 8), two rounds interleaved.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
S=""; for m in 32 64 128 256; do S="$S var:$((N / m))x$m:1:f64"; done; S="$S mean_var:$((N / 64))x64:1:f64"
V=""; for m in 512 1024 2048 8192; do V="$V var:$((N / m))x$m:1:f64"; done; V="$V var:1x$N:1:f64 mean_var:$((N / 1024))x1024:1:f64"
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  for k in 16 32 64; do FCL_EXP_F64_SHARED=$k FUSECL_CACHE_DIR=/tmp/kc-s$k $P $S | sed "s/^/r$r s$k /"; done
  for k in 8 16 32; do FCL_EXP_F64_VECS=$k FUSECL_CACHE_DIR=/tmp/kc-v$k $P $V | sed "s/^/r$r v$k /"; done
  [ -x carry/new/bin/probe-call1 ] && FUSECL_CACHE_DIR=/tmp/kc-c1 carry/new/bin/probe-call1 $S $V | sed "s/^/r$r call1 /"
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-old $S $V | sed "s/^/r$r old /"
done > $OUT/knobs.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/knobs.txt | tee $OUT/table.md
