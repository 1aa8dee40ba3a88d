# Sixty-seventh session, call 4: the group form's vector loop (a row's
# work-items each over its vectors, render_reduce_vectors.cpp) as is or with
# `#pragma unroll 4 / 8` (FUSECL_HACK_UNROLL; each in its own kernel cache),
# over rows of 1000 to 4096; softmax's pair over rows of 1000 with 16 / 32 /
# 8 work-items a row (FUSECL_HACK_ON_PER 8 / 7 / 16). Three rounds
# interleaved, torch.compile in the same call.
source bench/results/gpu_call.sh
G=""; for e in max sum min; do for s in 67108x1000 65536x1024 32768x2048 16384x4096; do G="$G $e:$s:1"; done; done
G="$G argmax:16384x4096:1 argmax:33554x2000:1"
for r in 1 2 3; do
  for u in none 4 8; do
    env FUSECL_CACHE_DIR=/tmp/kc-u$u $( [ $u = none ] || echo FUSECL_HACK_UNROLL=$u ) timeout 60 carry/new/bin/fusecl-axis-probe $G | sed "s/^/r$r unroll=$u /"
  done
  for p in 8 7 16; do
    env FUSECL_CACHE_DIR=/tmp/kc FUSECL_HACK_ON_PER=$p timeout 60 carry/new/bin/fusecl-axis-probe logsumexp:67108x1000:1 logsumexp:33554x2000:1 | sed "s/^/r$r on_per=$p /"
  done
done > $OUT/unroll.txt 2>&1
timeout 200 python3 bench/torch_axis.py $G > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/unroll.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/unroll.txt | head
