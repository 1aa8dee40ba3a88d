# Sixtieth session, call 2 (data for a threshold, no code change): int8
# sum / max / argmax down tall arrays' columns (few outputs: few 8-lane
# blocks), the build before the 8-lane rule ("old") against the rule
# ("new"), interleaved, two rounds.
source bench/results/gpu_call.sh
C=""
for e in sum max argmax; do C="$C $e:65536x1024:0:i8 $e:262144x256:0:i8 $e:32768x2048:0:i8"; done
old_new 2 $C > $OUT/tall.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/tall.txt | tee $OUT/table.md
