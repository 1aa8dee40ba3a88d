#!/usr/bin/env bash
# Call 1 (session 49): softmax and layer norm over rows of 10, 12, 14 (and 20
# for reference) floats, 2^26 of them, where fusecl is 7-44 us behind
# torch.compile: fusecl's kernels as generated (default, FUSECL_ROW_ELEMENTS=4
# and 8) with their sources and SASS counts, beside Inductor's Triton kernels
# and theirs, to see what the 4-lane layout (torch.compile's) costs each.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
C=""
for e in softmax layer_norm; do for m in 10 12 14 20; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do for s in 16 8 4; do
  echo "## FUSECL_ROW_ELEMENTS=$s round $r"
  FUSECL_ROW_ELEMENTS=$s FUSECL_CACHE_SAVE_SOURCE=1 FUSECL_CACHE_DIR=$OUT/kc-$s timeout 90 $P $C 2>&1
done; done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
TORCHINDUCTOR_CACHE_DIR=/tmp/ind timeout 200 python3 carry/new/torch_axis.py $C 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
cat $OUT/axis.txt | grep -v "^#"
mkdir -p $OUT/inductor
find /tmp/ind -name "*.py" -size -40k | xargs grep -l "triton_" 2>/dev/null | head -60 | while read f; do cp "$f" $OUT/inductor/; done
find /tmp/ind -name "*.cubin" | head -60 > /tmp/cubins.txt
for f in $(cat /tmp/cubins.txt); do cp $f $OUT/inductor/; done
find /tmp/ind -name "*.ptx" | head -60 | while read f; do cp "$f" $OUT/inductor/; done
python3 carry/new/sass_count.py --sass $OUT/sass-ind $(cat /tmp/cubins.txt) > $OUT/sass-inductor.txt 2>&1
for s in 16 8 4; do
  python3 carry/new/sass_count.py --sass $OUT/sass-$s $(ls $OUT/kc-$s/*/*.bin 2>/dev/null | head -80) > $OUT/sass-fusecl-$s.txt 2>&1
done
which ncu nsys nvdisasm cuobjdump 2>&1 | head
du -sh $OUT
