// s0's three phases, but each work-item takes 4 neighbouring vectors of 16 columns (256 bytes of a row).
#ifndef W
#define W 4
#endif
__kernel 
void softmax_cols(__global float* restrict out0, __global const float* restrict in0,
                  const long n, const long m, const long rs, const long off0)
{
  const long o = (long)get_global_id(0) * W;
  if (o >= n) return;
  const long base = o * 16;
  float16 mx[W], sm[W], cp[W];
  for (int k = 0; k < W; ++k) { mx[k] = (float16)(-INFINITY); sm[k] = (float16)(0); cp[k] = (float16)(0); }
  for (long r = 0; r < m; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) mx[k] = fmax(mx[k], vload16(k, in0 + off0 + p));
  }
  for (long r = 0; r < m; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) {
      const float16 v3 = exp(vload16(k, in0 + off0 + p) - mx[k]);
      const float16 y_ = v3 - cp[k]; const float16 t_ = sm[k] + y_; cp[k] = (t_ - sm[k]) - y_; sm[k] = t_;
      vstore16(v3, k, out0 + p);
    }
  }
  for (int k = 0; k < W; ++k) sm[k] -= cp[k];
  for (long r = 0; r < m; ++r) {
    const long p = base + r * rs;
    for (int k = 0; k < W; ++k) vstore16(vload16(k, out0 + p) / sm[k], k, out0 + p);
  }
}
