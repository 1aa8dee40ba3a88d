set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
N=67108864
C=""
for m in 400 512 1000; do C="$C argmax:$((N / m))x$m:1"; done
C="$C argmin:$((N / 1000))x1000:1 argmax:$((N / 200))x200:1:f64 argmax:$((N / 256))x256:1:f64 argmax:$((N / 1000))x1000:1:i8 argmax:$((N / 1020))x1020:1:i8"
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-64 $P $C | sed "s/^/r$r v64 /"
  FCL_EXP_ARG_MAXV=255 FUSECL_CACHE_DIR=/tmp/kc-255 $P $C | sed "s/^/r$r v255 /"
done > $OUT/args.txt 2>&1
timeout 200 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/table.md
