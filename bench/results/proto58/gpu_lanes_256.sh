# Fifty-eighth session, call 7: argmin / argmax over rows of up to 256
# vectors in lanes (the kept code) against the session's start (the
# prototype's probe with its forms off), interleaved; then the GPU suite.
# torch.compile: calls 1, 2 and 6 (lanes*_torch.txt, maxv_torch.txt).
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
N=67108864
C=""
for m in 24 31 128 256 400 512 1000 1024; do C="$C argmax:$((N / m))x$m:1"; done
C="$C argmin:$((N / 1000))x1000:1 argmax:$((N / 16))x16:1:f64 argmax:$((N / 256))x256:1:f64 argmax:$((N / 1000))x1000:1:i8 argmax:$((N / 1020))x1020:1:i8 argmax:$((N / 1028))x1028:1 sum:$((N / 25))x25:1"
for r in 1 2; do
  FCL_EXP_ARG_LANES=0 FCL_EXP_ODD_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-proto $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
cat bench/results/proto58/lanes1_torch.txt bench/results/proto58/lanes2_torch.txt bench/results/proto58/maxv_torch.txt > $OUT/torch.txt
timeout 60 python3 carry/new/torch_axis.py argmax:$((N / 1024))x1024:1 >> $OUT/torch.txt 2>&1
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/table.md
PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; grep -v 'rc=0' $OUT/files.txt 2>/dev/null; grep -c rc=0 $OUT/files.txt; ls $OUT
