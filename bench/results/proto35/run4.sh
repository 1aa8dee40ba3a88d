#!/usr/bin/env bash
# Call 4 (session 35): the kept code (carry/new: blocks of four rows in
# softmax's column pair, parts rounded down) against call 1's bundle
# (carry/old) and against itself with FUSECL_COLUMN_ONE_WAVE=0, interleaved
# over two rounds, torch.compile on the same cases; then the test files
# whose kernels changed, on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-35
C=""
for s in 64x1024x1024:1 256x1024x256:1 32x2048x1024:1 16x4096x1024:1 8192x8192:0 16384x4096:0 2048x32768:0 1024x65536:0 4096x4096:0; do
  for e in softmax layer_norm logsumexp; do C="$C $e:$s"; done
done
for s in 8192x8192:0 32x2048x1024:1 64x1024x1024:1; do
  for e in max sum var; do C="$C $e:$s"; done
done
for r in 1 2; do
  for v in "old X=0" "new X=0" "new FUSECL_COLUMN_ONE_WAVE=0"; do
    set -- $v
    echo "## $1 $2, round $r"
    env $2 timeout 150 $PWD/carry/$1/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="column_reductions reduction_pairs moments split_reductions reductions random_dags fusion views cross_rows schedule host_views" SUITE_LIMIT=330 bash bench/gpu_issue13.sh suite
