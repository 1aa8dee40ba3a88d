#!/usr/bin/env bash
# Call 5 (session 36): the column form's fan-in T / 8 (2 at least; carry/new)
# against one level of 32 (carry/old, b13e7b7, whose column kernels are the
# same but for it), and with up to 8 vectors a work-item before 32 work-items
# down each vector of columns (FCL_PROTO_COLUMN_VECTORS=8, a prototype
# setting, not kept) where 4 is the rule, interleaved, two rounds; then
# torch.compile on the same cases.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-36
C=""
for s in 256x256x1024:1 4096x64x256:1 1024x16x4096:1 512x131072:0 256x262144:0 128x524288:0 32x2097152:0 16x4194304:0 \
         64x1024x1024:0 1024x512x128:1 256x65536:0 64x256x1024:1 16x1024x1024:0 512x32768:0 2048x2048:0 256x16384:0 128x32768:0; do
  for e in softmax layer_norm; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "old X=0" "new X=0" "new FCL_PROTO_COLUMN_VECTORS=8" "new FCL_PROTO_COLUMN_VECTORS=2"; do
    set -- $v
    echo "## $1 $2, round $r"
    env $2 timeout 150 $PWD/carry/$1/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 300 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
