// Whole-array argmax of float, n = 1 (o = 0): variants by macro.
// U: independent (value, index) vector accumulators per work-item; PEEL: no
// "unset" test in the loop (accumulators start at the item's first vectors);
// L: work-group size.
static inline int better(float a, long ia, float b, long ib) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
  if (isnan(a)) return isnan(b) && ib < ia;
  if (isnan(b)) return 1;
  return (b > a) || (b == a && ib < ia);
}
// b's lanes better than a's (the first NaN, else the larger, else the lower index);
// an index < 0 is unset.
#define BETTER4(a, ia, b, ib) ((ib >= 0) & ((ia < 0) | select((b != b) | (b > a) | ((b == a) & (ib < ia)), (b != b) & (ib < ia), (a != a))))

__kernel __attribute__((reqd_work_group_size(L, 1, 1)))
void whole(__global long* restrict out0, __global const float* restrict in0, const long n, const long m,
           __global uchar* scratch, const long groups, __global atomic_uint* counters, const long off0) {
  const int lid = (int)get_local_id(0);
  const long o = 0, part = (long)get_group_id(0);
  const long chunk = ((m + groups - 1) / groups + 4 * U - 1) / (4 * U) * (4 * U);
  const long r_begin = min(m, part * chunk), r_end = min(m, r_begin + chunk);
  __local float sh[L];
  __local long shi[L];
  __local int is_last;
  float acc = -INFINITY;
  long idx = -1;
  {
#if IDX32
    typedef int ix_t;
#else
    typedef long ix_t;
#endif
    const ix_t nvec = (ix_t)((r_end - r_begin) / 4);
    const int base = (int)r_begin;
    float4 a[U];
    int4 ia[U];
    for (int u = 0; u < U; ++u) { a[u] = (float4)(-INFINITY); ia[u] = (int4)(-1); }
    ix_t q = lid;
#if PEEL
    // First round: every accumulator its own vector (where there is one).
    if (q + (U - 1) * L < nvec) {
      for (int u = 0; u < U; ++u) {
        a[u] = *(__global const float4*)(in0 + off0 + r_begin + (q + u * L) * 4);
        ia[u] = (int4)(base + (int)(q + u * L) * 4) + (int4)(0, 1, 2, 3);
      }
      q += U * L;
    }
#endif
    for (; q + (U - 1) * L < nvec; q += U * L) {
      float4 v[U];
      for (int u = 0; u < U; ++u) v[u] = *(__global const float4*)(in0 + off0 + r_begin + (q + u * L) * 4);
      for (int u = 0; u < U; ++u) {
#if PEEL
        const int4 t = (v[u] > a[u]) | (isnan(v[u]) & !isnan(a[u]));
#else
        const int4 t = (ia[u] < 0) | ((v[u] > a[u]) | ((v[u] != v[u]) & (a[u] == a[u])));
#endif
        a[u] = select(a[u], v[u], t);
        ia[u] = select(ia[u], (int4)(base + (int)(q + u * L) * 4) + (int4)(0, 1, 2, 3), t);
      }
    }
    for (; q < nvec; q += L) {  // leftover vectors into accumulator 0
      const float4 v = *(__global const float4*)(in0 + off0 + r_begin + q * 4);
      const int4 iv = (int4)(base + (int)q * 4) + (int4)(0, 1, 2, 3);
      const int4 t = BETTER4(a[0], ia[0], v, iv);
      a[0] = select(a[0], v, t);
      ia[0] = select(ia[0], iv, t);
    }
    for (int u = 1; u < U; ++u) {
      const int4 t = BETTER4(a[0], ia[0], a[u], ia[u]);
      a[0] = select(a[0], a[u], t);
      ia[0] = select(ia[0], ia[u], t);
    }
    for (int k = 0; k < 4; ++k)
      if (better(acc, idx, a[0][k], (long)ia[0][k])) { acc = a[0][k]; idx = ia[0][k]; }
    for (long r = r_begin + nvec * 4 + lid; r < r_end; r += L) {
      const float v0 = in0[off0 + r];
      if (better(acc, idx, v0, r)) { acc = v0; idx = r; }
    }
  }
  sh[lid] = acc; shi[lid] = idx;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s_ = L / 2; s_ > 0; s_ >>= 1) {
    if (lid < s_ && better(sh[lid], shi[lid], sh[lid + s_], shi[lid + s_])) { sh[lid] = sh[lid + s_]; shi[lid] = shi[lid + s_]; }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global long* pidx = (__global long*)scratch;
  __global float* pval = (__global float*)(scratch + n * groups * 8);
  if (lid == 0) {
    pval[part] = sh[0];
    pidx[part] = shi[0];
    is_last = atomic_fetch_add_explicit(&counters[o], 1u, memory_order_acq_rel, memory_scope_device) == (uint)(groups - 1);
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (!is_last) return;
  acc = -INFINITY;
  idx = -1;
  for (long k = lid; k < groups; k += L) {
    const float pv = pval[k]; const long pi = pidx[k];
    if (better(acc, idx, pv, pi)) { acc = pv; idx = pi; }
  }
  sh[lid] = acc; shi[lid] = idx;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s_ = L / 2; s_ > 0; s_ >>= 1) {
    if (lid < s_ && better(sh[lid], shi[lid], sh[lid + s_], shi[lid + s_])) { sh[lid] = sh[lid + s_]; shi[lid] = shi[lid + s_]; }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    out0[0] = shi[0];
    atomic_store_explicit(&counters[o], 0u, memory_order_relaxed, memory_scope_device);
  }
}
