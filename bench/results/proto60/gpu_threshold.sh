# Sixtieth session, call 3: the threshold kept (d5d7437), old against new
# over call 1's and call 2's int8 columns, two rounds; then the column test
# files on this GPU.
set -u
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia FUSECL_TUNE=0 LD_LIBRARY_PATH=$PWD/carry/new/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
C=""
for e in sum max argmax; do C="$C $e:4096x16384:0:i8 $e:32768x2048:0:i8 $e:65536x1024:0:i8 $e:262144x256:0:i8"; done
for r in 1 2; do
  FUSECL_CACHE_DIR=/tmp/kc-o timeout 60 carry/new/bin/probe-old $C | sed "s/^/r$r old /"
  FUSECL_CACHE_DIR=/tmp/kc-n timeout 60 carry/new/bin/fusecl-axis-probe $C | sed "s/^/r$r new /"
done > $OUT/threshold.txt 2>&1
(cd carry/new/bin && FUSECL_POISON_OUTPUTS=1 timeout 110 ./fusecl_tests "[columns]" > $OUT/columns_tests.txt 2>&1; echo "rc=$?" >> $OUT/columns_tests.txt)
cat $OUT/device.txt
tail -3 $OUT/columns_tests.txt
python3 bench/results/proto59/table.py $OUT/threshold.txt | tee $OUT/table.md
