#!/usr/bin/env bash
# Fifty-fifth session: pocl_extremum_oldnew.sh on the GPU machine's host CPU
# (PoCL, where the machine has it): the build before the half-vector rule for
# float max/min against the build with it, three interleaved rounds.
set -u
export LD_LIBRARY_PATH=$PWD/carry/new/lib
carry/new/bin/fusecl-info > $OUT/info.txt 2>&1
grep -qi pocl $OUT/info.txt || { echo "no PoCL device"; cat $OUT/info.txt; exit 0; }
lscpu | grep -i 'model name\|^CPU(s)' >> $OUT/info.txt
OLD=carry/new/bin/probe-old55 NEW=carry/new/bin/probe-new55 bash bench/results/proto55/pocl_extremum_oldnew.sh > $OUT/xeon_extremum_oldnew.txt 2>&1
