#!/usr/bin/env bash
# Packs a Release build (configured with -DFUSECL_PORTABLE_BUNDLE=ON) into one
# folder that runs on another x86-64 Linux machine without Debian's packages:
# the programs, plus the OpenCL ICD loader and Google Benchmark's shared library
# they link. Used to run the suite on a lent GPU machine.
#   scripts/make_bundle.sh BUILD_DIR OUT_DIR
# Then, there: LD_LIBRARY_PATH=OUT_DIR/lib OUT_DIR/bin/<program>
set -euo pipefail
build=${1:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: make_bundle.sh BUILD_DIR OUT_DIR}
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for p in tools/fusecl-info tools/fusecl-cache examples/demo examples/monte_carlo_pi examples/list_devices examples/server_threads examples/out_of_core \
         tests/fusecl_tests bench/fusecl-bench bench/fusecl-first-result bench/fusecl-axis-probe; do
  [ -x "$build/$p" ] && cp "$build/$p" "$out/bin/"
done
# The shared libraries the programs need that a bare machine may lack.
for lib in $(ldd "$out"/bin/* 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libOpenCL.so*|libbenchmark*.so*) cp -L "$lib" "$out/lib/" ;;
  esac
done
# The Python harnesses import each other from their own folder, so they travel together.
for f in bench/report.py bench/report_plot.py bench/gpu_frameworks.py bench/host_frameworks.py bench/workloads.py \
         bench/fusecl_check.py bench/torch_axis.py bench/compare.sh bench/first_result/run.sh bench/first_result/user_first_run.sh \
         bench/first_result/numpy_first_result.py; do
  [ -f "$f" ] && cp "$f" "$out/"
done
du -sh "$out"
