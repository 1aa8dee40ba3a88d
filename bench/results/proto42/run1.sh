#!/usr/bin/env bash
# Call 1 (session 42): where softmax and layer norm over rows of 65 to 1001
# that are no whole vectors stand against torch.compile (2^26 floats), with
# today's separate kernels beside (FUSECL_ROW_KERNELS=0) and x * 2 (the copy
# rate); fusecl's kernel sources and SASS counts, and Inductor's kernels.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="1032444x65 871543x77 671088x100 520223x129 340654x197 261123x257 174308x385 131328x511 67041x1001"
C=""
for e in softmax layer_norm; do for s in $S; do C="$C $e:$s:1"; done; done
C="$C scale:520223x129:1 scale:261123x257:1"
for r in 1 2; do
  echo "## default round $r"; FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$OUT/kc timeout 90 $P $C 2>&1
  echo "## FUSECL_ROW_KERNELS=0 round $r"; FUSECL_ROW_KERNELS=0 FUSECL_CACHE_DIR=/tmp/kc-rk0 timeout 90 $P $C 2>&1
  echo "## FUSECL_ROW_ELEMENTS=8 round $r"; FUSECL_ROW_ELEMENTS=8 FUSECL_CACHE_DIR=/tmp/kc-e8 timeout 90 $P $C 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
TORCHINDUCTOR_CACHE_DIR=/tmp/ind timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt
# Inductor's kernels (the Triton sources) and their SASS counts
mkdir -p $OUT/inductor
find /tmp/ind -name "*.py" -size -40k | xargs grep -l "triton_" 2>/dev/null | head -60 | while read f; do cp "$f" $OUT/inductor/; done
find /tmp/ind -name "*.cubin" | head -60 > /tmp/cubins.txt
python3 carry/new/sass_count.py $(cat /tmp/cubins.txt) > $OUT/sass-inductor.txt 2>&1
python3 carry/new/sass_count.py $(ls $OUT/kc/*/*.bin 2>/dev/null | head -80) > $OUT/sass-fusecl.txt 2>&1
ls -R $OUT/kc | head -20
du -sh $OUT
