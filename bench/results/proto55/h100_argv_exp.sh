mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for m in 40 100 256 1000 4096; do C="$C argmax:$((67108864 / m))x$m:1"; done
C="$C argmax:4096x16384:0 argmax:1x67108864:0 argmax:4194x1000:1"
for r in 1 2; do
  carry/new/bin/probe-argv $C | sed "s/^/r$r old /"
  EXP_GPU_ARGV=1 carry/new/bin/probe-argv $C | sed "s/^/r$r new /"
done > $OUT/argv.txt 2>&1
python3 bench/results/proto55/oldnew_table.py $OUT/argv.txt; grep "axis 0" $OUT/argv.txt
