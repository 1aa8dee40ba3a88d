#!/usr/bin/env bash
# Call 6 (session 42): the bundle of a999a5d (the kept code, no switches): the
# whole suite one file a process; then softmax and layer norm over rows of
# 41, 97, 129, 257 and 1024 once more.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz) )
tar xzOf $OUT/suite.tgz ./files.txt 2>/dev/null | tail -60
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
C=""
for e in softmax layer_norm; do for s in 1636801x41 691843x97 520223x129 261123x257 65536x1024; do C="$C $e:$s:1"; done; done
timeout 60 carry/new/bin/fusecl-axis-probe $C 2>&1 | tee $OUT/axis.txt
