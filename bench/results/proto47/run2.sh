#!/usr/bin/env bash
# Call 2 (session 47): which loops' predicate gains and which loses: fusecl's
# row kernels (carry/new) against pred.py's variants changing the reduction
# loops one by one (0: the first, 1: the second) and the output loops (o),
# interleaved in one process each (rows_multi), outputs compared bit for bit.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto47
g++ -O2 -std=c++20 $P/rows_multi.cpp -o /tmp/rows_multi -lOpenCL || exit 1
K=/tmp/k47; mkdir -p $K
CASES="${CASES:-softmax:20 softmax:44 softmax:52 softmax:300 softmax:600 softmax:800 softmax:1100 softmax:2200 layer_norm:20 layer_norm:44 layer_norm:52 layer_norm:300 layer_norm:800 layer_norm:900 layer_norm:1100 layer_norm:2200}"
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
    if ! grep -q "break;" $k; then echo "$name: no row-end test"; continue; fi
    if [ $e = softmax ]; then sels="0 1 01 1o 01o"; else sels="0 1 01"; fi
    v=""; for s in $sels; do python3 $P/pred.py $k $s > $K/$name-p$s.cl && v="$v $K/$name-p$s.cl"; done
    wg=$(grep -o "reqd_work_group_size([0-9]*" $k | grep -o "[0-9]*$")
    [ "$wg" = 128 ] || { echo "$name: work-group $wg"; continue; }
    rpg=$(grep -o "get_group_id(0) \* [0-9]*" $k | grep -o "[0-9]*$"); rpg=${rpg:-1}
    ns=$(grep -c "^    const float s[0-9]*,$" $k)
    echo "### $name rows/group $rpg scalars $ns"
    /tmp/rows_multi $m $rpg $ns 60 $k $v 2>&1
  done
done
tar czf $OUT/kernels.tgz -C $K .
