# Seventieth session, call 2: a whole row's length a constant of a
# reduction's source (ReduceSpec::row_length), its last block of loads only
# as long as the row needs (codegen::last_block_loads). r1: as built; r0:
# FUSECL_HACK_RLEN=0, the length an argument (main). Three rounds
# interleaved, torch.compile in the same call. First the suite as built.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 240 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
C=""; for m in 200 256 300 400 500 600 1000 1500 2000; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 500 600 768 1000 1500; do C="$C max:$((N / m))x$m:1"; done
C="$C sum:223696x300:1 sum:67108x1000:1 max:67108x1000:1:i32 min:33554x1000:1:f64 sum:16777x2000:1:f64"
for r in 1 2 3; do
  for v in 0 1; do
    env FUSECL_CACHE_DIR=/tmp/kc-r$v FUSECL_HACK_RLEN=$v timeout 90 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r r$v /"
  done
done > $OUT/exp.txt 2>&1
timeout 150 python3 bench/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
