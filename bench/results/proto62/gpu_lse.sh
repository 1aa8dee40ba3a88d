# Sixty-second session: a logsumexp's log(sum) + max computed where softmax's
# pair stores, 1 / sqrt(var + 1e-5) and std / mean where the moment kernel
# stores (src/reduce_finish.cpp's schedule_pair_finish and the moment paths),
# FUSECL_REDUCE_FINISH=0 (a kernel of its own: "old") against the default
# ("new"), interleaved, two rounds, over 2^16, 2^20 and 2^26 floats along
# rows and down columns; torch.compile on the same cases. The GPU suite in a
# call of its own (bench/results/proto62/gpu_suite.sh). Tables: python3 bench/results/proto59/table.py lse.txt torch.txt
source bench/results/gpu_call.sh
C=""
for e in logsumexp rstd cv; do
  C="$C $e:256x256:1 $e:256x256:0 $e:1024x1024:1 $e:1024x1024:0 $e:65536x1024:1 $e:16384x4096:1 $e:8192x8192:0 $e:4096x16384:0"
done
for r in 1 2; do
  FUSECL_REDUCE_FINISH=0 FUSECL_CACHE_DIR=/tmp/kc-o timeout 100 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-n timeout 100 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/lse.txt 2>&1
timeout 150 python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
python3 bench/results/proto59/table.py $OUT/lse.txt $OUT/torch.txt | tee $OUT/table.md
cat $OUT/device.txt
