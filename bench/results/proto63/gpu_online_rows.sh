# Sixty-third session: softmax's pair over rows (render_reduce_online.cpp's
# online_groups) with its row's pairs meeting through warp shuffles
# (on unless FUSECL_HACK_ONLINE_WARP=0), several rows a group (unless FUSECL_HACK_ONLINE_ROWS=0,
# scheduler.cpp's share_groups with 8 vectors a work-item), both, and both
# with 16 vectors a work-item (FUSECL_HACK_ONLINE_ITEM=16); the hack knobs are
# in the build, not committed. logsumexp at 2^26 floats, interleaved, three
# rounds; torch.compile after.
source bench/results/gpu_call.sh
C="logsumexp:262144x256:1 logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1"
for r in 1 2; do
  for v in base warp both; do
    case $v in
      base) E="FUSECL_HACK_ONLINE_WARP=0 FUSECL_HACK_ONLINE_ROWS=0";; warp) E="FUSECL_HACK_ONLINE_ROWS=0";;
      rows) E="FUSECL_HACK_ONLINE_WARP=0";; both) E="";; both16) E="FUSECL_HACK_ONLINE_ITEM=16";;
    esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-$v timeout 40 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r $v /"
  done
done > $OUT/rows.txt 2>&1
grep -v "#" $OUT/rows.txt | sort -k4,5 -k2,2
timeout 60 python3 carry/new/torch_axis.py logsumexp:65536x1024:1 logsumexp:131072x512:1 > $OUT/torch.txt 2>&1; cat $OUT/torch.txt
cat $OUT/device.txt
# Arg-reductions over rows: their (value, index) pairs meeting through warp
# shuffles (on unless FUSECL_HACK_ARG_WARP=0; reduce_emitter.hpp's
# warp_tree), rows sharing a group from rows of 1024 (FUSECL_HACK_ARG_PER=32
# elements a work-item; 16 today, from rows of 512).
A="argmax:167772x400:1 argmax:67108x1000:1 argmax:65536x1024:1"
for r in 1 2; do
  for v in base warp per32; do
    case $v in
      base) E="FUSECL_HACK_ARG_WARP=0";; warp) E="";; per32) E="FUSECL_HACK_ARG_PER=32";;
      base32) E="FUSECL_HACK_ARG_WARP=0 FUSECL_HACK_ARG_PER=32";;
    esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-a$v timeout 40 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$r $v /"
  done
done > $OUT/arg.txt 2>&1
grep -v "#" $OUT/arg.txt | sort -k4,5 -k2,2
timeout 60 python3 carry/new/torch_axis.py argmax:67108x1000:1 argmax:167772x400:1 > $OUT/torch_arg.txt 2>&1; cat $OUT/torch_arg.txt
# The pair and finish tests on this device (its own tuning: warps, shared rows).
timeout 60 carry/new/bin/fusecl_tests "[pairs],[finish],[arg],[group_rows]" > $OUT/tests.txt 2>&1; echo "tests rc $?"; tail -4 $OUT/tests.txt
