#!/usr/bin/env bash
# Call 1 (session 47): fusecl's row kernels (the bundle in carry/new) against
# the same kernels with every loop visiting every chunk (pred.py), timed
# side by side by rows_harness, outputs compared bit for bit. Two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto47
mkdir -p $OUT/kernels
CASES="${CASES:-softmax:20 softmax:40 softmax:44 softmax:52 softmax:300 softmax:600 softmax:800 softmax:900 layer_norm:20 layer_norm:44 layer_norm:52 layer_norm:300 layer_norm:600 layer_norm:700 layer_norm:800 layer_norm:900}"
for c in $CASES; do
  e=${c%%:*}; m=${c##*:}; n=$(( (1 << 26) / m )); name=$e-$m
  rm -rf /tmp/kc-$name
  FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=/tmp/kc-$name timeout 60 carry/new/bin/fusecl-axis-probe $e:${n}x$m:1 > $OUT/kernels/$name.probe.txt 2>&1
  f=$(grep -l "fusecl_row" $(find /tmp/kc-$name -name "*.cl") | head -1)
  [ -n "$f" ] || { echo "$name: no row kernel"; continue; }
  cp $f $OUT/kernels/$name.cl
done
for r in 1 2; do
  echo "## round $r"
  for c in $CASES; do
    e=${c%%:*}; m=${c##*:}; name=$e-$m; k=$OUT/kernels/$name.cl
    [ -f $k ] || continue
    if ! grep -q "break;" $k; then echo "$name: no row-end test"; continue; fi
    python3 $P/pred.py $k > $OUT/kernels/$name-pred.cl || { echo "$name: pred.py failed"; continue; }
    wg=$(grep -o "reqd_work_group_size([0-9]*" $k | grep -o "[0-9]*$")
    [ "$wg" = 128 ] || { echo "$name: work-group $wg"; continue; }
    rpg=$(grep -o "get_group_id(0) \* [0-9]*" $k | grep -o "[0-9]*$"); rpg=${rpg:-1}
    ns=$(grep -c "^    const float s[0-9]*,$" $k)
    echo "### $name rows/group $rpg scalars $ns"
    carry/new/bin/rows_harness $k $OUT/kernels/$name-pred.cl $m $rpg $ns 60 2>&1 | sed "s|$OUT/kernels/||"
  done
done
