# Fifty-eighth session, call 8: argmin / argmax in lanes with more than 4
# vectors a lane, two rows a work-item (K2, kept) or one (K1, FCL_EXP_ARGK=1,
# a switch of this call's probe only).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
N=67108864
C=""
for m in 31 132 256 400 512 1000 1024; do C="$C argmax:$((N / m))x$m:1"; done
C="$C argmax:$((N / 256))x256:1:f64 argmax:$((N / 1000))x1000:1:i8 argmax:$((N / 25))x25:1"
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-k2 $P $C | sed "s/^/r$r K2 /"
  FCL_EXP_ARGK=1 FUSECL_CACHE_DIR=/tmp/kc-k1 $P $C | sed "s/^/r$r K1 /"
done > $OUT/args.txt 2>&1
python3 bench/results/proto58/table.py $OUT/args.txt > $OUT/table.md
cat $OUT/table.md
