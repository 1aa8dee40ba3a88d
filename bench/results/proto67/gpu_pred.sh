# Sixty-seventh session, call 5: softmax's pair with its last block of
# loads predicated (every work-item of a row as many blocks; lanes past the
# row's end load its last vector and take -inf: FUSECL_HACK_ON_PRED=1)
# against blocks then a divergent loop of single loads, with 8 / 16
# vectors a work-item (FUSECL_HACK_ON_PER); max / min / sum's vector loop as
# the compiler unrolls it or with `#pragma unroll 1 / 2` (FUSECL_HACK_UNROLL).
# Three rounds interleaved, torch.compile in the same call.
source bench/results/gpu_call.sh
N=67108864
L=""; for m in 500 768 1000 1024 1500 2000 3000; do L="$L logsumexp:$((N / m))x$m:1"; done
G=""; for e in max sum; do for m in 500 1000 1024 3000; do G="$G $e:$((N / m))x$m:1"; done; done
for r in 1 2 3; do
  for v in 0,8 1,8 1,16; do
    env FUSECL_CACHE_DIR=/tmp/kc-p${v%,*} FUSECL_HACK_ON_PRED=${v%,*} FUSECL_HACK_ON_PER=${v#*,} timeout 60 carry/new/bin/fusecl-axis-probe $L | sed "s/^/r$r pred,per=$v /"
  done
  for u in none 1 2; do
    env FUSECL_CACHE_DIR=/tmp/kc-u$u $( [ $u = none ] || echo FUSECL_HACK_UNROLL=$u ) timeout 60 carry/new/bin/fusecl-axis-probe $G | sed "s/^/r$r unroll=$u /"
  done
done > $OUT/pred.txt 2>&1
timeout 200 python3 bench/torch_axis.py $L $G > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/pred.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/pred.txt | head
