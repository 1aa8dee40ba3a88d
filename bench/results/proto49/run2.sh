#!/usr/bin/env bash
# Call 2 (session 49): the kernels of call 1 packed (the sources of fusecl's
# row kernels for rows of 10, 12 and 14 under FUSECL_ROW_ELEMENTS=16 and 4,
# their SASS), and the configuration Inductor's autotuning picked for each of
# its kernels (.best_config), into $OUT/k.tgz.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
W=/tmp/w; mkdir -p $W
for e in softmax layer_norm; do for m in 10 12 14; do n=$(( (1 << 26) / m )); for s in 16 4; do
  d=/tmp/kc-$e-$m-$s
  FUSECL_ROW_ELEMENTS=$s FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$d timeout 60 $P $e:${n}x$m:1 > $W/$e-$m-$s.txt 2>&1
  f=$(grep -l "fusecl_row" $(find $d -name "*.cl") | head -1)
  [ -n "$f" ] && cp $f $W/$e-$m-$s.cl && python3 carry/new/sass_count.py --sass $W/sass-$e-$m-$s ${f%.cl}.bin > $W/$e-$m-$s.sass.txt 2>&1
done; done; done
TORCHINDUCTOR_CACHE_DIR=/tmp/ind timeout 200 python3 carry/new/torch_axis.py softmax:5592405x12:1 layer_norm:5592405x12:1 softmax:6710886x10:1 2>&1 | grep axis
mkdir -p $W/ind
for f in $(find /tmp/ind -name "*.best_config" -o -name "*.cubin" -o -name "*.ptx" -o -name "*.py" -size -40k); do cp $f $W/ind/ 2>/dev/null; done
python3 carry/new/sass_count.py --sass $W/ind-sass $(find /tmp/ind -name "*.cubin") > $W/ind-sass.txt 2>&1
ls /tmp/kc-softmax-12-4/*/ | head
tar czf $OUT/k.tgz -C /tmp w
du -sh $OUT/k.tgz
