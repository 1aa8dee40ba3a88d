#!/usr/bin/env bash
# Call 2 (session 41): ties between lane counts. FCL_EXP_PAD=1 takes the
# larger T where two give the same slots, 4 the smaller (more vectors a lane,
# fewer shuffles: var's float64 sums meet in two shuffles a value a level);
# 0 such rows keep their earlier layouts. Then rows of 2 and 6 (vectors of 2,
# whole: in lanes since this session's width rule) against
# FUSECL_LANE_ROWS=0. Two interleaved rounds; torch.compile on rows of 56;
# test_lane_rows on the GPU under FCL_EXP_PAD=4.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
P=$PWD/carry/new/bin/fusecl-axis-probe
S="4793490x14 2396745x28 1290555x52 1198372x56 1118481x60 671088x100"
C=""; for e in sum max var; do for s in $S; do C="$C $e:$s:1"; done; done
W=""; for e in sum max var; do for s in 33554432x2 11184810x6; do W="$W $e:$s:1"; done; done
for r in 1 2; do
  for mode in 1 4 0; do
    echo "## FCL_EXP_PAD=$mode round $r"; FCL_EXP_PAD=$mode FUSECL_CACHE_DIR=/tmp/kc-$mode timeout 60 $P $C 2>&1
  done
  echo "## lanes, rows of 2 and 6, round $r"; FUSECL_CACHE_DIR=/tmp/kc-1 timeout 60 $P $W 2>&1
  echo "## FUSECL_LANE_ROWS=0, rows of 2 and 6, round $r"; FUSECL_LANE_ROWS=0 FUSECL_CACHE_DIR=/tmp/kc-off timeout 60 $P $W 2>&1
done > $OUT/axis.txt
echo "## torch" >> $OUT/axis.txt
timeout 60 python3 carry/new/torch_axis.py sum:1198372x56:1 max:1198372x56:1 var:1198372x56:1 2>&1 | grep -v -i warn | grep axis >> $OUT/axis.txt
(cd carry/new/bin && FCL_EXP_PAD=4 FUSECL_POISON_OUTPUTS=1 FUSECL_CACHE_DIR=/tmp/kc-t timeout 200 ./fusecl_tests --reporter compact "[lane_rows]" 2>&1 | tail -3) > $OUT/lane_rows_pad4.txt
cat $OUT/lane_rows_pad4.txt
cat $OUT/axis.txt
