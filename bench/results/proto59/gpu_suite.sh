# Fifty-ninth session, call 6: the GPU suite over the kept code (after the
# kernel-count fix in test_moments_f64 and moment_split_end).
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 400 bash bench/gpu_issue13.sh files > /dev/null 2>&1
echo "suite: $?"
