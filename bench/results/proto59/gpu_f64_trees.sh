# Fifty-ninth session, call 4: float64 moments' trees (FCL_EXP_F64_TREE:
# warp shuffles unrolled (default), a loop of shuffles, local memory), the
# first block without a division or not (FCL_EXP_F64_NOFIRST), with the
# new work-item rule (FCL_EXP_F64_RULE: 32 elements a work-item where rows
# of 128 or more share groups, 32 vectors a work-item where a row has a
# group); call 1's build and the session's start; two rounds.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
N=67108864
C=""; for m in $N 8192 1024 512 256 64 16; do C="$C var:$((N / m))x$m:1:f64"; done; C="$C mean_var:1x$N:1:f64 mean_var:$((N / 64))x64:1:f64"
P=carry/new/bin/fusecl-axis-probe
for r in 1 2; do
  FCL_EXP_F64_RULE=1 FUSECL_CACHE_DIR=/tmp/kc-a $P $C | sed "s/^/r$r unrolled /"
  FCL_EXP_F64_RULE=1 FCL_EXP_F64_TREE=loop FUSECL_CACHE_DIR=/tmp/kc-b $P $C | sed "s/^/r$r loop /"
  FCL_EXP_F64_RULE=1 FCL_EXP_F64_TREE=local FUSECL_CACHE_DIR=/tmp/kc-c $P $C | sed "s/^/r$r local /"
  FCL_EXP_F64_RULE=1 FCL_EXP_F64_TREE=local FCL_EXP_F64_NOFIRST=1 FUSECL_CACHE_DIR=/tmp/kc-d $P $C | sed "s/^/r$r local_nofirst /"
  FCL_EXP_F64_RULE=1 FCL_EXP_F64_NOFIRST=1 FUSECL_CACHE_DIR=/tmp/kc-e $P $C | sed "s/^/r$r unrolled_nofirst /"
  FUSECL_CACHE_DIR=/tmp/kc-c1 carry/new/bin/probe-call1 $C | sed "s/^/r$r call1 /"
  FUSECL_CACHE_DIR=/tmp/kc-old carry/new/bin/probe-old $C | sed "s/^/r$r old /"
done > $OUT/trees.txt 2>&1
cat $OUT/device.txt
python3 bench/results/proto59/table.py $OUT/trees.txt | tee $OUT/table.md
