# Sixty-second session: a pair kernel's consumer computed where it stores
# (src/reduce_finish.cpp), FUSECL_REDUCE_FINISH=0 ("old": a kernel of its
# own) against the default ("new"), on this machine's PoCL device,
# interleaved, ROUNDS rounds (default 3), into OUTFILE. Table:
#   python3 bench/results/proto59/table.py OUTFILE
set -u
out=$1
probe=${PROBE:-build-bundle/bench/fusecl-axis-probe}
C=""
for e in logsumexp rstd cv; do
  C="$C $e:256x256:1 $e:256x256:0 $e:1024x1024:1 $e:1024x1024:0 $e:4096x1024:1 $e:1024x4096:0 $e:256x8192:1"
done
for r in $(seq "${ROUNDS:-3}"); do
  FUSECL_TUNE=0 FUSECL_REDUCE_FINISH=0 FUSECL_CACHE_DIR=/tmp/kc-po $probe $C | sed "s/^/r$r old /"
  FUSECL_TUNE=0 FUSECL_CACHE_DIR=/tmp/kc-pn $probe $C | sed "s/^/r$r new /"
done > "$out" 2>&1
