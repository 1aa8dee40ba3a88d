#!/usr/bin/env bash
# Call 2 (session 35): softmax's column pair with its loads in blocks of four
# rows (online_block_step, carry/new) against one row at a time (carry/old,
# call 1's bundle), each also with FUSECL_PAIR_WIDTH=2 and
# FUSECL_COLUMN_SPLIT_FILL=2, interleaved over two rounds; torch.compile on
# the leading-axis shapes call 1 did not have; then the pair and column
# tests on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib FUSECL_CACHE_DIR=/tmp/kc-35
C=""
for s in 64x1024x1024:1 256x1024x256:1 32x2048x1024:1 16x4096x1024:1 8192x8192:0 16384x4096:0 2048x32768:0 1024x65536:0 4096x4096:0; do
  for e in softmax logsumexp; do C="$C $e:$s"; done
done
for r in 1 2; do
  for b in old new; do
    for v in "X=0" "FUSECL_PAIR_WIDTH=2" "FUSECL_COLUMN_SPLIT_FILL=2" "FUSECL_PAIR_WIDTH=2 FUSECL_COLUMN_SPLIT_FILL=2"; do
      echo "## $b $v, round $r"
      env $v timeout 150 $PWD/carry/$b/bin/fusecl-axis-probe $C 2>&1
    done
  done
done | tee $OUT/axis.txt
echo "## torch" | tee -a $OUT/axis.txt
timeout 150 python3 carry/new/torch_axis.py softmax:16384x4096:0 softmax:2048x32768:0 softmax:1024x65536:0 softmax:4096x4096:0 2>&1 | grep -v warn | tee -a $OUT/axis.txt
cd carry/new/bin && FUSECL_POISON_OUTPUTS=1 FUSECL_TOOLS_DIR=$PWD FUSECL_CACHE_DIR=/tmp/kc-tests timeout 200 ./fusecl_tests --reporter compact "[pairs]~[.],[columns]~[.]" 2>&1 | tail -5 | tee $OUT/tests.txt
