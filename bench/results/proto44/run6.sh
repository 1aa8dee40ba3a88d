#!/usr/bin/env bash
# Call 6 (session 44): run5.sh (the bundle holding the vectors whole-vector rows
# need against the one before), then the whole suite one file a process with
# the new bundle.
set -u
bash bench/results/proto44/run5.sh
export FUSECL_DEVICE=nvidia LD_LIBRARY_PATH=$PWD/carry/new/lib
PARALLEL=12 FILE_LIMIT=300 timeout 320 bash bench/gpu_issue13.sh files > /dev/null 2>&1
(cd $OUT && tar xzf issue13.tgz && rm issue13.tgz && tar czf suite.tgz --remove-files $(ls | grep -v "suite.tgz\|axis.txt\|plans.txt\|run4.txt") )
tar xzOf $OUT/suite.tgz files.txt | grep -v "rc=0"; tar xzOf $OUT/suite.tgz files.txt | wc -l
