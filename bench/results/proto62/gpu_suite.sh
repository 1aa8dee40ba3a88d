# Sixty-second session: the GPU suite, a file a process (bench/gpu_issue13.sh).
source bench/results/gpu_call.sh
OUT=$OUT/suite PARALLEL=12 FILE_LIMIT=200 timeout 400 bash bench/gpu_issue13.sh files
cat $OUT/device.txt
