# Sixty-seventh session, call 7: main as it will land (ReduceSpec::blocks on,
# softmax's pair's shared groups of at most 64): the suite, a file a
# process, 12 at once; then the forms beside torch.compile in the same call.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
G=""; for e in max sum logsumexp; do for m in 500 1000 1024 1500 2000 4096; do G="$G $e:$((N / m))x$m:1"; done; done
G="$G logsumexp:1048576x64:1 logsumexp:524288x128:1 logsumexp:262144x256:1 logsumexp:131072x512:1 min:33554x2000:1:f64 sum:67108x1000:1:i32 mean_scaled:67108x1000:1 softmax:67108x1000:1 layer_norm:67108x1000:1"
for r in 1 2; do FUSECL_CACHE_DIR=/tmp/kc-final timeout 90 carry/new/bin/fusecl-axis-probe $G | sed "s/^/r$r landed /"; done > $OUT/final.txt 2>&1
timeout 150 python3 bench/torch_axis.py $G > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/final.txt $OUT/torch.txt; cat $OUT/device.txt
