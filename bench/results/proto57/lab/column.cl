// Column argmax of float (axis 0 of m rows x n columns): a group of 32 x R
// work-items per block of 32 * W neighbouring columns, each work-item W
// columns (vectors of W), rows r = part's range, step R; parts (G) finish in
// a second kernel.
static inline int better(float a, long ia, float b, long ib) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
  if (isnan(a)) return isnan(b) && ib < ia;
  if (isnan(b)) return 1;
  return (b > a) || (b == a && ib < ia);
}
#if W == 1
typedef float vf; typedef int vi;
#define VLOAD(p) (*(p))
#define LANE(x, k) (x)
#define ISNAN(x) (isnan(x) ? -1 : 0)
#define NOT(x) (!(x) ? -1 : 0)
#define GT(a, b) ((a) > (b) ? -1 : 0)
#define SEL(a, b, t) ((t) ? (b) : (a))
#else
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
typedef XCAT(float, W) vf; typedef XCAT(int, W) vi;
#define VLOAD(p) XCAT(vload, W)(0, p)
#define LANE(x, k) ((x)[k])
#define ISNAN(x) isnan(x)
#define NOT(x) (!(x))
#define GT(a, b) ((a) > (b))
#define SEL(a, b, t) select(a, b, t)
#endif

__kernel __attribute__((reqd_work_group_size(32, R, 1)))
void column(__global long* restrict out0, __global const float* restrict in0, const long n, const long m,
            __global uchar* scratch, const long groups, const long off0) {
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const long blk = (long)get_group_id(0) / groups, part = (long)get_group_id(0) % groups;
  const long chunk = (m + groups - 1) / groups;
  const int r_begin = (int)min(m, part * chunk), r_end = (int)min(m, r_begin + chunk);
  const long o = (blk * 32 + lx) * W;
  __local float sh[32 * R * W];
  __local int shi[32 * R * W];
  vf acc = (vf)(-INFINITY);
  vi idx = (vi)(-1);
  if (o < n) {  // n a multiple of W here
    int r = r_begin + ly;
    if (r < r_end) { acc = VLOAD(in0 + off0 + (long)r * n + o); idx = (vi)(r); r += R; }
#if UNROLL
    #pragma unroll UNROLL
#endif
    for (; r < r_end; r += R) {
      const vf v = VLOAD(in0 + off0 + (long)r * n + o);
      const vi t = GT(v, acc) | (ISNAN(v) & NOT(ISNAN(acc)));
      acc = SEL(acc, v, t);
      idx = SEL(idx, (vi)(r), t);
    }
  }
  for (int k = 0; k < W; ++k) { sh[(ly * 32 + lx) * W + k] = LANE(acc, k); shi[(ly * 32 + lx) * W + k] = LANE(idx, k); }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s_ = R / 2; s_ > 0; s_ >>= 1) {
    if (ly < s_)
      for (int k = 0; k < W; ++k) {
        const int at = (ly * 32 + lx) * W + k, from = at + s_ * 32 * W;
        if (better(sh[at], shi[at], sh[from], shi[from])) { sh[at] = sh[from]; shi[at] = shi[from]; }
      }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (ly == 0 && o < n) {
    if (groups == 1) {
      for (int k = 0; k < W; ++k) out0[o + k] = shi[lx * W + k];
    } else {
      __global long* pidx = (__global long*)scratch;
      __global float* pval = (__global float*)(scratch + n * groups * 8);
      for (int k = 0; k < W; ++k) { pidx[part * n + o + k] = shi[lx * W + k]; pval[part * n + o + k] = sh[lx * W + k]; }
    }
  }
}

__kernel void finish(__global long* restrict out0, const long n, __global uchar* scratch, const long groups) {
  const long o = get_global_id(0);
  if (o >= n) return;
  __global long* pidx = (__global long*)scratch;
  __global float* pval = (__global float*)(scratch + n * groups * 8);
  float acc = -INFINITY; long idx = -1;
  for (long k = 0; k < groups; ++k)
    if (better(acc, idx, pval[k * n + o], pidx[k * n + o])) { acc = pval[k * n + o]; idx = pidx[k * n + o]; }
  out0[o] = idx;
}
