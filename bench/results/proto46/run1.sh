#!/usr/bin/env bash
# Call 1 (session 46): softmax over rows of 20 (64 rows a group of 128) in the
# 16 hybrids of hybrid.py - load, max, sum and store phases each in fusecl's
# form (f) or gen_rows.py's (g) - each against ffff; ffff against fusecl's own
# kernel and gggg against the generator's, to show the hybrids reproduce them.
# Two rounds, carry/new/bin/rows_harness.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
P=bench/results/proto46 H=carry/new/bin/rows_harness
python3 bench/results/proto45/gen_rows.py 20 2 3 softmax clamp > /tmp/gen.cl
for c in ffff fffg ffgf ffgg fgff fgfg fggf fggg gfff gffg gfgf gfgg ggff ggfg gggf gggg; do python3 $P/hybrid.py $c > /tmp/$c.cl; done
for r in 1 2; do
  echo "## fusecl / ffff"; timeout 60 $H bench/results/proto45/kernels/softmax-20.cl /tmp/ffff.cl 20 64 0 40 2>&1
  echo "## gen / gggg"; timeout 60 $H /tmp/gen.cl /tmp/gggg.cl 20 64 0 40 2>&1
  for c in fffg ffgf ffgg fgff fgfg fggf fggg gfff gffg gfgf gfgg ggff ggfg gggf gggg; do
    echo "## ffff / $c"; timeout 60 $H /tmp/ffff.cl /tmp/$c.cl 20 64 0 40 2>&1
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
