#!/usr/bin/env bash
# Call 1 (session 38, 2026-12-02 16:24 UTC): the whole suite on the H200, one
# test file a process, 12 at once, with the bundle of fd855b6 (the warp
# shuffles' fix 353f658 included). Every file passed; 130 s in all.
PARALLEL=12 FILE_LIMIT=420 timeout 560 bash bench/gpu_issue13.sh files
