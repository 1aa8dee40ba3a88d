#!/bin/bash
# Thirty-third session, call 4: the rule (FUSECL_ROW_CONSTANT 0/1 where it
# applies and where not), then the suite's files not run yet with this code.
R=$OUT
N=$((1<<26))
C=""
for m in 3 31 45 65 97 129 257; do n=$((N / m)); C="$C softmax:${n}x$m:1 layer_norm:${n}x$m:1"; done
T=""
for m in 3 17; do n=$((N / m)); T="$T softmax:${n}x$m:1 layer_norm:${n}x$m:1"; done
CASES="$C" KNOBS="FUSECL_ROW_CONSTANT=0 FUSECL_ROW_CONSTANT=1" TORCH_LIMIT=1 OUT=$R/ax bash bench/gpu_issue13.sh axis > /dev/null 2>&1
(cd $R/ax && tar xzf issue13.tgz && rm issue13.tgz)
LD_LIBRARY_PATH=$PWD/carry/new/lib timeout 100 python3 carry/new/torch_axis.py $T > $R/torch.txt 2>&1
python3 bench/results/proto33/parse.py $R/ax/axis.txt $R/torch.txt | tee $R/table4.txt
FILES="ops_unary philox plan_cache plan_signature promotion random_dags random_inputs row_length tuning ulp views" SUITE_LIMIT=380 OUT=$R/s bash bench/gpu_issue13.sh suite > /dev/null 2>&1
(cd $R/s && tar xzf issue13.tgz && rm issue13.tgz; grep -E "FAILED|failed|passed|rc=" tests.txt | head -20)
cd $R && tar czf all.tgz --exclude=all.tgz * && find . -type f ! -name all.tgz -delete
