#!/usr/bin/env bash
# Call 2 (session 34): (a) softmax and layer norm along leading and middle axes
# at 2^26 beside torch.compile, the state after the column and pair work;
# (b) eval's host time, the operands moved into new nodes (carry/nb) against
# 971719b (carry/bb): Black-Scholes, haversine and chain2 through eval and
# fuse() at 2^16 and 2^18, the two bundles interleaved, 3 rounds.
set -u
# bench/gpu_issue13.sh reads carry/new: here it is a copy of carry/nb, the slim bundle of this
# tree (fusecl-bench, fusecl-axis-probe, fusecl-info, lib, torch_axis.py); carry/bb is 971719b's fusecl-bench.
rm -rf carry/new && cp -r carry/nb carry/new
CASES='softmax:64x1024x1024:1 layer_norm:64x1024x1024:1 softmax:256x1024x256:1 layer_norm:256x1024x256:1 softmax:8192x8192:0 layer_norm:8192x8192:0 softmax:1024x65536:0 layer_norm:1024x65536:0 softmax:16384x4096:0 layer_norm:16384x4096:0 softmax:2048x32768:0 layer_norm:2048x32768:0 softmax:4096x16384:1 layer_norm:4096x16384:1' \
  KNOBS=FUSECL_TUNE=0 OUT=$OUT/axis timeout 300 bash bench/gpu_issue13.sh axis > /dev/null 2>&1
(cd $OUT/axis && tar xzf issue13.tgz && rm issue13.tgz && cat axis.txt)
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
for r in 1 2 3; do
  for b in bb nb; do
    echo "## $b, round $r"
    LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-bench --min_log2=16 --max_log2=18 --log2_step=2 \
      --benchmark_filter='BM_(black_scholes|haversine|chain2)/(fused|fuse)_device/' --benchmark_min_time=0.2 2>&1 | grep -E '^BM' | awk '{print $1, $2, $3}'
  done
done 2>&1 | tee $OUT/host.txt
