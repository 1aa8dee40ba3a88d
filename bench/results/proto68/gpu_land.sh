# Sixty-eighth session, call 2: main as it lands (55ca9ad: float64 rows in
# blocks of 2 where their vectors divide unevenly; the uniform blocks' loop
# in one helper): the suite, a file a process, 12 at once; then float64 and
# float32 rows beside torch.compile, two rounds.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
G=""; for m in 500 1000 2000 3000 4096; do G="$G min:$((N / m))x$m:1:f64"; done
G="$G sum:67108x1000:1:f64 sum:33554x2000:1:f64 max:67108x1000:1 logsumexp:67108x1000:1"
for r in 1 2; do FUSECL_CACHE_DIR=/tmp/kc-land timeout 40 carry/new/bin/fusecl-axis-probe $G | sed "s/^/r$r landed /"; done > $OUT/land.txt 2>&1
timeout 45 python3 bench/torch_axis.py $G > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/land.txt $OUT/torch.txt; cat $OUT/device.txt
