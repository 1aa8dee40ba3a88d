#!/usr/bin/env bash
# Calls 1 and 2 (session 50): the issue's "every workload at every size"
# sweep on HEAD's kernels (c4cb185; the last full sweep was the forty-fourth
# session's, five sessions of row-kernel changes ago): eval and fuse() at
# 2^16, 2^18, ..., 2^26, then CuPy, cupy.fuse, torch and torch.compile on the
# same inputs, each checked against fusecl's. $1: half (1: the elementwise
# workloads, 2: the others). gpu_issue13.sh packs $OUT into issue13.tgz as it
# exits; the table comes from the unpacked run.json and frameworks.json
# (bench/sweep_table.py).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia
if [ "$1" = 1 ]; then W='chain2|sqrt_sin_exp|poly20|black_scholes|haversine|saxpy'
else W='transpose_add|softmax|softmax_axis0|row_norm|sum_squares|mean_std|monte_carlo_pi'; fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
uptime >> $OUT/gpu.txt
WORKLOADS="$W" bash bench/gpu_issue13.sh sweep
