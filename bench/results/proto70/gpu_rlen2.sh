# Seventieth session, call 2 (gpu_rlen.sh with fewer cases, for the device time left): a whole row's length a constant of a
# reduction's source (ReduceSpec::row_length), its last block of loads only
# as long as the row needs (codegen::last_block_loads). r1: as built; r0:
# FUSECL_HACK_RLEN=0, the length an argument (main). Three rounds
# interleaved, torch.compile in the same call. First the suite as built.
source bench/results/gpu_call.sh
(OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 150 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
C=""; for m in 200 300 400 600 1000 2000; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 600 1000; do C="$C max:$((N / m))x$m:1"; done
C="$C sum:223696x300:1 min:33554x1000:1:f64"
for r in 1 2 3; do
  for v in 0 1; do
    env FUSECL_CACHE_DIR=/tmp/kc-r$v FUSECL_HACK_RLEN=$v timeout 90 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r r$v /"
  done
done > $OUT/exp.txt 2>&1
timeout 90 python3 bench/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
