# Fifty-eighth session, call 9: the kept code (arg-reductions over rows of
# up to 256 vectors in lanes, a work-item a row past 4 vectors a lane; rows
# of 17 to 32 without whole vectors in lanes of scalars) against the
# session's start (the prototype's probe with its forms off), interleaved,
# two rounds; then the GPU suite. torch.compile: calls 1, 2, 6 and 7
# (lanes*_torch.txt, maxv_torch.txt, and rows of 1024 from call 7's table).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for m in 8 16 24 32 40 64 100 128 132 200 256 400 512 1000 1024 1028; do C="$C argmax:$((N / m))x$m:1"; done
for m in 8 16 32 64 128 256; do C="$C argmax:$((N / m))x$m:1:f64"; done
for m in 32 64 256 1000; do C="$C argmax:$((N / m))x$m:1:i8"; done
for m in 17 21 25 31; do for e in argmax sum max; do C="$C $e:$((N / m))x$m:1"; done; done
C="$C argmin:$((N / 24))x24:1 argmin:$((N / 1000))x1000:1 var:$((N / 17))x17:1 sum:$((N / 32))x32:1 sum:$((N / 4096))x4096:1 max:$((N / 24))x24:1"
for r in 1 2; do
  FCL_EXP_ARG_LANES=0 FCL_EXP_ODD_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-proto $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
cat bench/results/proto58/lanes1_torch.txt bench/results/proto58/lanes2_torch.txt bench/results/proto58/maxv_torch.txt > $OUT/torch.txt
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/device.txt $OUT/table.md
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; ls $OUT
