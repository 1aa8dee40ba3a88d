# Fifty-fifth session: an experiment build (not committed) whose launch_kernel (runtime/context.cpp) called
# clFlush after clEnqueueNDRangeKernel when FUSECL_EXP_FLUSH=1; two interleaved rounds on one H100; the
# results, "round flush name us", are flush_after_launch.txt. No case moved past the noise.
mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export FUSECL_DEVICE=nvidia LD_LIBRARY_PATH=$PWD/carry/new/lib
F='^BM_((black_scholes|haversine|sqrt_sin_exp|softmax|mean_std|row_norm)/(fused_device|fuse_device)/|overhead/fused_device_sync)'
carry/new/bin/fusecl-bench-exp --min_log2=16 --max_log2=20 --log2_step=2 "--benchmark_filter=$F" --benchmark_min_time=0.05 > /dev/null 2>&1
for r in 1 2; do for fl in 0 1; do
  FUSECL_EXP_FLUSH=$fl timeout 100 carry/new/bin/fusecl-bench-exp --min_log2=16 --max_log2=20 --log2_step=2 "--benchmark_filter=$F" --benchmark_min_time=0.2 2>&1 | grep '^BM_' | awk -v fl=$fl -v r=$r '{print r, fl, $1, $2}' | tee -a $OUT/flush.txt
done; done
