#!/usr/bin/env bash
# Call 3 (session 40): the fix for empty rows (no vector to read in lanes) and
# test_reductions' short rows of 15: the whole suite again, one file a process.
set -u
PARALLEL=12 FILE_LIMIT=300 timeout 330 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v suite.tgz))
tar xzOf $OUT/suite.tgz ./files.txt
