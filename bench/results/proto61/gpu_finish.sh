# Sixty-first session: a reduction's consumer computed where the reduction
# stores (src/reduce_finish.cpp), FUSECL_REDUCE_FINISH=0 (a kernel of its
# own: "old") against the default ("new"), interleaved, two rounds, over
# norms and scaled means of 2^16, 2^20 and 2^26 floats along rows and down
# columns; torch.compile on the same cases; then the GPU suite, a file a
# process. Tables: python3 bench/results/proto59/table.py finish.txt torch.txt
source bench/results/gpu_call.sh
C=""
for e in norm mean_scaled; do
  C="$C $e:256x256:1 $e:256x256:0 $e:1024x1024:1 $e:1024x1024:0 $e:65536x1024:1 $e:8192x8192:0 $e:4096x16384:0"
done
for r in 1 2; do
  FUSECL_REDUCE_FINISH=0 FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/finish.txt 2>&1
timeout 150 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/finish.txt $OUT/torch.txt | tee $OUT/table.md
OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 230 bash bench/gpu_issue13.sh files
cat $OUT/device.txt
