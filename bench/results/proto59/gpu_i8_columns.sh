# Fifty-ninth session, call 9 (a survey for the next session, no code
# change): int8 sum / max / argmax down 4096 x 16384's columns, and float32
# sum down the same shape, under the existing settings FUSECL_VECTOR_BYTES
# (4 to 64) and FUSECL_COLUMN_ONE_WAVE=0; two rounds; torch.compile.
source bench/results/gpu_call.sh
C="sum:4096x16384:0:i8 max:4096x16384:0:i8 argmax:4096x16384:0:i8 sum:16384x4096:0:i8 sum:4096x16384:0 sum:4096x16384:0:i32"
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-d $P $C | sed "s/^/r$r default /"
  for vb in 4 8 32 64; do FUSECL_VECTOR_BYTES=$vb FUSECL_CACHE_DIR=/tmp/kc-v$vb $P $C | sed "s/^/r$r vb$vb /"; done
  FUSECL_COLUMN_ONE_WAVE=0 FUSECL_CACHE_DIR=/tmp/kc-w $P $C | sed "s/^/r$r onewave0 /"
done > $OUT/i8.txt 2>&1
FUSECL_LOG=schedule FUSECL_CACHE_DIR=/tmp/kc-d $P sum:4096x16384:0:i8 > $OUT/schedule.txt 2>&1
python3 carry/new/torch_axis.py $C > $OUT/torch.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/i8.txt $OUT/torch.txt | tee $OUT/table.md
