#!/usr/bin/env bash
# Call 12 (session 45): the loops' exit tests. fusecl's softmax kernels for rows
# of 20 and 44 (kernels/) with every iteration testing the row's end (the
# generator's way) instead of only those past the vectors every work-item has
# ("k >= 2 && ..."); and the generator's kernels (clamped loads) with fusecl's
# test. Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
G=bench/results/proto45/gen_rows.py H=carry/new/bin/rows_harness K=bench/results/proto45/kernels
for r in 1 2; do
  for v in "20 2 3" "44 4 3"; do
    set -- $v; V=$(( $1 / 4 )); rpg=$(( 128 / $2 ))
    sed 's/if (k >= 2 \&\& q >= m \/ 4) break;/if (q >= m \/ 4) break;/' $K/softmax-$1.cl > /tmp/fa.cl
    echo "## softmax rows of $1: fusecl / fusecl testing every iteration"
    timeout 60 $H $K/softmax-$1.cl /tmp/fa.cl $1 $rpg 0 40 2>&1
    python3 $G $1 $2 $3 softmax clamp > /tmp/g.cl
    sed "s/if (sl + k \* $2 >= $V) break;/if (k >= 2 \&\& sl + k * $2 >= $V) break;/; s/if (q >= $V) break;/if (k >= 2 \&\& q >= $V) break;/" /tmp/g.cl > /tmp/gf.cl
    echo "## softmax rows of $1: generator / generator testing only past 2"
    timeout 60 $H /tmp/g.cl /tmp/gf.cl $1 $rpg 0 40 2>&1
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
