__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void fusecl_row_21ceb55e7fade5e6(
    __global float* restrict out0,
    __global const float* restrict in0,
    const long n,
    const long m,
    const long rs,
    const long off0)
{
  const int lid = (int)get_local_id(0);
  const int c_ = 0, sl = 0;
  const long o = (long)get_group_id(0) + c_;
  const long mo = o < n ? m : 0;
  const long base = o / (rs / 16) * m * rs + o % (rs / 16) * 16;
  float16 acc1;
  {
    float16 acc = (float16)((float)(-INFINITY));
    int16 acc_nan = isnan(acc);
    #pragma unroll 4
    for (long r = sl; r < mo; r += 1) {
      const long p = base + r * rs;
      const float16 v0 = vload16(0, in0 + off0 + p);
      acc = fmax(acc, v0); acc_nan |= isnan(v0);
    }
    acc = select(acc, (float16)(NAN), acc_nan != (int16)(0));
    acc1 = acc;
  }
  const float16 r1 = acc1;
  float16 acc4;
  {
    float16 acc = (float16)((float)(0));
    float16 comp = (float16)(0);
    #pragma unroll 4
    for (long r = sl; r < mo; r += 1) {
      const long p = base + r * rs;
      const float16 v1 = r1;
      const float16 v0 = vload16(0, in0 + off0 + p);
      const float16 v2 = ((v0) - (v1));
      const float16 v3 = exp(v2);
      { const float16 y_ = v3 - comp; const float16 t_ = acc + y_; comp = (isfinite(t_) ? (t_ - acc) - y_ : (float16)(0)); acc = t_; }
#ifdef FCL_CPU
      vstore16(v3, 0, out0 + p);
#endif
    }
    acc = acc - comp;
    acc4 = acc;
  }
  const float16 r4 = acc4;
  #pragma unroll 4
  for (long r = sl; r < mo; r += 1) {
    const long p = base + r * rs;
#ifdef FCL_CPU
    const float16 v3 = vload16(0, out0 + p);
    const float16 v4 = r4;
    const float16 v5 = ((v3) / (v4));
#else
    const float16 v1 = r1;
    const float16 v4 = r4;
    const float16 v0 = vload16(0, in0 + off0 + p);
    const float16 v2 = ((v0) - (v1));
    const float16 v3 = exp(v2);
    const float16 v5 = ((v3) / (v4));
#endif
    vstore16(v5, 0, out0 + p);
  }
}
