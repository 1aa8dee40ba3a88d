# Fifty-eighth session, second call: argmin / argmax over short rows in
# lanes and odd short rows in lanes of scalars, with the lanes a row chosen
# as the largest power of two dividing the row's vectors (a: as the plain
# reductions have it), or the fewest that leave at most 4 (v4) or 8 (v8,
# rows of up to 64 vectors) vectors a lane; old: neither form. Interleaved,
# two rounds, beside torch.compile.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for m in 8 16 24 32 40 64 100 128 200 256; do C="$C argmax:$((N / m))x$m:1"; done
for m in 8 16 32 64 128; do C="$C argmax:$((N / m))x$m:1:f64"; done
for m in 32 64; do C="$C argmax:$((N / m))x$m:1:i8"; done
for m in 17 21 25 31; do for e in argmax sum max; do C="$C $e:$((N / m))x$m:1"; done; done
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FCL_EXP_ARG_LANES=0 FCL_EXP_ODD_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-old $P $C | sed "s/^/r$r old /"
  FCL_EXP_ODD_LANES=2 FUSECL_CACHE_DIR=/tmp/kc-a $P $C | sed "s/^/r$r a /"
  FCL_EXP_VMAX=4 FCL_EXP_ODD_LANES=2 FUSECL_CACHE_DIR=/tmp/kc-v4 $P $C | sed "s/^/r$r v4 /"
  FCL_EXP_VMAX=8 FCL_EXP_ARG_LANES=64 FCL_EXP_ODD_LANES=2 FUSECL_CACHE_DIR=/tmp/kc-v8 $P $C | sed "s/^/r$r v8 /"
done > $OUT/args.txt 2>&1
timeout 200 python3 carry/new/torch_axis.py argmax:$((N / 21))x21:1 sum:$((N / 21))x21:1 max:$((N / 21))x21:1 argmax:$((N / 200))x200:1 > $OUT/torch.txt 2>&1
cat bench/results/proto58/lanes1_torch.txt >> $OUT/torch.txt
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/device.txt $OUT/table.md
