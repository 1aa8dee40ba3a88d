# Sixty-seventh session, call 6: a row's work-items in blocks of 4 loads,
# as many for each work-item, the last predicated (ReduceSpec::blocks,
# FUSECL_HACK_BLOCKS=4) against a loop of single loads and softmax's pair's
# blocks then single loads (FUSECL_HACK_BLOCKS=0), over rows of 500 to 4096
# (sum, max, mean_scaled, logsumexp); softmax's pair's shared groups of at
# most 64. Three rounds interleaved, torch.compile in the same call; then
# the suite.
source bench/results/gpu_call.sh
N=67108864
G=""; for e in max sum logsumexp; do for m in 500 768 1000 1024 1500 2000 3000 4096; do G="$G $e:$((N / m))x$m:1"; done; done
G="$G mean_scaled:67108x1000:1 norm:67108x1000:1 min:33554x2000:1:f64 sum:67108x1000:1:i32 logsumexp:262144x256:1 logsumexp:131072x512:1 logsumexp:524288x128:1"
for r in 1 2 3; do
  for v in 4 0; do
    env FUSECL_CACHE_DIR=/tmp/kc-b$v FUSECL_HACK_BLOCKS=$v timeout 80 carry/new/bin/fusecl-axis-probe $G | sed "s/^/r$r blocks=$v /"
  done
done > $OUT/blocks.txt 2>&1
timeout 200 python3 bench/torch_axis.py $G > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/blocks.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/blocks.txt | head
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
