# Sourced by run2.sh and run4.sh to run7.sh (session 47), which set CASES
# (expr:m, softmax or layer norm over 2^26 / m rows of m floats) first: the
# device's OpenCL driver registered, fusecl's build options for the harness,
# rows_multi built, and each case's row kernel as the bundle in carry/new
# generates it kept in $K/expr-m.cl. `rounds FN` then calls FN for each case
# in two rounds, with e, m, name, k (the kernel), rpg (rows a group of 128)
# and ns (float scalars) set.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
export HARNESS_OPTIONS="-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
P=bench/results/proto47
g++ -O2 -std=c++20 $P/rows_multi.cpp -o /tmp/rows_multi -lOpenCL || exit 1
K=/tmp/k47; mkdir -p $K
for c in $CASES; do
  e=${c%%:*}; m=${c##*:}; n=$(( (1 << 26) / m )); name=$e-$m
  rm -rf /tmp/kc-$name
  FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=/tmp/kc-$name timeout 60 carry/new/bin/fusecl-axis-probe $e:${n}x$m:1 > $K/$name.probe.txt 2>&1
  f=$(grep -l "fusecl_row" $(find /tmp/kc-$name -name "*.cl") | head -1)
  [ -n "$f" ] && cp $f $K/$name.cl
done

rounds() {
  for r in 1 2; do
    echo "## round $r"
    for c in $CASES; do
      e=${c%%:*}; m=${c##*:}; name=$e-$m; k=$K/$name.cl
      [ -f $k ] || { echo "$name: no row kernel"; continue; }
      rpg=$(grep -o "get_group_id(0) \* [0-9]*" $k | grep -o "[0-9]*$"); rpg=${rpg:-1}
      ns=$(grep -c "^    const float s[0-9]*,$" $k)
      "$1"
    done
  done
}
