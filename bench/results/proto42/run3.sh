#!/usr/bin/env bash
# Call 3 (session 42): the kept form (a row kernel in registers with the row
# length a constant tests the row's end only from its first chunk that may
# pass it; rows past the last store nothing) against the code before it
# (carry/proto: call 2's bundle, its switches unset), and with the row
# length a constant also where 4 or 8 work-items hold a row element by
# element (FCL_EXP_CONST=1, a switch of this bundle, gone after; rows of 65
# to 127). Three variants interleaved, two rounds, each its own kernel
# cache; torch.compile on the same cases.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
S="1032444x65 871543x77 691843x97 528416x127 520223x129 340654x197 261123x257 174308x385 67041x1001 671088x100 65536x1024 32768x2048 16384x4096 5461x12288"
C=""
for e in softmax layer_norm; do for s in $S; do C="$C $e:$s:1"; done; done
C="$C scale:261123x257:1"
for r in 1 2; do
  echo "## before round $r"; FUSECL_CACHE_DIR=/tmp/kc-0 timeout 120 carry/proto/bin/fusecl-axis-probe $C 2>&1
  echo "## kept round $r"; FUSECL_CACHE_DIR=/tmp/kc-1 timeout 120 carry/new/bin/fusecl-axis-probe $C 2>&1
  echo "## kept+CONST round $r"; FCL_EXP_CONST=1 FUSECL_CACHE_DIR=/tmp/kc-2 timeout 120 carry/new/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 240 python3 carry/new/torch_axis.py $(echo $C | tr ' ' '\n' | grep -v "scale") 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
python3 carry/new/sass_count.py /tmp/kc-0/*/*.bin > $OUT/sass-before.txt 2>&1
python3 carry/new/sass_count.py /tmp/kc-1/*/*.bin > $OUT/sass-kept.txt 2>&1
