# Fifty-eighth session: argmin / argmax over short rows in lanes (new:
# FCL_EXP_ARG_LANES=32; "wide": up to 64 vectors) and odd short rows
# (17 < m <= 32, no whole vectors) in lanes of scalars (FCL_EXP_ODD_LANES=2)
# against the build as it was (old: both off), interleaved, beside
# torch.compile; then the GPU suite with the prototype's defaults.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for m in 8 16 24 32 40 64 100 128 256; do C="$C argmax:$((N / m))x$m:1"; done
for m in 8 16 32 64 128; do C="$C argmax:$((N / m))x$m:1:f64"; done
for m in 32 64 256; do C="$C argmax:$((N / m))x$m:1:i8"; done
C="$C argmin:$((N / 24))x24:1"
for m in 17 25 31; do for e in argmax sum max var; do C="$C $e:$((N / m))x$m:1"; done; done
for r in 1 2; do
  FCL_EXP_ARG_LANES=0 FCL_EXP_ODD_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r old /"
  FCL_EXP_ARG_LANES=32 FCL_EXP_ODD_LANES=2 FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
  FCL_EXP_ARG_LANES=64 FCL_EXP_ODD_LANES=2 FUSECL_CACHE_DIR=/tmp/kc-wide carry/new/bin/fusecl-axis-probe argmax:$((N / 256))x256:1 argmax:$((N / 200))x200:1 argmax:$((N / 128))x128:1:f64 | sed "s/^/r$r wide /"
done > $OUT/args.txt 2>&1
timeout 300 python3 carry/new/torch_axis.py $C argmax:$((N / 200))x200:1 > $OUT/torch.txt 2>&1
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/device.txt $OUT/table.md
grep -v "axis\|^#" $OUT/args.txt | head -5
[ -n "${SUITE:-}" ] && FCL_EXP_ODD_LANES=2 PARALLEL=12 FILE_LIMIT=300 timeout 280 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; grep -v 'rc=0' $OUT/files.txt 2>/dev/null; ls $OUT
