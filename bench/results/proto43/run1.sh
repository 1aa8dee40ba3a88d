#!/usr/bin/env bash
# Call 1 (session 43): the bundle of 31c16c7 (CPUs' transposed blocks in
# registers; GPU kernels unchanged in text, their plans' key one field
# longer): the whole suite one file a process on the H200; x + transpose(y)
# on the GPU at 2^26; then on the host's 16-core Xeon through PoCL, the blocks
# in registers against local-memory tiles (FUSECL_TILE_REGISTERS=0),
# interleaved, with NumPy on the same cases.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_TUNE=0
B=carry/new/bin/fusecl-bench
FUSECL_DEVICE=nvidia timeout 60 $B --min_log2=26 --max_log2=26 --benchmark_filter='^BM_(copy/|transpose_add/fused_device/)' \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 2>&1 | grep -E '^BM_.*(mean|median)|fusecl_device:' | tee $OUT/gpu.txt
carry/new/bin/fusecl-info 2>&1 | grep -i -E 'pocl|portable|cpu' | head -3 | tee $OUT/pocl.txt
run() {  # $1: label, $2: FUSECL_TILE_REGISTERS
  FUSECL_DEVICE=pocl FUSECL_TILE_REGISTERS=$2 FUSECL_CACHE_DIR=/tmp/kc-43-$2 timeout 80 $B --min_log2=16 --max_log2=26 \
    --log2_step=5 --benchmark_filter='^BM_(copy/|(transpose_add|saxpy)/fused_device/)' --benchmark_min_time=0.1 2>&1 \
    | grep -E '^BM_|fusecl_device:' | awk -v l="$1" '{print l, $1, $2, $3}'
}
run warm 1 > /dev/null; run warm 0 > /dev/null
for r in 1 2; do run "registers-$r" 1; run "local-$r" 0; done | tee -a $OUT/pocl.txt
FUSECL_DEVICE=pocl FUSECL_CACHE_DIR=/tmp/kc-43-1 timeout 60 $B --min_log2=16 --max_log2=26 --log2_step=5 \
  --benchmark_filter='^BM_transpose_add/fused_device/' --benchmark_min_time=0.1 --benchmark_out_format=json \
  --benchmark_out=/tmp/pocl-run.json --check_out=/tmp/pocl-check.jsonl > /dev/null 2>&1
timeout 120 /opt/torch/.venv/bin/python3 bench/host_frameworks.py --like /tmp/pocl-run.json --check /tmp/pocl-check.jsonl \
  --min-time 0.1 --frameworks numpy --out $OUT/pocl-host.json 2>&1 | tail -6 | tee -a $OUT/pocl.txt
