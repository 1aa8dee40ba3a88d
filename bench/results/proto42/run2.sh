#!/usr/bin/env bash
# Call 2 (session 42): row kernels element by element in registers (rows of
# 129 to 2047 that are no whole vectors), prototype switches (gone after;
# prototype.diff): FCL_EXP_LAST=1 tests the row's end on the last chunk only
# (rows past the last store nothing), FCL_EXP_PAIRWISE=1 sums a work-item's
# elements pairwise in registers instead of Kahan's running sum. Three
# variants interleaved, two rounds, each its own kernel cache; torch.compile.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="520223x129 340654x197 261123x257 174308x385 131328x511 67041x1001 32784x2047"
C=""
for e in softmax layer_norm; do for s in $S; do C="$C $e:$s:1"; done; done
C="$C logsumexp:261123x257:1 scale:261123x257:1"
for r in 1 2; do
  echo "## base round $r"; FUSECL_CACHE_DIR=/tmp/kc-0 timeout 90 $P $C 2>&1
  echo "## LAST round $r"; FCL_EXP_LAST=1 FUSECL_CACHE_DIR=/tmp/kc-1 timeout 90 $P $C 2>&1
  echo "## LAST+PAIRWISE round $r"; FCL_EXP_LAST=1 FCL_EXP_PAIRWISE=1 FUSECL_CACHE_DIR=/tmp/kc-2 FUSECL_CACHE_SAVE_SOURCE=1 timeout 90 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 200 python3 carry/new/torch_axis.py $(echo $C | tr ' ' '\n' | grep -v "scale\|logsumexp\|x511\|x1001") 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
python3 carry/new/sass_count.py /tmp/kc-0/*/*.bin > $OUT/sass-0.txt 2>&1
python3 carry/new/sass_count.py /tmp/kc-2/*/*.bin > $OUT/sass-2.txt 2>&1
tar czf $OUT/kc2.tgz -C /tmp kc-2
