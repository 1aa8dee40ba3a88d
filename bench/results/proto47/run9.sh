#!/usr/bin/env bash
# Call 9 (session 47): the suite's softmax (rows of 1024, 2^16 to 2^26 floats),
# whose kernel holds 4 vectors a work-item in rows of 64 and so adds plainly
# since 0d864d8 (carry/new), against d9b44f8 (carry/base); rows of 1024 of
# layer norm beside (unchanged text). Three rounds interleaved; torch.compile
# beside at 2^26 and 2^22.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0
C=""
for e in softmax layer_norm; do for r in 64 256 1024 4096 16384 65536; do C="$C $e:${r}x1024:1"; done; done
for r in 1 2 3; do for b in base new; do
  echo "## round $r $b"
  LD_LIBRARY_PATH=$PWD/carry/$b/lib FUSECL_CACHE_DIR=/tmp/kc-$b timeout 100 carry/$b/bin/fusecl-axis-probe $C 2>&1
done; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py softmax:65536x1024:1 softmax:4096x1024:1 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt | grep -v "^#"
