#!/usr/bin/env bash
# Call 5 (session 34): 32-bit coordinates (FUSECL_INDEX32, carry/new is this
# tree's bundle) against 64-bit on softmax and layer norm over middle and
# leading axes and x + transpose(y), 2 interleaved rounds; then the first half
# of the suite on the GPU (FILES as below, SUITE_LIMIT 420 s).
set -u
mkdir -p /etc/OpenCL/vendors $OUT/probe
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
B=$PWD/carry/new
CASES='softmax:64x1024x1024:1 layer_norm:64x1024x1024:1 softmax:256x1024x256:1 layer_norm:256x1024x256:1 softmax:8192x8192:0 layer_norm:8192x8192:0 softmax:65536x1024:1 softmax_out:64x1024x1024:1 scale:64x1024x1024:1'
for r in 1 2; do
  for v in 0 1; do
    echo "## FUSECL_INDEX32=$v, round $r"
    FUSECL_INDEX32=$v FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$B/lib FUSECL_CACHE_DIR=/tmp/kc-i$v timeout 100 $B/bin/fusecl-axis-probe $CASES
    FUSECL_INDEX32=$v FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$B/lib FUSECL_CACHE_DIR=/tmp/kc-i$v timeout 60 $B/bin/fusecl-bench --min_log2=26 --max_log2=26 \
      --benchmark_filter='BM_(transpose_add|row_norm|softmax_axis0)/fuse_device/' --benchmark_min_time=0.2 2>&1 | grep -E '^BM' | awk '{print $1, $2, $3}'
  done
done 2>&1 | tee $OUT/probe/index32.txt
FILES="reduction_pairs reductions reference row_deep row_fusion row_lanes row_layouts row_reciprocal row_split schedule settings shape_limits split_reductions threads tiles transfers trig tuning ulp views row_skew row_warp row_stage" \
  SUITE_LIMIT=420 OUT=$OUT/suite1 bash bench/gpu_issue13.sh suite > /dev/null 2>&1
(cd $OUT/suite1 && tar xzf issue13.tgz && rm issue13.tgz && tail -4 tests.txt && grep -E 'FAILED|failed' tests.txt | head -20)
