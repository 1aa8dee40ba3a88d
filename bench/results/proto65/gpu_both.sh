# Sixty-fifth session, one call for two branches: wip/f64-lanes (carry/f64/bin:
# var / std of float64 over short rows in lanes against FUSECL_LANE_ROWS=0,
# the forms before, and the layout's knobs: at least 1 or 4 lanes a row,
# at most 2 or 8 vectors a lane) and wip/online-warps (bundle carry/new, as
# proto64/gpu_quick.sh: logsumexp over rows with the pair's warps and
# shared rows against neither, argmax over rows with (value, index)
# shuffles and 32 a work-item against neither); torch.compile on the same
# cases; argmin / argmax down columns with 16 and 32 rows a group (the
# wip/f64-lanes bundle's FUSECL_HACK_ARG_COLUMN_ROWS) against 8; then each
# branch's tests on the GPU. Rounds interleaved; every
# result written to $OUT as it comes.
source bench/results/gpu_call.sh
N=67108864
F=""; for m in 64 32 24 16 8 4; do F="$F var:$((N / m))x$m:1:f64"; done
F="$F mean_var:1048576x64:1:f64 mean_var:4194304x16:1:f64 var:1048576x64:1:i32"
C="logsumexp:131072x512:1 logsumexp:65536x1024:1 logsumexp:32768x2048:1 logsumexp:262144x256:1"
A="argmax:167772x400:1 argmax:67108x1000:1"
f64_round() {
  for v in old new t1 t4 v2 v8; do
    case $v in old) E="FUSECL_LANE_ROWS=0";; new) E="";; t1) E="FUSECL_HACK_CHAN_T=1";; t4) E="FUSECL_HACK_CHAN_T=4";;
      v2) E="FUSECL_HACK_CHAN_V=2";; v8) E="FUSECL_HACK_CHAN_V=8";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kf-$v timeout 60 carry/f64/bin/fusecl-axis-probe $F | sed "s/^/r$1 $v /"
  done >> $OUT/f64.txt 2>&1
}
warps_round() {
  for v in base both; do
    case $v in base) E="FUSECL_HACK_ONLINE_WARP=0 FUSECL_HACK_ONLINE_ROWS=0";; both) E="";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-$v timeout 30 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$1 $v /"
  done >> $OUT/rows.txt 2>&1
  for v in base warp per32; do
    case $v in base) E="FUSECL_HACK_ARG_WARP=0";; warp) E="";; per32) E="FUSECL_HACK_ARG_PER=32";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kc-a$v timeout 30 carry/new/bin/fusecl-axis-probe $A | sed "s/^/r$1 $v /"
  done >> $OUT/rows.txt 2>&1
}
G="argmax:4096x16384:0 argmax:1024x65536:0 argmax:16384x4096:0 argmax:65536x1024:0 argmin:8192x8192:0 argmax:4096x16384:0:f64"
cols_round() {
  for v in r8 r16 r32; do
    case $v in r8) E="";; r16) E="FUSECL_HACK_ARG_COLUMN_ROWS=16";; r32) E="FUSECL_HACK_ARG_COLUMN_ROWS=32";; esac
    env $E FUSECL_CACHE_DIR=/tmp/kg-$v timeout 40 carry/f64/bin/fusecl-axis-probe $G | sed "s/^/r$1 $v /"
  done >> $OUT/cols.txt 2>&1
}
f64_round 1; warps_round 1; cols_round 1
timeout 150 python3 carry/new/torch_axis.py var:1048576x64:1:f64 var:2097152x32:1:f64 var:4194304x16:1:f64 var:8388608x8:1:f64 var:16777216x4:1:f64 mean_var:1048576x64:1:f64 logsumexp:65536x1024:1 argmax:67108x1000:1 argmax:167772x400:1 $G > $OUT/torch.txt 2>&1
f64_round 2; warps_round 2; cols_round 2
grep -v "#" $OUT/f64.txt | sort -k3,4 -k2,2; grep -v "#" $OUT/rows.txt | sort -k3,4 -k2,2; grep -v "#" $OUT/cols.txt | sort -k3,4 -k2,2; cat $OUT/torch.txt
timeout 100 carry/f64/bin/fusecl_tests "[lane_rows],[moments]" > $OUT/f64_tests.txt 2>&1; echo "f64 tests rc $?"; tail -3 $OUT/f64_tests.txt
timeout 90 carry/new/bin/fusecl_tests "[pairs],[finish],[arg],[group_rows]" > $OUT/tests.txt 2>&1; echo "warps tests rc $?"; tail -3 $OUT/tests.txt
cat $OUT/device.txt
