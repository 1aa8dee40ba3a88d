#!/usr/bin/env bash
# Call 2 (session 46): which part of the generator's load and store phases
# makes gffg fast (run1: 141-142 us against ffff's 148-150)? The forms between
# (hybrid.py: load a/b/c, store a/c/d/e/h) against ffff. Two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
P=bench/results/proto46 H=carry/new/bin/rows_harness
V="gffg affg bffg cffg gffa gffc gffd gffe gffh affa affd cffd bffc"
for c in ffff $V; do python3 $P/hybrid.py $c > /tmp/$c.cl; done
for r in 1 2; do
  for c in $V; do
    echo "## ffff / $c"; timeout 60 $H /tmp/ffff.cl /tmp/$c.cl 20 64 0 40 2>&1
  done
done > $OUT/rows.txt
cat $OUT/rows.txt
