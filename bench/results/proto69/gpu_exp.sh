# Sixty-ninth session, call 1: a shared row's blocks filled. Where a row's
# vectors leave its last block of 4 partly idle, halve the row's work-items
# (FUSECL_HACK_FILL=1), take blocks of 2 (2), or whichever of the four
# forms fills the blocks best (3), against blocks of 4 as landed (0), over
# rows of 100 to 800. Three rounds interleaved, torch.compile in the same
# call. First the suite with FUSECL_HACK_FILL=3 (the new forms' values on
# the GPU; test_reduce_blocks' plan checks expect 0's forms).
source bench/results/gpu_call.sh
(export FUSECL_HACK_FILL=3; OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
C=""; for m in 100 200 256 300 400 600 800; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 384 600 700; do C="$C max:$((N / m))x$m:1"; done
C="$C sum:223696x300:1"
for r in 1 2 3; do
  for f in 0 1 2 3; do
    env FUSECL_CACHE_DIR=/tmp/kc-f$f FUSECL_HACK_FILL=$f timeout 60 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r fill=$f /"
  done
done > $OUT/exp.txt 2>&1
timeout 120 python3 bench/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
