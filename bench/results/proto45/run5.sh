#!/usr/bin/env bash
# Call 5 (session 45): layer norm over short rows in other layouts (gen_rows.py:
# P work-items a row, K vectors each) against fusecl's kernel of proto44/r20.cl
# and the same layout regenerated (rows of 20: P 2, K 3 must match r20.cl bit
# for bit), by proto44/rows_harness.cpp (carry/new/bin/rows_harness; rows_harness2 when run, the
# same code as a copy since folded into it).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness
for r in 1 2; do
  for v in "20 2 3" "20 4 2" "20 8 1" "44 4 3" "44 8 2" "44 16 1" "52 4 4" "52 8 2" "52 16 1"; do
    set -- $v; python3 $G $1 $2 $3 > /tmp/k.cl
    # rows of 20 against r20.cl itself; others against the regenerated default layout
    case $1 in 20) a=bench/results/proto44/r20.cl; ra=64;; 44) python3 $G 44 4 3 > /tmp/a.cl; a=/tmp/a.cl; ra=32;; 52) python3 $G 52 4 4 > /tmp/a.cl; a=/tmp/a.cl; ra=32;; esac
    echo "## rows of $1, P $2, K $3"; timeout 60 $H $a /tmp/k.cl $1 $ra:$((128 / $2)) 3 40 2>&1 | sed "s|/tmp/k.cl|P $2 K $3|"
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
