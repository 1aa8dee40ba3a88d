#!/usr/bin/env bash
# Call 9 (session 46): softmax over rows of 1100 and 1300 took 150-154 and
# 141-146 us in run7.sh: beside torch.compile, with rows of 1024, 1500 and 2200
# for reference, softmax and layer norm, two rounds; the bundle of df0fd1e.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/base/lib
C=""
for m in 1024 1100 1200 1300 1400 1500 2200; do n=$(( (1 << 26) / m )); for e in softmax layer_norm; do C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do echo "## round $r default"; FUSECL_CACHE_DIR=/tmp/kc46-9 timeout 90 carry/base/bin/fusecl-axis-probe $C 2>&1; done > $OUT/axis.txt
echo "## plans" >> $OUT/axis.txt
FUSECL_PLAN_CACHE=0 FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc46-9 timeout 90 carry/base/bin/fusecl-axis-probe $C 2>&1 | grep 'rows of' | sed 's/.*row kernel: //' | sort -u >> $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt | grep -v '^#'
