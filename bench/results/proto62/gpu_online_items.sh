# Sixty-second session: softmax's pair over rows (a group a row,
# render_reduce_online.cpp's online_groups) with its group sized for 2, 4, 8
# (today) or 16 vectors a work-item, through a probe built with that number
# read from FUSECL_HACK_ONLINE_ITEM (scheduler.cpp's per_item; the build is
# not committed), logsumexp at 2^26 floats, interleaved, three rounds.
source bench/results/gpu_call.sh
C="logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1 logsumexp:16384x4096:1"
for r in 1 2 3; do
  for i in 8 4 2 16; do
    FUSECL_HACK_ONLINE_ITEM=$i FUSECL_CACHE_DIR=/tmp/kc-$i timeout 60 carry/new/bin/probe-alt $C | sed "s/^/r$r item$i /"
  done
done > $OUT/items.txt 2>&1
grep -v "#" $OUT/items.txt | sort -k3,3 -k4,4 -k2,2 | awk '{print $2, $3, $4, $7}'
timeout 60 python3 carry/new/torch_axis.py $C
cat $OUT/device.txt
