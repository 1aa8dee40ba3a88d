#!/usr/bin/env bash
# Call 10 (session 48): rows of 3 vectors (12 floats) over two work-items,
# rotated (carry/new) against c5eb2e8, one work-item a row (carry/base):
# softmax and layer norm over rows of 8 to 24, two rounds interleaved,
# torch.compile beside for rows of 12; then the whole suite one file a
# process with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""; T=""
for e in softmax layer_norm; do
  for m in 8 12 16 20 24; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done
  T="$T $e:$(( (1 << 26) / 12 ))x12:1"
done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $T 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-new timeout 100 carry/new/bin/fusecl-axis-probe $C 2>&1 | grep "row kernel" > $OUT/plans.txt
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 220 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt\|plans.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
