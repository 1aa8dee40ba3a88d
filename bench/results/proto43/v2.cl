#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,
    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1)
{
  const long x0 = get_global_id(0) * 8, y0 = get_global_id(1) * 8;
  const float8 a0 = vload8(0, in1 + off1 + y0 + (x0 + 0) * st1_1);
  const float8 a1 = vload8(0, in1 + off1 + y0 + (x0 + 1) * st1_1);
  const float8 a2 = vload8(0, in1 + off1 + y0 + (x0 + 2) * st1_1);
  const float8 a3 = vload8(0, in1 + off1 + y0 + (x0 + 3) * st1_1);
  const float8 a4 = vload8(0, in1 + off1 + y0 + (x0 + 4) * st1_1);
  const float8 a5 = vload8(0, in1 + off1 + y0 + (x0 + 5) * st1_1);
  const float8 a6 = vload8(0, in1 + off1 + y0 + (x0 + 6) * st1_1);
  const float8 a7 = vload8(0, in1 + off1 + y0 + (x0 + 7) * st1_1);
  const float8 r0 = (float8)(a0.s0, a1.s0, a2.s0, a3.s0, a4.s0, a5.s0, a6.s0, a7.s0);
  const float8 r1 = (float8)(a0.s1, a1.s1, a2.s1, a3.s1, a4.s1, a5.s1, a6.s1, a7.s1);
  const float8 r2 = (float8)(a0.s2, a1.s2, a2.s2, a3.s2, a4.s2, a5.s2, a6.s2, a7.s2);
  const float8 r3 = (float8)(a0.s3, a1.s3, a2.s3, a3.s3, a4.s3, a5.s3, a6.s3, a7.s3);
  const float8 r4 = (float8)(a0.s4, a1.s4, a2.s4, a3.s4, a4.s4, a5.s4, a6.s4, a7.s4);
  const float8 r5 = (float8)(a0.s5, a1.s5, a2.s5, a3.s5, a4.s5, a5.s5, a6.s5, a7.s5);
  const float8 r6 = (float8)(a0.s6, a1.s6, a2.s6, a3.s6, a4.s6, a5.s6, a6.s6, a7.s6);
  const float8 r7 = (float8)(a0.s7, a1.s7, a2.s7, a3.s7, a4.s7, a5.s7, a6.s7, a7.s7);
  vstore8(vload8(0, in0 + off0 + (y0 + 0) * d1 + x0) + r0, 0, out0 + (y0 + 0) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 1) * d1 + x0) + r1, 0, out0 + (y0 + 1) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 2) * d1 + x0) + r2, 0, out0 + (y0 + 2) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 3) * d1 + x0) + r3, 0, out0 + (y0 + 3) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 4) * d1 + x0) + r4, 0, out0 + (y0 + 4) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 5) * d1 + x0) + r5, 0, out0 + (y0 + 5) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 6) * d1 + x0) + r6, 0, out0 + (y0 + 6) * d1 + x0);
  vstore8(vload8(0, in0 + off0 + (y0 + 7) * d1 + x0) + r7, 0, out0 + (y0 + 7) * d1 + x0);
}
