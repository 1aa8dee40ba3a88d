#!/usr/bin/env bash
# Call 1 (session 37): moment kernels (var, std, mean and std) whose group's
# sums meet through warp shuffles (default) against the tree in local memory
# (FUSECL_ROW_SHUFFLE=0, which also turns the shuffles off for moments), one
# bundle, interleaved, two rounds; torch.compile on the same cases; the
# suite's mean_std both ways; then test files on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-37
C="sum:64x1024x1024:2 sum:262144x256:1"
for s in 64x1024x1024:2 262144x256:1 131072x512:1 32768x2048:1 16384x4096:1 1024x65536:1 67108864:0; do C="$C var:$s"; done
for r in 1 2; do
  for v in FUSECL_ROW_SHUFFLE=0 FUSECL_ROW_SHUFFLE=1; do
    echo "## $v, round $r"
    env $v timeout 100 $PWD/carry/new/bin/fusecl-axis-probe $C 2>&1
  done
done | tee $OUT/axis.txt
for r in 1 2; do
  for v in FUSECL_ROW_SHUFFLE=0 FUSECL_ROW_SHUFFLE=1; do
    echo "## $v, round $r"
    env $v timeout 60 $PWD/carry/new/bin/fusecl-bench --benchmark_filter='(mean_std|sum_squares)/fused_device/(20|26)$' --benchmark_min_time=0.1 2>&1 | grep -E "^BM|^(mean|sum)"
  done
done | tee $OUT/bench.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis | tee -a $OUT/axis.txt
FILES="${FILES:-moments row_warp shape_limits trig ulp fuse concat deep_graphs}" SUITE_LIMIT=${SUITE_LIMIT:-200} bash bench/gpu_issue13.sh suite
