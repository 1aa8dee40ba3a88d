# Sixtieth session, call 3: the threshold kept (d5d7437), old against new
# over call 1's and call 2's int8 columns, two rounds; then the column test
# files on this GPU.
source bench/results/gpu_call.sh
C=""
for e in sum max argmax; do C="$C $e:4096x16384:0:i8 $e:32768x2048:0:i8 $e:65536x1024:0:i8 $e:262144x256:0:i8"; done
old_new 2 $C > $OUT/threshold.txt 2>&1
(cd carry/new/bin && FUSECL_POISON_OUTPUTS=1 timeout 110 ./fusecl_tests "[columns]" > $OUT/columns_tests.txt 2>&1; echo "rc=$?" >> $OUT/columns_tests.txt)
cat $OUT/device.txt
tail -3 $OUT/columns_tests.txt
python3 bench/results/proto59/table.py $OUT/threshold.txt | tee $OUT/table.md
