// s0 (the generated kernel) with a barrier after each row step, so that PoCL runs the group's work-items
// (16 neighbouring vectors of columns, 1 KB of a row) one after another within each step, not each its whole column.
__kernel __attribute__((reqd_work_group_size(16, 1, 1)))
void softmax_cols(__global float* restrict out0, __global const float* restrict in0,
                  const long n, const long m, const long rs, const long off0)
{
  const int lid = (int)get_local_id(0);
  const long o = (long)get_group_id(0) * 16 + lid;
  const long base = o / (rs / 16) * m * rs + o % (rs / 16) * 16;
  float16 acc = (float16)(-INFINITY);
  for (long r = 0; r < m; r += 1) {
    acc = fmax(acc, vload16(0, in0 + off0 + base + r * rs));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float16 r1 = acc;
  float16 s = (float16)(0), comp = (float16)(0);
  for (long r = 0; r < m; r += 1) {
    const long p = base + r * rs;
    const float16 v3 = exp(vload16(0, in0 + off0 + p) - r1);
    const float16 y_ = v3 - comp; const float16 t_ = s + y_; comp = (t_ - s) - y_; s = t_;
    vstore16(v3, 0, out0 + p);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  s -= comp;
  for (long r = 0; r < m; r += 1) {
    const long p = base + r * rs;
    vstore16(vload16(0, out0 + p) / s, 0, out0 + p);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
