# Fifty-eighth session, third call: the kept rule (argmin / argmax over rows
# of up to 64 vectors in lanes, at most 4 vectors a lane, 8 past 32; rows of
# 17 to 32 that are no whole vectors in lanes of scalars, at most 8 a lane;
# max / min over such rows below 24 not) against the build as it was (old:
# the prototype's probe with both forms off), interleaved, two rounds; then
# the GPU suite. torch.compile: calls 1 and 2 (lanes1_torch.txt,
# lanes2_torch.txt), same machine kind.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""
for m in 8 16 24 32 40 64 100 128 200 256 260; do C="$C argmax:$((N / m))x$m:1"; done
for m in 8 16 32 64 128; do C="$C argmax:$((N / m))x$m:1:f64"; done
for m in 32 64 256; do C="$C argmax:$((N / m))x$m:1:i8"; done
for m in 17 21 25 31; do for e in argmax sum max; do C="$C $e:$((N / m))x$m:1"; done; done
C="$C argmin:$((N / 24))x24:1 var:$((N / 17))x17:1 sum:$((N / 32))x32:1 sum:$((N / 4096))x4096:1 max:$((N / 24))x24:1"
for r in 1 2; do
  FCL_EXP_ARG_LANES=0 FCL_EXP_ODD_LANES=0 FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-proto $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-new carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/args.txt 2>&1
cat bench/results/proto58/lanes1_torch.txt bench/results/proto58/lanes2_torch.txt > $OUT/torch.txt
python3 bench/results/proto58/table.py $OUT/args.txt $OUT/torch.txt > $OUT/table.md
cat $OUT/device.txt $OUT/table.md
[ -z "${NO_SUITE:-}" ] && PARALLEL=12 FILE_LIMIT=300 timeout 300 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"; grep -v 'rc=0' $OUT/files.txt 2>/dev/null; ls $OUT
