# Sixty-sixth session, after landing (bundle carry/new of the merged main):
# the whole suite, a file a process, 12 at once; then the landed forms and
# torch.compile on the column cases (the others: calls 1 and 10) (softmax's pair over rows,
# float64 / int32 moments over short rows, argmin / argmax down columns).
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
C="logsumexp:262144x256:1 logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1 logsumexp:16384x4096:1 softmax:65536x1024:1"
N=67108864
F=""; for m in 64 32 24 16 8 4; do F="$F var:$((N / m))x$m:1:f64"; done
F="$F mean_var:1048576x64:1:f64 var:1048576x64:1:i32"
G="argmax:4096x16384:0 argmax:1024x65536:0 argmax:16384x4096:0 argmax:65536x1024:0 argmin:8192x8192:0 argmax:4096x16384:0:f64 argmax:4096x16384:0:i32"
for r in 1; do
  FUSECL_CACHE_DIR=/tmp/kc-final timeout 90 carry/new/bin/fusecl-axis-probe $C $F $G | sed "s/^/r$r new /"
done > $OUT/final.txt 2>&1
timeout 100 python3 bench/torch_axis.py $G > $OUT/torch.txt 2>&1
grep -v "#" $OUT/final.txt | sort -k3,4 -k1,1; cat $OUT/torch.txt $OUT/device.txt
