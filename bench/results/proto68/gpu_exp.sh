# Sixty-eighth session, call 1: softmax's pair's work-items a row chosen so
# that each takes at most 8 vectors (the fewest work-items with T * 32 >= m,
# FUSECL_HACK_ON_CEIL=1) against the most with T * 32 <= m (0, as landed),
# over rows of 200 to 1024; float64 rows in blocks of 2 / 4 loads
# (FUSECL_HACK_BLOCKS8) and 8 / 16 vectors a work-item
# (FUSECL_HACK_F64_PER) against none (0,8 as landed). Three rounds
# interleaved, torch.compile in the same call. First the suite, with the
# uniform blocks' loop in one helper (codegen's uniform_blocks, 9c946b1).
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
L=""; for m in 200 300 500 768 1000 1024; do L="$L logsumexp:$((N / m))x$m:1"; done
L="$L softmax:67108x1000:1"
F=""; for m in 1000 2000 4096; do F="$F min:$((N / m))x$m:1:f64"; done
F="$F sum:33554x2000:1:f64"
for r in 1 2 3; do
  for c in 0 1; do
    env FUSECL_CACHE_DIR=/tmp/kc-c$c FUSECL_HACK_ON_CEIL=$c timeout 60 carry/new/bin/fusecl-axis-probe $L | sed "s/^/r$r ceil=$c /"
  done
  for v in 0,8 2,8 4,8 0,16; do
    env FUSECL_CACHE_DIR=/tmp/kc-f$v FUSECL_HACK_BLOCKS8=${v%,*} FUSECL_HACK_F64_PER=${v#*,} timeout 60 carry/new/bin/fusecl-axis-probe $F | sed "s/^/r$r f64=$v /"
  done
done > $OUT/exp.txt 2>&1
timeout 120 python3 bench/torch_axis.py $L $F > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
