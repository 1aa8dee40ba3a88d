# Seventy-first session, call 1. (1) A whole row's length a constant of a
# reduction's source, its last block of loads only as long as the row needs
# (bench/results/proto70/row_length.patch): r1 as built, r0 with
# FUSECL_HACK_RLEN=0 (the length an argument, main). (2) Arg-reductions
# over rows in blocks by the block's extreme (render_reduce_vectors.cpp's
# arg_block_max, FUSECL_HACK_ARGB=1): a1 with the row length a constant,
# a0 without; r0 is main's arg kernel. Three rounds interleaved,
# torch.compile in the same call. First the suite as built, then the arg
# tests with the blocks on. Expected failures, plan checks only: the suite's
# new arg blocks test wants FUSECL_HACK_ARGB=1; with it on, the older check
# that argmax takes no blocks fails.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
FUSECL_HACK_ARGB=1 FUSECL_CACHE_DIR=/tmp/kc-t timeout 120 carry/new/bin/fusecl_tests "[arg],[blocks]" 2>&1 | tail -4
echo "suite done"
N=67108864
C=""; for m in 200 300 400 500 600 1000 2000; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 600 1000 1500; do C="$C max:$((N / m))x$m:1"; done
C="$C sum:223696x300:1 max:67108x1000:1:i32 min:33554x1000:1:f64"
A="argmax:67108x1000:1 argmax:167772x400:1 argmax:131072x512:1 argmax:258111x260:1 argmax:335544x200:1 argmax:167772x400:1:i32 argmax:20971x400:1:f64 argmin:67108x1000:1"
for r in 1 2 3; do
  for v in 0 1; do
    variant $r r$v "FUSECL_HACK_RLEN=$v" $C $A
    variant $r a$v "FUSECL_HACK_RLEN=$v FUSECL_HACK_ARGB=1" $A
  done
done > $OUT/exp.txt 2>&1
timeout 150 python3 bench/torch_axis.py $C $A > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
