#!/usr/bin/env bash
# Call 7 (session 48): every other row rotated (ReduceSpec::row_rotate;
# carry/new) against the session's start, 3ea22be (carry/base): softmax and
# layer norm over rows of 12 to 64 floats and a few longer, two rounds
# interleaved, torch.compile beside for rows of 20 and 24; the rotated
# kernels kept; then the whole suite one file a process with the new bundle.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""; T=""
for e in softmax layer_norm; do
  for m in 12 16 20 24 28 40 44 52 300 1024; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done
  for m in 20 24; do n=$(( (1 << 26) / m )); T="$T $e:${n}x$m:1"; done
done
for r in 1 2; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $T 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
mkdir -p $OUT/kernels
for c in softmax:20 layer_norm:20; do
  e=${c%%:*}; m=${c##*:}; n=$(( (1 << 26) / m ))
  rm -rf /tmp/kc-k; LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=/tmp/kc-k timeout 60 carry/new/bin/fusecl-axis-probe $e:${n}x$m:1 > /dev/null 2>&1
  cp $(grep -l fusecl_row $(find /tmp/kc-k -name "*.cl") | head -1) $OUT/kernels/$e-$m.cl
done
export LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 220 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt\|kernels") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
