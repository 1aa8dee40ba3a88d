#!/usr/bin/env bash
# Call 5 (session 44): whole-vector rows holding the vectors they need, not the
# power of two above (plan_row.cpp; carry/new) against the bundle before
# (carry/base, the kernels of fee2bbd): softmax and layer norm over rows of 20
# to 12000 floats, interleaved, two rounds; the plans; torch.compile on the
# same cases; then the hand-edited kernels of call 4 (run4.sh).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for m in 20 36 40 44 52 100 200 300 500 600 1000 1500 2000 3000 5000 6000 12000; do
  n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 120 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
for b in base new; do
  echo "## plans $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-$b timeout 60 carry/$b/bin/fusecl-axis-probe $C 2>&1 \
    | grep 'row kernel' | sed 's/.*row kernel: //; s/; dividing.*//'
done > $OUT/plans.txt
echo "## torch" >> $OUT/axis.txt
LD_LIBRARY_PATH=$PWD/carry/new/lib timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
LD_LIBRARY_PATH=$PWD/carry/new/lib OUT=$OUT bash bench/results/proto44/run4.sh > /dev/null 2>&1
cat $OUT/run4.txt
