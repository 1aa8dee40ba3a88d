#!/usr/bin/env bash
# Call 7 (session 49): the final tests of 9e3203e on the H200 (test_row_length,
# test_row_deep), then longer rows of 2 mod 4 floats (66 to 126, held
# element by element today, at most 10 a work-item) in 8-byte vectors with
# 8 or 16 elements a work-item (carry/exp: narrowed_rows with EXP_NARROW and
# EXP_E switches, not committed) against today's (carry/new); two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
for f in row_length row_deep; do
  FUSECL_CACHE_DIR=/tmp/kc-t timeout 200 carry/new/bin/fusecl_tests -# --reporter compact "[#test_$f]" > $OUT/test-$f.txt 2>&1
  echo "$f rc=$? $(tail -1 $OUT/test-$f.txt)"
done
C=""
L=66,70,74,78,82,86,90,94,98,102,110,118,126
for e in softmax layer_norm; do for m in ${L//,/ }; do n=$(( (1 << 26) / m )); C="$C $e:${n}x$m:1"; done; done
for r in 1 2; do
  echo "## round $r now"; FUSECL_CACHE_DIR=/tmp/kc-n timeout 150 carry/new/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r e8"; EXP_NARROW=$L FUSECL_CACHE_DIR=/tmp/kc-8 timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
  echo "## round $r e16"; EXP_NARROW=$L EXP_E=16 FUSECL_CACHE_DIR=/tmp/kc-16 timeout 150 carry/exp/bin/fusecl-axis-probe $C 2>&1
done > $OUT/axis.txt
for s in "now:" "e8:EXP_NARROW=$L" "e16:EXP_NARROW=$L EXP_E=16"; do
  echo "## ${s%%:*}"; env ${s#*:} FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-p timeout 100 carry/exp/bin/fusecl-axis-probe $C 2>&1 | grep "row kernel"
done > $OUT/plans.txt
python3 bench/results/proto49/table.py $OUT/axis.txt
