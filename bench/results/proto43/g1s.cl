#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,
    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1)
{
  const long tx_n = (d1 + 7) / 8, ty_n = (d0 + 7) / 8;
  const long sx_n = (tx_n + 15) / 16, sy_n = (ty_n + 15) / 16;
  const int l_ = (int)get_local_id(0);
  long g_ = (long)get_group_id(0);
  const long bx = (g_ % sx_n) * 16 + (l_ & 15); g_ /= sx_n;
  const long by = (g_ % sy_n) * 16 + (l_ >> 4); g_ /= sy_n;
  if (bx >= tx_n || by >= ty_n) return;
  const long x0 = bx * 8, y0 = by * 8;
  if (x0 + 8 <= d1 && y0 + 8 <= d0 && st1_0 == 1) {
    const float8 a1_0 = vload8(0, in1 + off1 + y0 + (x0 + 0) * st1_1);
    const float8 a1_1 = vload8(0, in1 + off1 + y0 + (x0 + 1) * st1_1);
    const float8 a1_2 = vload8(0, in1 + off1 + y0 + (x0 + 2) * st1_1);
    const float8 a1_3 = vload8(0, in1 + off1 + y0 + (x0 + 3) * st1_1);
    const float8 a1_4 = vload8(0, in1 + off1 + y0 + (x0 + 4) * st1_1);
    const float8 a1_5 = vload8(0, in1 + off1 + y0 + (x0 + 5) * st1_1);
    const float8 a1_6 = vload8(0, in1 + off1 + y0 + (x0 + 6) * st1_1);
    const float8 a1_7 = vload8(0, in1 + off1 + y0 + (x0 + 7) * st1_1);
    {
      const long c0 = y0 + 0, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s0, a1_1.s0, a1_2.s0, a1_3.s0, a1_4.s0, a1_5.s0, a1_6.s0, a1_7.s0);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 1, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s1, a1_1.s1, a1_2.s1, a1_3.s1, a1_4.s1, a1_5.s1, a1_6.s1, a1_7.s1);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 2, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s2, a1_1.s2, a1_2.s2, a1_3.s2, a1_4.s2, a1_5.s2, a1_6.s2, a1_7.s2);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 3, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s3, a1_1.s3, a1_2.s3, a1_3.s3, a1_4.s3, a1_5.s3, a1_6.s3, a1_7.s3);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 4, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s4, a1_1.s4, a1_2.s4, a1_3.s4, a1_4.s4, a1_5.s4, a1_6.s4, a1_7.s4);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 5, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s5, a1_1.s5, a1_2.s5, a1_3.s5, a1_4.s5, a1_5.s5, a1_6.s5, a1_7.s5);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 6, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s6, a1_1.s6, a1_2.s6, a1_3.s6, a1_4.s6, a1_5.s6, a1_6.s6, a1_7.s6);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    {
      const long c0 = y0 + 7, c1 = x0;
      const long i = c0 * d1 + c1;
      const float8 tt1 = (float8)(a1_0.s7, a1_1.s7, a1_2.s7, a1_3.s7, a1_4.s7, a1_5.s7, a1_6.s7, a1_7.s7);
      const float8 v0 = vload8(0, in0 + off0 + i);
      const float8 v1 = tt1;
      const float8 v2 = ((v0) + (v1));
      vstore8(v2, 0, out0 + i);
    }
    return;
  }
  for (int r = 0; r < 8; ++r) for (int q = 0; q < 8; ++q) {
    const long c0 = y0 + r, c1 = x0 + q;
    if (c0 < d0 && c1 < d1) {
      const long i = c0 * d1 + c1;
      const float v0 = in0[off0 + i];
      const float v1 = in1[off1 + c0 * st1_0 + c1 * st1_1];
      const float v2 = ((v0) + (v1));
      out0[i] = v2;
    }
  }
}
