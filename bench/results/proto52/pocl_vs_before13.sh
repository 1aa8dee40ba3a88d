#!/usr/bin/env bash
# Session 52: issue 13's "no workload slower on PoCL than when it was
# opened" checked again (last in the twenty-ninth session, many CPU forms
# ago): the suite's fused_device benchmarks of 44b1911 (issue 13's parent)
# and of this session's build, both Release, each with its own kernel cache
# warmed first, rounds interleaved. $1: 44b1911's fusecl-bench; $2: this
# build's; $3: rounds.
set -u
old=$1 new=$2 rounds=${3:-5}
export FUSECL_TUNE=0 FUSECL_DEVICE=pocl
args=(--min_log2=16 --max_log2=22 --log2_step=3 --benchmark_filter=/fused_device/ --benchmark_min_time=0.2 --benchmark_format=csv)
FUSECL_CACHE_DIR=/tmp/kc-old13 "$old" "${args[@]}" > /dev/null 2>&1  # warm
FUSECL_CACHE_DIR=/tmp/kc-new13 "$new" "${args[@]}" > /dev/null 2>&1
for r in $(seq "$rounds"); do
  FUSECL_CACHE_DIR=/tmp/kc-old13 "$old" "${args[@]}" 2>/dev/null | sed "s/^/old,$r,/"
  FUSECL_CACHE_DIR=/tmp/kc-new13 "$new" "${args[@]}" 2>/dev/null | sed "s/^/new,$r,/"
done
