# Seventieth session, call 1. (a) A row's last block of loads only as long
# as the row's vectors need: FUSECL_HACK_TIGHT=0 renders the last block
# with all B loads (as landed), 1 with the fewest of 1..B loads that cover
# the rest, 2 with B/2 or B; logsumexp, max, sum and a float64 min over
# rows whose last block is partly idle. (b) Arg-reductions in blocks of
# loads (FUSECL_HACK_ARGB=1), with the last block as landed or tight.
# Three rounds interleaved, torch.compile in the same call. First the
# suite with FUSECL_HACK_ARGB=1 (arg-reductions' blocks on the GPU; the
# plan check in test_reduce_blocks that asks for none fails).
source bench/results/gpu_call.sh
(export FUSECL_HACK_ARGB=1; OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
C=""; for m in 200 300 400 500 600 1000; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 600 768; do C="$C max:$((N / m))x$m:1"; done
C="$C sum:223696x300:1 min:33554x1000:1:f64"
A=""; for m in 200 260 400 512 1000; do A="$A argmax:$((N / m))x$m:1"; done
A="$A argmin:67108x1000:1 argmax:167772x400:1:i32 argmax:20971x400:1:f64"
probe() { env FUSECL_CACHE_DIR=/tmp/kc-$2 FUSECL_HACK_TIGHT=$3 FUSECL_HACK_ARGB=$4 timeout 60 carry/new/bin/fusecl-axis-probe $1 | sed "s/^/r$r $2 /"; }
for r in 1 2 3; do
  for t in 0 1 2; do probe "$C" t$t $t 0; done
  probe "$A" t0 0 0; probe "$A" a0 0 1; probe "$A" a1 1 1
done > $OUT/exp.txt 2>&1
timeout 150 python3 bench/torch_axis.py $C $A > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
