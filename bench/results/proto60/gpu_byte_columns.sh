# Sixtieth session, call 1: a GPU's column blocks of 1-byte loads in 8
# lanes (scheduler.cpp's column_vectors): "old" the build before the rule
# (carry/new/bin/probe-old), "new" the rule, interleaved in each of two
# rounds; float32 and int32 columns as controls; torch.compile for some
# (time-limited: one call holds both, the device budget being short); then
# the GPU suite over the kept code (into $OUT/suite/issue13.tgz).
source bench/results/gpu_call.sh
C=""
for e in sum max min argmax argmin; do C="$C $e:4096x16384:0:i8"; done
C="$C sum:4096x16384:0:u8 max:4096x16384:0:u8 sum:16384x4096:0:i8 argmax:16384x4096:0:i8 sum:65536x1024:0:i8"
C="$C sum:4096x16384:0 sum:4096x16384:0:i32"
old_new 2 $C > $OUT/bytes.txt 2>&1
T="sum:4096x16384:0:i8 max:4096x16384:0:i8 argmax:4096x16384:0:i8"
timeout 80 python3 carry/new/torch_axis.py $T > $OUT/torch.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/bytes.txt $OUT/torch.txt | tee $OUT/table.md
OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=220 timeout 250 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
