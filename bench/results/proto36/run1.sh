#!/usr/bin/env bash
# Call 1 (session 36): 32-bit coordinates divided through each dimension's
# divider (carry/new) against the same coordinates by integer division
# (carry/old, b13e7b7), interleaved over two rounds, torch.compile on the
# same cases; the kernels whose coordinates divide: softmax and layer norm
# over middle axes (their output kernels), softmax's output from kept
# statistics, and plain reductions beside them; then the test files whose
# kernels compute coordinates, on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-36
C=""
for s in 64x1024x1024:1 256x1024x256:1 32x2048x1024:1 16x4096x1024:1 256x256x1024:1 8192x8192:0 2048x32768:0; do
  for e in softmax layer_norm softmax_out; do C="$C $e:$s"; done
done
for s in 8192x8192:0 64x1024x1024:1 256x1024x256:1 64x1024x1024:0 64x1024x1024:2; do
  for e in max sum var; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in old new; do
    echo "## $v X=0, round $r"
    timeout 150 $PWD/carry/$v/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $(echo $C | tr " " "\n" | grep -v softmax_out) 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="index32 column_reductions reduction_pairs moments split_reductions reductions random_dags fusion views cross_rows schedule host_views" SUITE_LIMIT=250 bash bench/gpu_issue13.sh suite
