#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root, with two bundles made by
# scripts/make_bundle.sh in carry/old and carry/new (carry/ is ignored, sent with `carry`):
#   bench/gpu_compare_builds.sh tests   the whole suite of carry/new on FUSECL_DEVICE=nvidia
#   bench/gpu_compare_builds.sh bench   old against new, interleaved rounds (BENCH_FILTER, MIN_LOG2, WAYS)
#   bench/gpu_compare_builds.sh numpy   carry/new against NumPy, numexpr, CuPy and torch: bench/gpu_issue14.sh
# Results go under $OUT (env.txt, tests.txt, bench.tgz).
set -u
if [ "${1:-}" = numpy ]; then
  BUNDLE=$PWD/carry/new exec bash bench/gpu_issue14.sh
fi
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia
root=$PWD/carry
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/env.txt 2>&1
LD_LIBRARY_PATH=$root/new/lib $root/new/bin/fusecl-info >> $OUT/env.txt 2>&1
if [ "${1:-}" = tests ]; then
# The suite (every Catch2 case; the install test is a ctest-only build test).
cd $root/new/bin
# FUSECL_TUNE=0 as ctest runs the suite: kernel layouts pinned by tests are the defaults.
export FUSECL_TUNE=0 FUSECL_TOOLS_DIR=$PWD FUSECL_SOURCE_DIR=$root/.. FUSECL_CACHE_DIR=/tmp/kc-tests
t0=$(date +%s)
LD_LIBRARY_PATH=$root/new/lib timeout 420 ./fusecl_tests --reporter compact > $OUT/tests.txt 2>&1
echo "rc=$? seconds=$(( $(date +%s) - t0 ))" >> $OUT/tests.txt
tail -3 $OUT/tests.txt
exit 0
fi
cd $root/..
# Reductions old vs new, three rounds interleaved.
mkdir -p /tmp/b
f=${BENCH_FILTER:-'BM_(sum_squares|mean_std|softmax)/fused_device/(20|22|24|26)/'}
for r in 1 2 3; do
  for v in ${WAYS:-old new new2k}; do
    bin=$v; extra=""
    if [ $v = new2k ]; then bin=new; extra="FUSECL_REDUCE_TWO_KERNELS=1"; fi
    env $extra FUSECL_CACHE_DIR=/tmp/kc-$v LD_LIBRARY_PATH=$root/$bin/lib timeout 150 $root/$bin/bin/fusecl-bench \
      --benchmark_filter="$f" --min_log2=${MIN_LOG2:-20} --max_log2=26 --benchmark_min_time=0.2 \
      --benchmark_format=json > /tmp/b/bench_${v}_$r.json 2> /tmp/b/bench_${v}_$r.err
    echo "$v round $r rc=$?"
  done
done
tar czf $OUT/bench.tgz -C /tmp b
