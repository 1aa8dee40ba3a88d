#!/usr/bin/env bash
# Fifty-fourth session: the sweep's (run2.sh 1 and 2 on one H100) readings
# where a framework came out ahead, each a single reading at
# --benchmark_min_time=0.05, measured again: three rounds, each fusecl-bench
# (eval and fuse(), min_time 0.3) then cupy.fuse and torch.compile on the
# same inputs (min-time 0.3; rounds 1 and 2), into $OUT/r<k>/.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
F='^BM_(copy/|(black_scholes|haversine|sqrt_sin_exp|sum_squares)/(fused_device|fuse_device)/)'
for r in 1 2 3; do
  d=$OUT/r$r; mkdir -p $d
  timeout 100 carry/new/bin/fusecl-bench --min_log2=16 --max_log2=26 --log2_step=2 "--benchmark_filter=$F" \
    --benchmark_min_time=0.3 --benchmark_out_format=json --benchmark_out=$d/run.json --check_out=$d/check.jsonl > $d/fusecl-bench.txt 2>&1
  echo "round $r fusecl-bench: $?"
  [ $r = 3 ] && break
  timeout 110 python3 bench/gpu_frameworks.py --like $d/run.json --check $d/check.jsonl --min-time 0.3 \
    --frameworks cupy_fuse,torch_compile --out $d/frameworks.json > $d/gpu_frameworks.txt 2>&1
  echo "round $r frameworks: $?"
done
