#!/usr/bin/env bash
# Call 8 (session 47): softmax's short sums added plainly (render_row.cpp's
# plain_sum; carry/new) against d9b44f8 (carry/base): softmax and layer norm
# over rows of 20 to 16384, two rounds interleaved, torch.compile beside for
# softmax over rows of 100 to 1100; then the whole suite one file a process
# with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""; T=""
for e in softmax layer_norm; do
  for m in 20 52 100 200 300 500 600 800 900 1100 2200 5000 16384; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done
done
for m in 100 200 300 500 600 800 900 1100; do n=$(( (1 << 26) / m )); T="$T softmax:${n}x$m:1"; done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $T 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 220 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
