#!/usr/bin/env bash
# Call 7 (session 47): the compensated sum as a plain one (plain) in row kernels
# whose work-items add few terms a lane, across row lengths (not fusecl's bits;
# within the same error bound where a lane adds at most 4 terms).
# rows_multi, two rounds; each kernel's chunks a work-item printed.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto47
g++ -O2 -std=c++20 $P/rows_multi.cpp -o /tmp/rows_multi -lOpenCL || exit 1
K=/tmp/k47; mkdir -p $K
CASES="${CASES:-softmax:20 softmax:44 softmax:52 softmax:100 softmax:200 softmax:300 softmax:500 softmax:600 softmax:800 softmax:900 softmax:1100 softmax:2200 layer_norm:20 layer_norm:44 layer_norm:52 layer_norm:100 layer_norm:200 layer_norm:300 layer_norm:500 layer_norm:600 layer_norm:800 layer_norm:900 layer_norm:1100 layer_norm:2200}"
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
    sed -E 's/\{ const float4 y_ = (v[0-9]+) - compv; .*accv = t_; \}/accv += \1;/' $k > $K/$name-plain.cl
    rpg=$(grep -o "get_group_id(0) \* [0-9]*" $k | grep -o "[0-9]*$"); rpg=${rpg:-1}
    ns=$(grep -c "^    const float s[0-9]*,$" $k)
    echo "### $name rows/group $rpg scalars $ns chunks $(grep -o 'float[0-9]* rc0\[[0-9]*\]' $k)"
    /tmp/rows_multi $m $rpg $ns 60 $k $K/$name-plain.cl 2>&1
  done
done
