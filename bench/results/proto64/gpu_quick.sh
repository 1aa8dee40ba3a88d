# Sixty-fourth session: branch wip/online-warps measured in one short call
# (the device budget left after refused starts): logsumexp over rows with
# the pair's warps and shared rows (both) against neither (base), argmax
# over rows with (value, index) shuffles (warp) and 32 elements a work-item
# (per32) against neither (base), two rounds interleaved; the pair, finish,
# arg and group-rows tests on the GPU; torch.compile on the same cases; the
# GPU suite with the time left. Hack knobs: src/scheduler.cpp on the branch.
source bench/results/gpu_call.sh
C="logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1 logsumexp:262144x256:1"
A="argmax:167772x400:1 argmax:67108x1000:1"
for r in 1 2; do
  for v in base both; do
    case $v in base) E="FUSECL_HACK_ONLINE_WARP=0 FUSECL_HACK_ONLINE_ROWS=0";; both) E="";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-$v timeout 30 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r $v /"
  done
  for v in base warp per32; do
    case $v in base) E="FUSECL_HACK_ARG_WARP=0";; warp) E="";; per32) E="FUSECL_HACK_ARG_PER=32";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-a$v timeout 30 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$r $v /"
  done
done > $OUT/rows.txt 2>&1
grep -v "#" $OUT/rows.txt | sort -k3,4 -k2,2
timeout 90 carry/new/bin/fusecl_tests "[pairs],[finish],[arg],[group_rows]" > $OUT/tests.txt 2>&1; echo "tests rc $?"; tail -3 $OUT/tests.txt
timeout 70 python3 carry/new/torch_axis.py logsumexp:65536x1024:1 argmax:67108x1000:1 argmax:167772x400:1 > $OUT/torch.txt 2>&1; cat $OUT/torch.txt
cat $OUT/device.txt
