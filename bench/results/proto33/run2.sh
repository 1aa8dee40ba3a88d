#!/bin/bash
# Thirty-third session, call 2: prototype variants (b: the row length a
# constant, d: groups of 256, e: plain division), FUSECL_ROW_CONSTANT 0/1
# with fusecl-axis-probe, torch.compile on a subset, then the suite's second half.
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
R=$OUT
export LD_LIBRARY_PATH=$PWD/carry/new/lib
N=$((1<<26))
(cd bench/results/proto33 && for round in 1 2; do
  for spec in "129 8 128" "257 8 128"; do
    set -- $spec
    ./harness b$1.cl "" $((N / $1)) $1 $2 $3 40; ./harness d$1.cl "" $((N / $1)) $1 16 256 40; ./harness e$1.cl "" $((N / $1)) $1 $2 $3 40
  done
done) > $R/proto2.txt 2>&1
C=""
for m in 3 5 9 17 25 31 33 65 129 257 511 1001 1024 2047 4099; do n=$((N / m)); C="$C softmax:${n}x$m:1 layer_norm:${n}x$m:1"; done
T=""
for m in 25 31 129 257 511 1001 2047; do n=$((N / m)); T="$T softmax:${n}x$m:1 layer_norm:${n}x$m:1"; done
CASES="$C" KNOBS="FUSECL_ROW_CONSTANT=0 FUSECL_ROW_CONSTANT=1" TORCH_LIMIT=1 OUT=$R/ax bash bench/gpu_issue13.sh axis > /dev/null 2>&1
(cd $R/ax && tar xzf issue13.tgz && rm issue13.tgz)
timeout 240 python3 carry/new/torch_axis.py $T > $R/torch.txt 2>&1
python3 bench/results/proto33/parse.py $R/ax/axis.txt $R/torch.txt | tee $R/table.txt
cat $R/proto2.txt
FILES="cross_rows buffer_pool cache_tool cl_errors column_reductions concat deep_graphs device_selection devices disk_cache fuse fusecl_info fusion generate host_views kernel_cache_cl memory_limit moments node_kinds oclgrind ops_binary ops_ternary ops_unary philox plan_cache plan_signature promotion random_dags random_inputs row_length" SUITE_LIMIT=230 OUT=$R/s bash bench/gpu_issue13.sh suite > /dev/null 2>&1
(cd $R/s && tar xzf issue13.tgz && rm issue13.tgz; grep -E "FAILED|failed|passed|rc=" tests.txt | head -20)
cd $R && tar czf all.tgz --exclude=all.tgz . && find . -type f ! -name all.tgz -delete
