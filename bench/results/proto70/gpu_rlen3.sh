# Seventieth session, call 2 (gpu_rlen.sh cut to the device time left): the
# test files nearest the change, then r1 (a whole row's length a constant
# of the source, its last block only the loads the row needs) against r0
# (FUSECL_HACK_RLEN=0, main) over fewer cases, two rounds interleaved,
# torch.compile in the same call.
source bench/results/gpu_call.sh
(FILES='reduce_blocks reduction_pairs reduce_finish row_length' OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=100 timeout 70 bash bench/gpu_issue13.sh files | grep -v "rc=0")
echo "suite done"
N=67108864
C=""; for m in 200 300 400 600 1000; do C="$C logsumexp:$((N / m))x$m:1"; done
for m in 300 600 1000; do C="$C max:$((N / m))x$m:1"; done
for r in 1 2; do
  for v in 0 1; do
    env FUSECL_CACHE_DIR=/tmp/kc-r$v FUSECL_HACK_RLEN=$v timeout 40 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r r$v /"
  done
done > $OUT/exp.txt 2>&1
timeout 50 python3 bench/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/exp.txt $OUT/torch.txt; cat $OUT/device.txt; grep -i "error\|fail" $OUT/exp.txt | head
