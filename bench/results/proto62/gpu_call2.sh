# Sixty-second session, second call: the online group sizes
# (gpu_online_items.sh), then the GPU suite again (the bundle of e9d343e:
# fuse's scalars in a finish, the 3-D pair test).
bash bench/results/proto62/gpu_online_items.sh
source bench/results/gpu_call.sh
OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 300 bash bench/gpu_issue13.sh files
grep -v "rc=0" $OUT/suite/files.txt 2>/dev/null | head; grep -c "rc=0" $OUT/suite/files.txt 2>/dev/null
