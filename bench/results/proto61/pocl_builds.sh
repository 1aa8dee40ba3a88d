#!/usr/bin/env bash
# Two fusecl-bench builds interleaved on this machine's PoCL device: the
# issue 13 check that no workload is slower on PoCL than before the issue.
#   OLD=/path/old/fusecl-bench NEW=/path/new/fusecl-bench ROUNDS=5 \
#     bash bench/results/proto61/pocl_builds.sh OUTDIR [extra fusecl-bench arguments]
# Each build keeps its own kernel cache (warmed by a first untimed run), and
# runs every workload's fused_device way at 2^16, 2^19, 2^22 each round, old
# then new, then new then old in the next round. Table:
#   python3 bench/results/proto61/pocl_table.py OUTDIR
set -u
out=$1; shift
extra=("$@")  # passed to every timed run
mkdir -p "$out"
rounds=${ROUNDS:-5}
bin_of() { if [ "$1" = new ]; then echo "$NEW"; else echo "$OLD"; fi; }
run() {  # build label, round
  local bin
  bin=$(bin_of "$1")
  FUSECL_TUNE=0 FUSECL_CACHE_DIR=/tmp/kc-pocl-$1 "$bin" --min_log2=16 --max_log2=22 --log2_step=3 \
    --benchmark_filter='/fused_device/' --benchmark_min_time=${MIN_TIME:-0.2} --benchmark_format=json \
    --benchmark_out="$out/$1_$2.json" "${extra[@]}" > /dev/null 2> "$out/$1_$2.err"
}
for b in old new; do FUSECL_TUNE=0 FUSECL_CACHE_DIR=/tmp/kc-pocl-$b "$(bin_of $b)" --min_log2=16 --max_log2=22 --log2_step=3 \
  --benchmark_filter='/fused_device/' --benchmark_min_time=0.01 > /dev/null 2>&1; done
for r in $(seq "$rounds"); do
  order="old new"; [ $((r % 2)) = 0 ] && order="new old"
  for b in $order; do
    echo "round $r $b, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%T)" >> "$out/log.txt"
    run "$b" "$r"
  done
done
