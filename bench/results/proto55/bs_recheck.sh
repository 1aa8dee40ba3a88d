#!/usr/bin/env bash
# Fifty-fifth session: Black-Scholes at 2^16-2^20, eval and fuse() beside
# cupy.fuse and torch.compile on one H100, three interleaved rounds
# (fusecl-bench then the frameworks on the same inputs), into $OUT/r<k>/.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
lscpu | grep -i 'model name' >> $OUT/gpu.txt
F='^BM_(copy/|black_scholes/(fused_device|fuse_device)/)'
for r in 1 2 3; do
  d=$OUT/r$r; mkdir -p $d
  timeout 60 carry/new/bin/fusecl-bench --min_log2=16 --max_log2=20 --log2_step=2 "--benchmark_filter=$F" \
    --benchmark_min_time=0.3 --benchmark_out_format=json --benchmark_out=$d/run.json --check_out=$d/check.jsonl > $d/fusecl-bench.txt 2>&1
  echo "round $r fusecl-bench: $?"
  timeout 90 python3 bench/gpu_frameworks.py --like $d/run.json --check $d/check.jsonl --min-time 0.3 \
    --frameworks cupy_fuse,torch_compile --out $d/frameworks.json > $d/gpu_frameworks.txt 2>&1
  echo "round $r frameworks: $?"
done
