# Fifty-ninth session, call 8: where issue 13 still stands beside
# torch.compile (the kept code, aba86b3's kernels), one H100: the main
# reduce-then-use workloads at 2^26, and the gaps the last sessions left
# (arg-reductions over rows of 400 / 1000, down columns, int8 down columns).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C="softmax:65536x1024:1 layer_norm:65536x1024:1 softmax:8192x8192:0 layer_norm:8192x8192:0 center:65536x1024:1 normalize:65536x1024:1 logsumexp:65536x1024:1 var:65536x1024:1 var:8192x8192:0"
C="$C argmax:$((N / 1000))x1000:1 argmin:$((N / 1000))x1000:1 argmax:$((N / 400))x400:1 argmax:4096x16384:0 argmin:4096x16384:0"
C="$C sum:4096x16384:0:i8 max:4096x16384:0:i8 argmax:4096x16384:0:i8 argmax:$((N / 16))x16:1:f64 var:$((N / 64))x64:1:f64 var:$((N / 16))x16:1:f64"
for r in 1 2; do FUSECL_CACHE_DIR=/tmp/kc-gaps carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r fusecl /"; done > $OUT/gaps.txt 2>&1
python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/gaps.txt $OUT/torch.txt | tee $OUT/table.md
