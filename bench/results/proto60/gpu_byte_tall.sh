# Sixtieth session, call 2 (data for a threshold, no code change): int8
# sum / max / argmax down tall arrays' columns (few outputs: few 8-lane
# blocks), the build before the 8-lane rule ("old") against the rule
# ("new"), interleaved, two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
C=""
for e in sum max argmax; do C="$C $e:65536x1024:0:i8 $e:262144x256:0:i8 $e:32768x2048:0:i8"; done
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 carry/new/bin/probe-old $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/tall.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/tall.txt | tee $OUT/table.md
