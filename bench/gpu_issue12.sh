#!/usr/bin/env bash
# Issue 12's figures on a lent NVIDIA GPU machine, in one run: the bus rates
# (pageable and pinned, measured by fusecl-bench itself), the workloads host to
# host through from_host/to_host (fused_e2e) and through host views
# (host_view) beside the device-resident time, and 2 x 16 GiB of host data
# streamed through a 4 GiB device memory limit (examples/out_of_core).
#
# Run from the repository root with a bundle made by scripts/make_bundle.sh in
# carry/new (BUNDLE=... for another folder):  bash bench/gpu_issue12.sh
# Results go under $OUT: bench.json (Google Benchmark JSON with the bus rates
# in its context), bench.txt, out_of_core.txt, env.txt.
# Settings (env): GPU_DEVICE (default nvidia), GIB (16), LIMIT (4G), MIN_TIME (0.2).
set -u
bundle=$(cd "${BUNDLE:-carry/new}" && pwd) || exit 1
out=${OUT:?gpu_issue12: OUT must name the folder for the results}
mkdir -p /etc/OpenCL/vendors
[ -f /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=${GPU_DEVICE:-nvidia}
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FUSECL_CACHE_DIR=/tmp/gpu_issue12-kernel-cache
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  "$bundle/bin/fusecl-info"
} > "$out/env.txt" 2>&1

timeout 300 "$bundle/bin/fusecl-bench" --min_log2=20 --max_log2=26 --log2_step=3 \
  '--benchmark_filter=^BM_(copy/|(chain2|sqrt_sin_exp|saxpy|sum_squares|black_scholes|softmax)/(fused_device|fused_e2e|host_view)/)' \
  --benchmark_min_time="${MIN_TIME:-0.2}" --benchmark_out_format=json --benchmark_out="$out/bench.json" > "$out/bench.txt" 2>&1
echo "fusecl-bench: status $?" >> "$out/bench.txt"

FUSECL_DEVICE_MEMORY_LIMIT=${LIMIT:-4G} timeout 240 "$bundle/bin/out_of_core" "${GIB:-16}" 2 > "$out/out_of_core.txt" 2>&1
echo "out_of_core: status $?" >> "$out/out_of_core.txt"
tail -12 "$out/out_of_core.txt"
