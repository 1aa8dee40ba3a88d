#!/usr/bin/env bash
# Call 7 (session 39): call 6's sweep again (its fusecl results did not come
# back), mean_std and sum_squares at 2^16 to 2^26 beside CuPy, cupy.fuse,
# torch and torch.compile, tabulated by bench/sweep_table.py.
set -u
mkdir -p $OUT/sweep
OUT=$OUT/sweep WORKLOADS='mean_std|sum_squares' timeout 240 bash bench/gpu_issue13.sh sweep > $OUT/sweep.log 2>&1
python3 carry/new/sweep_table.py $(find $OUT/sweep -name run.json -printf "%h\n" | sort -u) 2>&1 | tee $OUT/table.md
find $OUT/sweep -type f | head
