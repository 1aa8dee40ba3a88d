# Sixty-seventh session, call 2: the lane rule for argmax (fewer lanes where
# they leave fewer idle slots, up to 16 vectors a lane, groups of 128 past 8;
# FUSECL_HACK_ARG_RULE=0: before) and softmax's pair's shared groups of at
# most 32 / 64 / 256 work-items (FUSECL_HACK_ON_L), three rounds
# interleaved, torch.compile in the same call.
source bench/results/gpu_call.sh
N=67108864
A=""; for m in 132 200 260 400 512 1000; do A="$A argmax:$((N / m))x$m:1"; done
A="$A argmax:$((N / 8 / 200))x200:1:f64 argmax:$((N / 8 / 400))x400:1:f64 argmax:$((N / 400))x400:1:i32 argmax:$((N / 1000))x1000:1:i8"
L=""; for m in 64 128 256 512 1000; do L="$L logsumexp:$((N / m))x$m:1"; done
for r in 1 2 3; do
  for v in FUSECL_HACK_ARG_RULE=1 FUSECL_HACK_ARG_RULE=0; do
    env FUSECL_CACHE_DIR=/tmp/kc $v timeout 60 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$r $v /"
  done
  for v in 32 64 256; do
    env FUSECL_CACHE_DIR=/tmp/kc FUSECL_HACK_ON_L=$v timeout 60 carry/new/bin/fusecl-axis-probe $L | sed "s/^/r$r ON_L=$v /"
  done
done > $OUT/rule.txt 2>&1
timeout 200 python3 bench/torch_axis.py $A $L > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/rule.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/rule.txt | head
