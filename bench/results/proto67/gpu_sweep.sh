# Sixty-seventh session, call 1: argmax over rows of 400 / 1000 (lane
# layouts: vectors a lane, rows a work-item, group size) and logsumexp over
# rows of 256 / 512 (softmax's pair: work-items a row, rows a group), each
# variant through temporary FUSECL_HACK_* knobs of the wip67 branch, two
# rounds interleaved, torch.compile in the same call.
source bench/results/gpu_call.sh
A="argmax:167772x400:1 argmax:67108x1000:1 argmax:131072x512:1"
L="logsumexp:262144x256:1 logsumexp:131072x512:1"
for r in 1 2; do
  for v in base FUSECL_HACK_ARG_MOST=16 FUSECL_HACK_ARG_MOST=4 FUSECL_HACK_ARG_K=2 FUSECL_HACK_ARG_L=128 "FUSECL_HACK_ARG_MOST=16 FUSECL_HACK_ARG_L=128" "FUSECL_HACK_ARG_MOST=16 FUSECL_HACK_ARG_K=2"; do
    env FUSECL_CACHE_DIR=/tmp/kc $( [ "$v" = base ] || echo $v ) timeout 60 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$r ${v// /+} /"
  done
  for v in base FUSECL_HACK_ON_PER=4 "FUSECL_HACK_ON_PER=4 FUSECL_HACK_ON_SHARE32=1" FUSECL_HACK_ON_L=64 FUSECL_HACK_ON_L=128 FUSECL_HACK_ON_PER=16 "FUSECL_HACK_ON_PER=16 FUSECL_HACK_ON_L=64"; do
    env FUSECL_CACHE_DIR=/tmp/kc $( [ "$v" = base ] || echo $v ) timeout 60 carry/new/bin/fusecl-axis-probe $L | sed "s/^/r$r ${v// /+} /"
  done
done > $OUT/sweep.txt 2>&1
timeout 150 python3 bench/torch_axis.py $A $L > $OUT/torch.txt 2>&1
grep -v "#" $OUT/sweep.txt | sort -k3,3 -k2,2 -k1,1; cat $OUT/torch.txt $OUT/device.txt
