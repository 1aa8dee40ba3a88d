# Sixty-seventh session, call 3: softmax's pair's work-items a row (each
# holding 8 or 4 vectors: FUSECL_HACK_ON_PER) and shared groups of at most
# 32 / 64 / 256 work-items (FUSECL_HACK_ON_L), over rows of 64 to 2000;
# argmax's lanes (at most 8 / 16 vectors: FUSECL_HACK_ARG_MOST; groups:
# FUSECL_HACK_ARG_L; rows a work-item: FUSECL_HACK_ARG_K); softmax, layer
# norm, sum and max over rows of 1000 beside them. Three rounds
# interleaved, torch.compile in the same call.
source bench/results/gpu_call.sh
N=67108864
L=""; for m in 64 128 256 512 1000 1024 2000; do L="$L logsumexp:$((N / m))x$m:1"; done
A=""; for m in 260 400 512 1000; do A="$A argmax:$((N / m))x$m:1"; done
B="softmax:67108x1000:1 layer_norm:67108x1000:1 sum:67108x1000:1 max:67108x1000:1 softmax:65536x1024:1"
for r in 1 2 3; do
  for v in 8,256 8,32 8,64 4,32 4,64; do
    env FUSECL_CACHE_DIR=/tmp/kc FUSECL_HACK_ON_PER=${v%,*} FUSECL_HACK_ON_L=${v#*,} timeout 60 carry/new/bin/fusecl-axis-probe $L | sed "s/^/r$r on=$v /"
  done
  for v in 8,256,1 16,256,1 16,128,1 8,128,1 8,256,2; do
    IFS=, read a l k <<< "$v"
    env FUSECL_CACHE_DIR=/tmp/kc FUSECL_HACK_ARG_MOST=$a FUSECL_HACK_ARG_L=$l FUSECL_HACK_ARG_K=$k timeout 60 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$r arg=$v /"
  done
  FUSECL_CACHE_DIR=/tmp/kc timeout 60 carry/new/bin/fusecl-axis-probe $B | sed "s/^/r$r base /"
done > $OUT/online.txt 2>&1
timeout 250 python3 bench/torch_axis.py $L $A $B > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/online.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/online.txt | head
