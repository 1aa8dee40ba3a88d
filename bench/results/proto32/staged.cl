// Prototype: short rows staged through local memory. A group of R work-items
// takes R whole rows (R*M floats, a multiple of 4 so every span is aligned),
// loads them in float4 into local memory, each work-item computes its row's
// softmax there, and the group stores the span in float4.
#ifndef R
#define R 128
#endif
#define SPAN (R * M)
#define NV ((SPAN + 3) / 4)
#pragma OPENCL FP_CONTRACT OFF
inline float rdiv(const float a, const float b, uint* range) {
  const float z = select((float)(NAN), (float)(1.0f) / b, isgreaterequal(fabs(b), (float)(0x1p-16f)) & islessequal(fabs(b), (float)(0x1p125f)));
  const float q = a * z, q1 = fma(fma(-q, b, a), z, q);
  const uint t = (as_uint(q1) << 1) - 0x2a000000u;
  *range = max(*range, t);
  return q1;
}
__kernel __attribute__((reqd_work_group_size(R, 1, 1)))
void k(__global float* restrict out0, __global const float* restrict in0, const long n, const long m, const long off0) {
  __local float4 sh[NV];
  __local float* shf = (__local float*)sh;
  const int lid = (int)get_local_id(0);
  const long base = (long)get_group_id(0) * SPAN;  // in floats
  const long total = n * m;
  const long left = total - base;  // floats of this span in the array
  if (left >= SPAN) {
    for (int i = lid; i < NV; i += R) sh[i] = vload4(0, in0 + off0 + base + 4 * (long)i);
  } else {
    for (int i = lid; i < NV; i += R)
      for (int j = 0; j < 4; ++j) shf[4 * i + j] = 4 * (long)i + j < left ? in0[off0 + base + 4 * i + j] : 0.f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  float v[M];
  for (int j = 0; j < M; ++j) v[j] = shf[lid * M + j];
  float mx = -INFINITY; int nan_ = 0;
  for (int j = 0; j < M; ++j) { mx = fmax(mx, v[j]); nan_ |= isnan(v[j]); }
  if (nan_) mx = NAN;
  float acc = 0.f, comp = 0.f;
  for (int j = 0; j < M; ++j) {
    v[j] = exp(v[j] - mx);
    const float y_ = v[j] - comp; const float t_ = acc + y_; comp = (isfinite(t_) ? (t_ - acc) - y_ : 0.f); acc = t_;
  }
  acc = acc - comp;
  uint rq = 0;
  float o[M];
  for (int j = 0; j < M; ++j) o[j] = rdiv(v[j], acc, &rq);
  if (rq > 0xd3000000u) for (int j = 0; j < M; ++j) o[j] = v[j] / acc;
  barrier(CLK_LOCAL_MEM_FENCE);  // every row read before any is overwritten (rows share float4s)
  for (int j = 0; j < M; ++j) shf[lid * M + j] = o[j];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (left >= SPAN) {
    for (int i = lid; i < NV; i += R) vstore4(sh[i], 0, out0 + base + 4 * (long)i);
  } else {
    for (int i = lid; i < NV; i += R)
      for (int j = 0; j < 4; ++j) if (4 * (long)i + j < left) out0[base + 4 * i + j] = shf[4 * i + j];
  }
}
