# Sixty-sixth session, one call before landing wip/f64-lanes and
# wip/online-warps (branch land66, bundle carry/new): first the whole suite,
# a file a process, 12 at once; then softmax's pair over rows with warp
# shuffles and several rows a group, each alone and both, against neither
# (FUSECL_HACK_ONLINE_WARP / _ROWS, removed after); the float64 moments in
# lanes and column argmin / argmax as they land, one round; torch.compile
# on the same cases.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
C="logsumexp:262144x256:1 logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1 logsumexp:16384x4096:1 softmax:65536x1024:1"
for r in 1 2; do
  for v in base warp rows both; do
    case $v in base) E="FUSECL_HACK_ONLINE_WARP=0 FUSECL_HACK_ONLINE_ROWS=0";; warp) E="FUSECL_HACK_ONLINE_ROWS=0";;
      rows) E="FUSECL_HACK_ONLINE_WARP=0";; both) E="";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-$v timeout 40 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r $v /"
  done
done > $OUT/rows.txt 2>&1
N=67108864
F=""; for m in 64 32 24 16 8 4; do F="$F var:$((N / m))x$m:1:f64"; done
F="$F mean_var:1048576x64:1:f64 mean_var:4194304x16:1:f64 var:1048576x64:1:i32 var:4194304x16:1:i32"
G="argmax:4096x16384:0 argmax:1024x65536:0 argmax:16384x4096:0 argmax:65536x1024:0 argmin:8192x8192:0 argmax:4096x16384:0:f64 argmax:4096x16384:0:i32"
FUSECL_CACHE_DIR=/tmp/kc-land timeout 60 carry/new/bin/fusecl-axis-probe $F $G | sed "s/^/r1 land /" > $OUT/land.txt 2>&1
timeout 90 python3 bench/torch_axis.py $C > $OUT/torch.txt 2>&1
grep -v "#" $OUT/rows.txt | sort -k3,4 -k2,2; cat $OUT/land.txt $OUT/torch.txt
cat $OUT/device.txt
