#!/usr/bin/env bash
# Issue 13 on a lent NVIDIA GPU machine, from the repository root, with a bundle
# made by scripts/make_bundle.sh in carry/new:
#   bash bench/gpu_issue13.sh tests    the whole suite on the GPU, then the knobs
#                                      side by side at 2^26: one-pass var/std
#                                      against two passes, row kernels with 4
#                                      and 8 elements per work-item, two-level
#                                      combine against the tree, measured tuning
#                                      against the defaults (3 rounds)
#   bash bench/gpu_issue13.sh final    the whole suite, then mean and std (one
#                                      pass against two, 3 rounds), then mean
#                                      and std, softmax and row normalization
#                                      beside CuPy and torch.compile
#   BASE=carry/base bash bench/gpu_issue13.sh rows
#                                      the whole suite, then softmax and row
#                                      normalization against the BASE bundle
#   FILES='a b' PARALLEL=8 bash bench/gpu_issue13.sh files
#                                      the suite one test file a process, 8 at
#                                      once (every file without FILES)
#   bash bench/gpu_issue13.sh suite    the whole suite only (FILES='a b' runs only the
#                                      test files tests/test_a.cpp, test_b.cpp, in
#                                      up to SUITE_LIMIT seconds, default 550)
#   CASES='softmax:8192x8192:0 ...' bash bench/gpu_issue13.sh axis
#                                      fusecl-axis-probe on CASES under each setting
#                                      of KNOBS (default FUSECL_PAIR_KERNELS=0 and
#                                      1), interleaved, 2 rounds, then
#                                      bench/torch_axis.py on the same cases (into
#                                      $OUT/axis.txt); then, with FILES, those
#                                      test files of the suite
#   bash bench/gpu_issue13.sh python   the whole suite, the Python module built
#                                      here (carry/pylib, carry/pyhdr), its fuse
#                                      tests, then bench/python_fuse.py at
#                                      2^16, 2^21, 2^26 (LOG2) beside cupy.fuse,
#                                      3 rounds (SUITE=0 skips the suite)
#   bash bench/gpu_issue13.sh pytest   the Python module built here, then the
#                                      whole tests/python folder against this
#                                      machine's NumPy (2.x, where CI has 1.24)
#   bash bench/gpu_issue13.sh fuse     fusecl's fused_device and fuse_device
#                                      (fusecl::fuse replays) at 2^16, 2^21,
#                                      2^26 on every workload, then CuPy,
#                                      cupy.fuse, torch and torch.compile on
#                                      the same inputs
#   bash bench/gpu_issue13.sh plans    the whole suite, then eval (fused_device)
#                                      with FUSECL_PLAN_CACHE=0 and 1 and
#                                      fuse() at 2^16 and 2^21, interleaved, 3
#                                      rounds (into $OUT/plans.txt)
#   BASE=carry/base bash bench/gpu_issue13.sh host
#                                      the whole suite, then eval (fused_device)
#                                      and fuse() at 2^16 and 2^21 on every
#                                      workload, this bundle against BASE's,
#                                      interleaved, 3 rounds (into $OUT/host.txt);
#                                      SUITE=0 skips the suite
#   KNOBS='a X=1;b X=0' FILTER=regex LOG2='16 21' bash bench/gpu_issue13.sh knobs
#                                      the whole suite (SUITE=0 skips it), then
#                                      the benchmarks FILTER picks at the sizes
#                                      in LOG2 under each named setting of
#                                      KNOBS, interleaved, 3 rounds (into
#                                      $OUT/knobs.txt)
#   WORKLOADS='a|b' bash bench/gpu_issue13.sh sweep
#                                      the issue's "every workload at every
#                                      size" check: eval (fused_device) and
#                                      fuse() at every STEP-th (default 2) size
#                                      from 2^16 to 2^26, every workload (or
#                                      those WORKLOADS names), then CuPy,
#                                      cupy.fuse, torch and torch.compile on
#                                      the same inputs, each checked against
#                                      fusecl's results
#   bash bench/gpu_issue13.sh table    fusecl at 2^16, 2^21, 2^26 on the
#                                      reduction workloads, then CuPy, cupy.fuse,
#                                      torch and torch.compile on the same inputs,
#                                      each checked against fusecl's results
# Everything goes under $OUT; each step has a time limit.
set -u
bundle=$PWD/carry/new
mkdir -p "$OUT"  # OUT=$OUT/a for one of several runs in a call
# Everything is packed into $OUT/issue13.tgz at the end (the device tool brings
# back a limited number of files).
pack() { (cd "$OUT" && tar czf /tmp/issue13.tgz --exclude=issue13.tgz . && find . -type f ! -name issue13.tgz -delete && mv /tmp/issue13.tgz .); }
trap pack EXIT
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=${GPU_DEVICE:-nvidia} LD_LIBRARY_PATH=$bundle/lib FUSECL_CACHE_DIR=/tmp/kc-issue13
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$bundle/bin/fusecl-info"; } > "$OUT/env.txt" 2>&1
bench() { timeout "$1" "$bundle/bin/fusecl-bench" "${@:2}"; }
mode=${1:-table}
# The whole suite on this GPU, into $OUT/tests.txt.
# FILES='a b': only the test cases of tests/test_a.cpp and test_b.cpp (Catch2's filename tags).
# The test binary of the bundle as the suite runs it (no tuning, outputs
# poisoned), with kernel cache CACHE, in up to LIMIT seconds: run_tests
# CACHE LIMIT [Catch2 arguments].
run_tests() {
  local cache=$1 limit=$2
  shift 2
  (cd "$bundle/bin" && FUSECL_TUNE=0 FUSECL_POISON_OUTPUTS=1 FUSECL_TOOLS_DIR=$PWD FUSECL_SOURCE_DIR=$bundle/../.. \
     FUSECL_CACHE_DIR=$cache timeout $limit ./fusecl_tests --reporter compact "$@")
}
suite() {
  local spec=()
  [ -n "${FILES:-}" ] && spec=(-# "$(printf '[#test_%s]~[.],' $FILES | sed 's/,$//')")  # not the hidden child cases
  run_tests /tmp/kc-tests ${SUITE_LIMIT:-550} "${spec[@]}" > "$OUT/tests.txt" 2>&1; echo "rc=$?" >> "$OUT/tests.txt"
}
# The Python module, built here against this machine's Python and pybind11
# (the headers fusecl's public headers need from Boost in carry/pyhdr, the
# library in carry/pylib), into /tmp/py (issue 15's CuPy comparison).
build_python() {
  mkdir -p /tmp/py/fusecl /tmp/pyobj
  export PYBIND_INC=$(python3 -c 'import pybind11; print(pybind11.get_include())')
  export PY_INC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  ls python/src/*.cpp | xargs -P 16 -I{} sh -c \
    'g++ -std=c++20 -O2 -fPIC -w -Iinclude -Icarry/pyhdr -I"$PY_INC" -I"$PYBIND_INC" -c {} -o /tmp/pyobj/$(basename {} .cpp).o' \
    > "$OUT/python_build.txt" 2>&1
  g++ -shared -o "/tmp/py/fusecl/_core$suffix" /tmp/pyobj/*.o carry/pylib/libfusecl.a -L"$bundle/lib" -lOpenCL -lpthread >> "$OUT/python_build.txt" 2>&1
  cp python/fusecl/*.py /tmp/py/fusecl/
}
# The suite one test file a process, PARALLEL (default 8) at once, each in up
# to FILE_LIMIT seconds (default 400), into $OUT/files/<file>.txt, with one
# line a file in $OUT/files.txt (its rc, seconds and Catch2's summary). FILES
# as for suite; without it, every tests/test_*.cpp. A GPU's suite is bound by
# the driver's compiles, one core each: the files in parallel finish in a
# fraction of the time, and a file cut short does not hide the others.
one_file() {
  local f=$1 t0=$(date +%s) rc
  run_tests /tmp/kc-files/$f ${FILE_LIMIT:-400} -# "[#test_$f]~[.]" > "$OUT/files/$f.txt" 2>&1; rc=$?
  echo "$f rc=$rc $(( $(date +%s) - t0 ))s $(grep -E '^(Passed|Failed|No test)' "$OUT/files/$f.txt" | tail -1)"
}
export -f run_tests one_file; export bundle OUT

if [ "$mode" = files ]; then
  mkdir -p "$OUT/files"
  list=${FILES:-$(cd tests && ls test_*.cpp | sed 's/^test_//; s/\.cpp$//')}
  printf '%s\n' $list | xargs -P ${PARALLEL:-8} -I{} bash -c 'one_file {}' | sort > "$OUT/files.txt"
  cat "$OUT/files.txt"
  exit 0
fi
# Python's fusecl.fuse with number arguments (bench/python_fuse.py) beside
# cupy.fuse, 3 rounds, after the whole suite and the Python fuse tests
# (where pytest is installed).
if [ "$mode" = python ]; then
  if [ "${SUITE:-1}" = 1 ]; then  # SUITE=0: the Python part only
    suite
    grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  fi
  build_python
  tail -3 "$OUT/python_build.txt"
  if python3 -c 'import pytest' 2>/dev/null; then
    (cd tests/python && PYTHONPATH=/tmp/py timeout 200 python3 -m pytest -q -p no:cacheprovider test_fuse.py test_fuse_numbers.py test_fuse_numpy_scalars.py \
       > "$OUT/pytest.txt" 2>&1; echo "rc=$?" >> "$OUT/pytest.txt")
    tail -3 "$OUT/pytest.txt"
  fi
  for r in 1 2 3; do
    PYTHONPATH=/tmp/py timeout 150 python3 bench/python_fuse.py ${LOG2:-16 21 26} >> "$OUT/python_fuse.txt" 2>&1
    echo "python_fuse round $r: $?"
  done
  cat "$OUT/python_fuse.txt"
  exit 0
fi
if [ "$mode" = pytest ]; then
  build_python
  tail -3 "$OUT/python_build.txt"
  python3 -c 'import numpy; print("numpy", numpy.__version__)'
  (cd tests/python && PYTHONPATH=/tmp/py timeout 300 python3 -m pytest -q -p no:cacheprovider . > "$OUT/pytest_all.txt" 2>&1
   echo "rc=$?" >> "$OUT/pytest_all.txt")
  grep -E "^FAILED|passed|failed|rc=" "$OUT/pytest_all.txt" | head -40
  exit 0
fi
if [ "$mode" = axis ]; then
  for r in 1 2; do
    for v in ${KNOBS:-FUSECL_PAIR_KERNELS=0 FUSECL_PAIR_KERNELS=1}; do
      echo "## $v, round $r" >> "$OUT/axis.txt"
      env FUSECL_TUNE=0 "$v" timeout 120 "$bundle/bin/fusecl-axis-probe" $CASES >> "$OUT/axis.txt" 2>&1
    done
  done
  echo "## torch" >> "$OUT/axis.txt"
  timeout ${TORCH_LIMIT:-240} python3 "$bundle/torch_axis.py" $CASES >> "$OUT/axis.txt" 2>&1
  cat "$OUT/axis.txt"
  [ -n "${FILES:-}" ] || exit 0
  suite
  grep -E "FAILED|failed|passed|rc=" "$OUT/tests.txt" | head -40
  exit 0
fi
if [ "$mode" = suite ]; then
  suite
  grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  exit 0
fi
if [ "$mode" = plans ]; then
  suite
  grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  for r in 1 2 3; do
    for pc in 0 1; do
      echo "== round $r FUSECL_PLAN_CACHE=$pc" >> "$OUT/plans.txt"
      FUSECL_PLAN_CACHE=$pc bench 120 --benchmark_filter='BM_(black_scholes|haversine|sqrt_sin_exp|softmax|mean_std)/(fused_device|fuse_device)/(16|21)/' \
        --min_log2=16 --max_log2=21 --log2_step=5 --benchmark_min_time=0.2 2>&1 | grep "^BM" | awk '{print $1, $2, $3}' >> "$OUT/plans.txt"
    done
  done
  cat "$OUT/plans.txt"
  exit 0
fi
if [ "$mode" = host ]; then
  if [ "${SUITE:-1}" = 1 ]; then  # SUITE=0: the comparison only
    suite
    grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  fi
  for r in 1 2 3; do
    for b in new base; do
      dir=$bundle
      [ "$b" = base ] && dir=$PWD/$BASE
      echo "== round $r $b" >> "$OUT/host.txt"
      LD_LIBRARY_PATH=$dir/lib timeout 120 "$dir/bin/fusecl-bench" \
        --benchmark_filter='BM_(black_scholes|haversine|sqrt_sin_exp|transpose_add|softmax|row_norm|mean_std)/(fused_device|fuse_device)/(16|21)/' \
        --min_log2=16 --max_log2=21 --log2_step=5 --benchmark_min_time=0.2 2>&1 | grep "^BM" | awk '{print $1, $2, $3}' >> "$OUT/host.txt"
    done
  done
  cat "$OUT/host.txt"
  exit 0
fi
if [ "$mode" = knobs ]; then
  if [ "${SUITE:-1}" = 1 ]; then
    suite
    grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  fi
  set -- ${LOG2:-16 21}
  lo=$1 hi=${!#}
  IFS=';' read -ra knobs <<< "$KNOBS"
  for r in 1 2 3; do
    for k in "${knobs[@]}"; do
      set -- $k
      echo "== round $r $1" >> "$OUT/knobs.txt"
      env "${@:2}" timeout 150 "$bundle/bin/fusecl-bench" --benchmark_filter="$FILTER" --min_log2=$lo --max_log2=$hi \
        --log2_step=$(( hi > lo ? hi - lo : 1 )) --benchmark_min_time=0.2 2>&1 | grep "^BM" | awk '{print $1, $2, $3}' >> "$OUT/knobs.txt"
    done
  done
  cat "$OUT/knobs.txt"
  exit 0
fi
if [ "$mode" = fuse ]; then
  WAYS='fused_device|fuse_device'
  WORKLOADS='black_scholes|haversine|sqrt_sin_exp|transpose_add|softmax|row_norm|mean_std'
fi
if [ "$mode" = sweep ]; then
  WAYS='fused_device|fuse_device'
  WORKLOADS=${WORKLOADS:-chain2|sqrt_sin_exp|poly20|black_scholes|haversine|saxpy|transpose_add|softmax|softmax_axis0|row_norm|sum_squares|mean_std|monte_carlo_pi}
fi
if [ "$mode" = rows ]; then
  # The whole suite, then row kernels of this bundle against another's
  # (BASE, a bundle folder; its env in BASE_ENV), interleaved, 3 rounds.
  suite
  tail -3 "$OUT/tests.txt"
  for r in 1 2 3; do
    for b in new base; do
      dir=$bundle e=
      [ "$b" = base ] && dir=$PWD/$BASE e=${BASE_ENV:-}
      env $e LD_LIBRARY_PATH=$dir/lib "$dir/bin/fusecl-bench" --benchmark_filter='BM_(softmax|row_norm)/fused_device/(21|26)/' \
        --min_log2=21 --max_log2=26 --log2_step=5 --benchmark_min_time=0.2 --benchmark_format=json > "$OUT/rows_${b}_$r.json" \
        2> "$OUT/rows_${b}_$r.err"
      echo "$b round $r: $?"
    done
  done
  exit 0
fi
if [ "$mode" = tests ] || [ "$mode" = final ]; then
  suite
  grep -E "FAILED|failed|passed" "$OUT/tests.txt" | head -40
  # What a Python module build would find here (issue 15's CuPy comparison).
  { command -v g++ c++ cmake; python3 -c 'import sys, sysconfig; print(sys.version, sysconfig.get_paths()["include"])';
    python3 -c 'import pybind11; print("pybind11", pybind11.__version__)'; } > "$OUT/python_probe.txt" 2>&1
  [ "$mode" = final ] && WORKLOADS='mean_std|softmax|row_norm'
  for r in 1 2 3; do
    [ "$mode" = final ] && break
    for v in "default" "two_pass FUSECL_ONE_PASS_MOMENTS=0" "row4 FUSECL_ROW_ELEMENTS=4" "row8 FUSECL_ROW_ELEMENTS=8" \
             "tree FUSECL_ROW_FANIN=0" "untuned FUSECL_TUNE=0"; do
      set -- $v
      env ${2:-} FUSECL_LOG=tune "$bundle/bin/fusecl-bench" --benchmark_filter='BM_(mean_std|softmax|row_norm|haversine)/fused_device/(21|26)/' \
        --min_log2=21 --max_log2=26 --log2_step=5 --benchmark_min_time=0.2 --benchmark_format=json > "$OUT/knob_${1}_$r.json" 2> "$OUT/knob_${1}_$r.err"
      echo "$1 round $r: $?"
    done
  done
  [ "$mode" = final ] || exit 0
fi
if [ -f carry/pylib/libfusecl.a ] && [ "$mode" = table ]; then
  build_python
  PYTHONPATH=/tmp/py timeout 120 python3 bench/python_overhead.py > "$OUT/python_overhead.txt" 2>&1
  echo "python_overhead: $?"; cat "$OUT/python_overhead.txt"; tail -5 "$OUT/python_build.txt"
fi
for r in 1 2 3; do
  [ "$mode" = fuse ] || [ "$mode" = sweep ] && break
  for v in "default" "two_pass FUSECL_ONE_PASS_MOMENTS=0"; do
    set -- $v
    env ${2:-} "$bundle/bin/fusecl-bench" --benchmark_filter='BM_mean_std/fused_device/(21|26)/' --min_log2=21 --max_log2=26 \
      --log2_step=5 --benchmark_min_time=0.2 --benchmark_format=json > "$OUT/moments_${1}_$r.json" 2> "$OUT/moments_${1}_$r.err"
  done
done
run=$OUT/run.json check=$OUT/check.jsonl
step=5 limit=150
[ "$mode" = sweep ] && step=${STEP:-2} limit=240
bench $limit --min_log2=16 --max_log2=26 --log2_step=$step \
  "--benchmark_filter=^BM_(copy/|(${WORKLOADS:-mean_std|softmax|row_norm|sum_squares|transpose_add|haversine|black_scholes})/(${WAYS:-fused_device|device_eager})/)" \
  --benchmark_min_time=0.05 --benchmark_out_format=json --benchmark_out="$run" --check_out="$check" > "$OUT/fusecl-bench.txt" 2>&1
echo "fusecl-bench: $?"
timeout ${FW_LIMIT:-300} python3 bench/gpu_frameworks.py --like "$run" --check "$check" --min-time 0.05 --out "$OUT/frameworks.json" \
  > "$OUT/gpu_frameworks.txt" 2>&1
echo "gpu_frameworks: $?"
tail -5 "$OUT/gpu_frameworks.txt"
