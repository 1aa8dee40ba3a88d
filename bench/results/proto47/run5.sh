#!/usr/bin/env bash
# Call 5 (session 47): short rows a work-item each (t1.py: 128 rows a group,
# every vector of the row in registers, no shuffles) against d9b44f8's kernels
# (2 or 4 work-items a row). rows_multi, two rounds; the sums run in another
# order, so outputs differ in their last bits.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto47
g++ -O2 -std=c++20 $P/rows_multi.cpp -o /tmp/rows_multi -lOpenCL || exit 1
K=/tmp/k47; mkdir -p $K
CASES="${CASES:-softmax:20 softmax:28 softmax:40 softmax:44 softmax:52 layer_norm:20 layer_norm:28 layer_norm:40 layer_norm:44 layer_norm:52}"
for c in $CASES; do
  e=${c%%:*}; m=${c##*:}; n=$(( (1 << 26) / m )); name=$e-$m
  rm -rf /tmp/kc-$name
  FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=/tmp/kc-$name timeout 60 carry/new/bin/fusecl-axis-probe $e:${n}x$m:1 > $K/$name.probe.txt 2>&1
  f=$(grep -l "fusecl_row" $(find /tmp/kc-$name -name "*.cl") | head -1)
  [ -n "$f" ] && cp $f $K/$name.cl
done
for r in 1 2; do
  echo "## round $r"
  for c in $CASES; do
    e=${c%%:*}; m=${c##*:}; name=$e-$m; k=$K/$name.cl
    [ -f $k ] || { echo "$name: no row kernel"; continue; }
    python3 $P/t1.py $k > $K/$name-t1.cl || { echo "$name: t1.py failed"; continue; }
    rpg=$(grep -o "get_group_id(0) \* [0-9]*" $k | grep -o "[0-9]*$"); rpg=${rpg:-1}
    ns=$(grep -c "^    const float s[0-9]*,$" $k)
    echo "### $name rows/group $rpg scalars $ns"
    /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-t1.cl@128 2>&1
  done
done
tar czf $OUT/kernels.tgz -C $K .
