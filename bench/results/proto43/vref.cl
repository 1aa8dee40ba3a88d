#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,
    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1)
{
  const long x0 = get_global_id(0) * 8, y0 = get_global_id(1) * 8;
  for (int r = 0; r < 8; ++r) vstore8(vload8(0, in0 + (y0 + r) * d1 + x0) + vload8(0, in1 + (y0 + r) * d1 + x0), 0, out0 + (y0 + r) * d1 + x0);
}
