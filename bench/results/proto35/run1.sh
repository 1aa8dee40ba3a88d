#!/usr/bin/env bash
# Call 1 (session 35): column reductions split over two parts where their
# blocks nearly fill the device, against one part (FUSECL_COLUMN_SPLIT_FILL)
# and softmax's pair in narrower vectors (FUSECL_PAIR_WIDTH), along middle
# and leading axes, interleaved over two rounds; then torch.compile on the
# same cases. carry/new: the bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
B=$PWD/carry/new
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$B/lib FUSECL_CACHE_DIR=/tmp/kc-35
P=$B/bin/fusecl-axis-probe
C=""
for s in 64x1024x1024:1 256x1024x256:1 32x2048x1024:1 16x4096x1024:1 8192x8192:0; do
  for e in softmax logsumexp max sum layer_norm; do C="$C $e:$s"; done
done
$B/bin/fusecl-info > $OUT/env.txt 2>&1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/env.txt
FUSECL_LOG=schedule FUSECL_COLUMN_SPLIT_FILL=2 $P softmax:64x1024x1024:1 max:64x1024x1024:1 2>&1 | grep -E "reduce|kernel" | sort | uniq -c > $OUT/schedule.txt
for r in 1 2; do
  for v in "X=0" "FUSECL_COLUMN_SPLIT_FILL=2" "FUSECL_PAIR_WIDTH=2" "FUSECL_COLUMN_SPLIT_FILL=4" "FUSECL_PAIR_WIDTH=2 FUSECL_COLUMN_SPLIT_FILL=2"; do
    echo "## $v, round $r"
    env $v timeout 150 $P $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 200 python3 $B/torch_axis.py $C 2>&1 | tee -a $OUT/axis.txt
