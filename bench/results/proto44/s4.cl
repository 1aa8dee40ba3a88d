// s0's three phases as fusecl generates them (NaN tracking in the max, the compensated sum's finiteness test, the
// CPU's stash of exp in out0), but each work-item takes W neighbouring vectors of 16 columns (64 W bytes of a row).
#ifndef W
#define W 4
#endif
__kernel void softmax_cols(__global float* restrict out0, __global const float* restrict in0,
                           const long n, const long m, const long rs, const long off0)
{
  const long o = (long)get_global_id(0) * W;
  const long mo = o < n ? m : 0;
  const long base = o / (rs / 16) * m * rs + o % (rs / 16) * 16;
  float16 mx[W], sm[W], cp[W];
  int16 nan_[W];
  for (int k = 0; k < W; ++k) { mx[k] = (float16)(-INFINITY); nan_[k] = (int16)(0); sm[k] = (float16)(0); cp[k] = (float16)(0); }
  #pragma unroll U
  for (long r = 0; r < mo; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) { const float16 v0 = vload16(k, in0 + off0 + p); mx[k] = fmax(mx[k], v0); nan_[k] |= isnan(v0); }
  }
  for (int k = 0; k < W; ++k) mx[k] = select(mx[k], (float16)(NAN), nan_[k] != (int16)(0));
  #pragma unroll U
  for (long r = 0; r < mo; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) {
      const float16 v3 = exp(vload16(k, in0 + off0 + p) - mx[k]);
      const float16 y_ = v3 - cp[k]; const float16 t_ = sm[k] + y_; cp[k] = (isfinite(t_) ? (t_ - sm[k]) - y_ : (float16)(0)); sm[k] = t_;
      vstore16(v3, k, out0 + p);
    }
  }
  for (int k = 0; k < W; ++k) sm[k] -= cp[k];
  #pragma unroll U
  for (long r = 0; r < mo; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) vstore16(vload16(k, out0 + p) / sm[k], k, out0 + p);
  }
}
