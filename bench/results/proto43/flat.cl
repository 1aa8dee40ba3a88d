#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,
    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1)
{
  const long i = get_global_id(0) * 16 + get_global_id(1) * 0;
  vstore16(vload16(0, in0 + i) + vload16(0, in1 + i), 0, out0 + i);
}
